"""A first run that works offline: which models are on this machine, the one to start on, and a
plain line (with its reason) when a Hugging Face model is missing and cannot be fetched.

Every fetch here goes to a closed local port or a local server, or is refused by offline mode:
no test sends anything off this machine.
"""

from __future__ import annotations

import errno
import http.server
import json
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from triage_app.engine import device, models

CLOSED_PORT = "http://127.0.0.1:9"   # discard: nothing listens there
CPU = device.choose("cpu", "float32")


def snapshot(cache: Path, repo_id: str, files: dict[str, str], commit: str = "c" * 40) -> Path:
    """A cache entry as huggingface_hub lays it out; a None content is a link to a blob never written."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    folder = repo / "snapshots" / commit
    folder.mkdir(parents=True)
    (repo / "blobs").mkdir(exist_ok=True)
    for name, content in files.items():
        if content is None:
            (folder / name).symlink_to(repo / "blobs" / f"missing-{name}")
        else:
            (folder / name).write_text(content)
    return folder


WHOLE = {"config.json": "{}", "model.safetensors": "w", "tokenizer.json": "{}", "tokenizer_config.json": "{}"}


def test_a_hub_model_is_local_only_when_config_weights_and_tokenizer_are_all_there(empty_hub):
    assert not models.is_local("qwen2.5-0.5b")                          # nothing in the cache
    snapshot(empty_hub, "t/whole", WHOLE)
    assert models.is_local("t/whole")
    snapshot(empty_hub, "t/no-tokenizer", {**WHOLE, "tokenizer.json": None})   # a download cut short
    assert not models.is_local("t/no-tokenizer")
    snapshot(empty_hub, "t/no-weights", {k: v for k, v in WHOLE.items() if k != "model.safetensors"})
    assert not models.is_local("t/no-weights")
    index = json.dumps({"weight_map": {"a": "model-1.safetensors", "b": "model-2.safetensors"}})
    shards = {**WHOLE, "model.safetensors": None, "model.safetensors.index.json": index, "model-1.safetensors": "w"}
    snapshot(empty_hub, "t/one-shard-of-two", shards)
    assert not models.is_local("t/one-shard-of-two")
    snapshot(empty_hub, "t/bpe", {"config.json": "{}", "model.safetensors": "w", "vocab.json": "{}", "merges.txt": ""})
    assert models.is_local("t/bpe")
    assert not models.is_local("not a hub id!")


def test_files_folders_and_the_bundled_model(tmp_path, empty_hub):
    assert models.is_local(models.SMOLLM2) and models.is_local(models.RANDOM_QWEN)
    assert models.is_local(str(models.smollm2_path()))
    assert not models.is_local(str(tmp_path / "gone.gguf"))
    folder = tmp_path / "model"
    folder.mkdir()
    assert not models.is_local(str(folder))
    for name, content in WHOLE.items():
        (folder / name).write_text(content)
    assert models.is_local(str(folder))


def test_the_first_run_starts_on_the_recommended_model_only_once_it_is_here(empty_hub):
    assert models.first_available(["qwen2.5-0.5b"]) == models.SMOLLM2
    assert models.first_available(["t/gone", "qwen2.5-0.5b"]) == models.SMOLLM2
    snapshot(empty_hub, models.DEFAULT_MODEL, WHOLE)
    assert models.first_available(["qwen2.5-0.5b"]) == "qwen2.5-0.5b"


def load_failure(spec: str = models.DEFAULT_MODEL, allow_download: bool = True) -> models.ModelNotDownloaded:
    with pytest.raises(models.ModelNotDownloaded) as failed:
        models.load(spec, CPU, allow_download=allow_download)
    assert isinstance(failed.value, models.ModelNotAvailable)    # callers that catch the old class still do
    assert failed.value.spec == spec
    line = str(failed.value)
    assert "\n" not in line and "Got:" not in line and "Error" not in line, line
    return failed.value


def test_no_connection_is_said_plainly(empty_hub):
    failed = load_failure()
    assert failed.why is models.Missing.NO_CONNECTION and failed.no_network
    assert str(failed) == (f"Qwen2.5-0.5B-Instruct is not on {models._THIS_MACHINE} yet "
                           f"and there is no connection to download it")


def test_offline_mode_is_said_plainly(empty_hub, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    failed = load_failure()
    assert failed.why is models.Missing.OFFLINE_MODE and failed.no_network
    assert "HF_HUB_OFFLINE" in str(failed)


def test_downloads_off_and_a_partly_downloaded_model(empty_hub):
    failed = load_failure(allow_download=False)
    assert failed.why is models.Missing.DOWNLOADS_OFF and not failed.no_network and not failed.partly
    assert str(failed).startswith("Qwen2.5-0.5B-Instruct is not in the Hugging Face cache on")
    assert "downloads are off" in str(failed)
    snapshot(empty_hub, models.DEFAULT_MODEL, {**WHOLE, "model.safetensors": None})
    failed = load_failure()
    assert failed.partly and failed.why is models.Missing.NO_CONNECTION
    assert str(failed).startswith("Qwen2.5-0.5B-Instruct is only partly on")


class NotFound(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET

    def log_message(self, *args):
        pass


def test_a_model_the_hub_does_not_have_is_not_a_connection_problem(empty_hub, monkeypatch):
    from huggingface_hub import constants

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{server.server_port}")
        failed = load_failure("t/misspelt")
    finally:
        server.shutdown()
        server.server_close()
    assert failed.why is models.Missing.NOT_ON_HUB and not failed.no_network
    assert "has no model t/misspelt" in str(failed)


def raised_during(error: BaseException) -> BaseException:
    """error as a download meets it: caught and wrapped, the way huggingface_hub's errors chain."""
    try:
        try:
            raise error
        except OSError:
            raise RuntimeError("download failed")
    except RuntimeError as wrapped:
        return wrapped


def test_a_full_disk_or_a_read_only_cache_is_not_a_connection_problem():
    assert models._why_missing(raised_during(OSError(errno.ENOSPC, "No space left on device"))) \
        is models.Missing.DISK_FULL
    assert models._why_missing(raised_during(PermissionError(errno.EACCES, "Permission denied"))) \
        is models.Missing.CANNOT_SAVE
    assert models._why_missing(RuntimeError("something else")) is models.Missing.FAILED
    full = models.ModelNotDownloaded("a/b", models.Missing.DISK_FULL)
    assert "disk is too full" in str(full) and not full.no_network
    again = pickle.loads(pickle.dumps(full))      # Ray hands a worker's failure back pickled
    assert (again.spec, again.why, str(again)) == (full.spec, full.why, str(full))


def test_a_window_can_ask_without_torch_and_without_the_network(tmp_path):
    """What the window calls at start-up, with the environment a user without a connection has."""
    code = ("import json, sys; from triage_app.engine import models;"
            "print(json.dumps([models.is_local('qwen2.5-0.5b'), models.first_available(['qwen2.5-0.5b']),"
            "'torch' in sys.modules]))")
    env = {"HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": CLOSED_PORT, "PATH": "/usr/bin:/bin",
           "TRIAGE_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [False, models.SMOLLM2, False]
