"""A loaded model's identity: what the results store calls its weights, whatever spec named them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from triage_app.engine import device, models


def later(path, seconds: int = 10) -> None:
    """As if the file had been replaced a little later (the clock's tick is coarser than a test)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + seconds * 10**9))


def test_a_file_is_named_by_its_resolved_path_size_and_time(tmp_path, monkeypatch):
    weights = tmp_path / "m.gguf"
    weights.write_bytes(b"a" * 100)
    first = models.file_identity(weights)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert models.file_identity(Path("../m.gguf")) == first            # a relative path, from another folder
    weights.write_bytes(b"b" * 100)                                     # replaced: same size, later
    later(weights)
    assert models.file_identity(weights) != first
    second = models.file_identity(weights)
    stat = weights.stat()
    weights.write_bytes(b"b" * 101)                                     # other size, same time
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert models.file_identity(weights) not in (first, second)
    with pytest.raises(models.ModelNotAvailable, match="no such GGUF file"):
        models.file_identity(tmp_path / "gone.gguf")


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory, tiny_qwen):
    folder = tmp_path_factory.mktemp("tiny") / "tiny-qwen2"
    tiny_qwen.model.save_pretrained(folder)
    tiny_qwen.tokenizer.save_pretrained(folder)
    return folder


CPU = device.choose("cpu", "float32")


def test_a_folder_is_named_by_its_path_and_its_model_files(tiny_folder, tmp_path, monkeypatch):
    first = models.load(str(tiny_folder), CPU)
    assert first.identity.startswith(f"{tiny_folder.resolve()}:") and first.spec == str(tiny_folder)
    monkeypatch.chdir(tiny_folder.parent)
    assert models.load(tiny_folder.name, CPU).identity == first.identity       # relative, from elsewhere
    (tiny_folder / "README.md").write_text("notes")                            # not a model file
    assert models.folder_identity(tiny_folder) == first.identity
    config = tiny_folder / "config.json"
    config.write_text(config.read_text().replace('"initializer_range": 0.2', '"initializer_range": 0.02'))
    later(config)
    assert models.load(str(tiny_folder), CPU).identity != first.identity        # new weights, config or tokenizer


def hub_snapshot(cache, repo_id: str, commit: str, source) -> None:
    """A Hugging Face cache entry as huggingface_hub lays it out: refs/main names the snapshot."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for f in source.iterdir():
        (snapshot / f.name).symlink_to(f)


def test_a_hub_model_is_named_by_its_snapshot_commit(tiny_folder, tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    old, new = "a" * 40, "b" * 40
    hub_snapshot(tmp_path, "triage/tiny", old, tiny_folder)
    assert models.load("triage/tiny", CPU).identity == f"triage/tiny@{old}"
    hub_snapshot(tmp_path, "triage/tiny", new, tiny_folder)                    # the model was updated
    assert models.load("triage/tiny", CPU).identity == f"triage/tiny@{new}"


def test_random_weights_and_hand_built_models_are_named_by_their_spec(tiny_qwen):
    assert tiny_qwen.identity == tiny_qwen.spec == "tiny-qwen2"


def damaged(tiny_folder, tmp_path, name: str, change) -> Path:
    """A copy of the tiny model's folder, one file changed as change(path) changes it."""
    import shutil

    folder = tmp_path / name
    shutil.copytree(tiny_folder, folder)
    change(folder)
    return folder


def test_a_damaged_or_self_contradicting_model_is_one_line(tiny_folder, tmp_path):
    # a hunt's finding: a safetensors header, a GGUF cut short or a config that contradicts itself raised errors
    # that are no OSError or ValueError: a traceback, exit 1
    import json

    def contradicting(folder):
        config = json.loads((folder / "config.json").read_text())
        config["layer_types"] = ["full_attention"] * (config["num_hidden_layers"] + 3)
        (folder / "config.json").write_text(json.dumps(config))

    folders = [damaged(tiny_folder, tmp_path, "weights", lambda f: (f / "model.safetensors").write_bytes(os.urandom(1000))),
               damaged(tiny_folder, tmp_path, "config", contradicting)]
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(models.smollm2_path().read_bytes()[:20_000])
    for spec in [*folders, cut]:
        with pytest.raises(models.ModelNotAvailable, match=f"cannot load a model from {spec}: "):
            models.load(str(spec), CPU)


def test_a_folder_that_holds_no_model_says_so_and_names_a_gguf_in_it(tmp_path):
    # a hunt's finding: "Couldn't instantiate the backend tokenizer from one of: ", cut short
    (tmp_path / "empty").mkdir()
    with pytest.raises(models.ModelNotAvailable, match="not a model folder \\(no config.json\\)$"):
        models.load(str(tmp_path / "empty"), CPU)
    (tmp_path / "empty" / "smol.gguf").write_bytes(b"GGUF")
    with pytest.raises(models.ModelNotAvailable, match="for a GGUF choose the file itself \\(smol.gguf\\)"):
        models.load(str(tmp_path / "empty"), CPU)


def test_an_allocation_refused_is_too_big_for_the_memory(tiny_folder, monkeypatch):
    # a hunt's finding: torch's allocator raises RuntimeError ("can't allocate memory"), not MemoryError
    from transformers import AutoModelForCausalLM

    def refused(*args, **kwargs):
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 939524096 bytes")

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", refused)
    with pytest.raises(models.ModelNotAvailable, match="too big for this machine's memory"):
        models.load(str(tiny_folder), CPU)


def test_a_gguf_is_de_quantized_once_where_the_cache_cannot_be_written(monkeypatch, tmp_path, tiny_qwen):
    # a hunt's finding: the model loaded was thrown away and loaded again (twice the slow part). The tiny model
    # stands in for what transformers de-quantizes from the bundled file (seconds a load)
    import copy

    from transformers import AutoModelForCausalLM, AutoTokenizer

    monkeypatch.setattr(models, "user_cache_dir", lambda: tmp_path / "a-file" / "cache")
    (tmp_path / "a-file").write_text("a file where the cache's folder would be")
    loads = []

    def de_quantized(folder, **kwargs):
        loads.append(kwargs.get("gguf_file"))
        model = copy.deepcopy(tiny_qwen.model)
        model.config.quantization_config = {"quant_method": "gguf"}
        return model

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", de_quantized)
    monkeypatch.setattr(AutoTokenizer, "from_pretrained", lambda folder, **kwargs: tiny_qwen.tokenizer)
    loaded = models.load(models.SMOLLM2, CPU)
    assert loaded.model is not None and loads == [models.smollm2_path().name]
