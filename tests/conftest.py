"""Real parts, loaded once per test session: the bundled SmolLM2 and a tiny random Qwen2."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# torch's OpenMP threads spin while they wait for work; on a CPU shared with other jobs (CI runners,
# a loaded laptop) two spinning threads per process made runs 7x slower and UI tests time out.
# Set before torch is imported, and inherited by the CLI tests' subprocesses.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# converted GGUF weights are cached per user; keep the suite's copy out of the user's cache
os.environ.setdefault("TRIAGE_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".cache" / "triage"))
# results databases: one fresh folder per test session, never the user's own
os.environ["TRIAGE_DATA_DIR"] = tempfile.mkdtemp(prefix="triage-data-")
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def _garbage_on_the_ui_thread():
    """Once a window has switched automatic collection off (triage_app/ui/ui_thread_gc.py), what is due is
    collected between tests too, on this thread: a test with no event loop never runs the collector's timer."""
    yield
    collector = sys.modules.get("triage_app.ui.ui_thread_gc")
    if collector is not None:
        collector.check()


@pytest.fixture(scope="session")
def smollm2():
    from triage_app.engine import device, models

    return models.load(models.SMOLLM2, device.choose("cpu", "float32"))


@pytest.fixture(scope="session")
def tiny_qwen():
    from tiny_qwen import load_tiny_qwen

    return load_tiny_qwen()


@pytest.fixture(scope="session")
def sample_rows():
    from triage_app.bench.workloads import load_sample

    return load_sample()


@pytest.fixture
def tiny_model(monkeypatch, tiny_qwen):
    """The command line's model is the tiny random Qwen2: what is tested is what reaches it."""
    from triage_app.cli import options

    monkeypatch.setattr(options, "load_model", lambda args: tiny_qwen)


@pytest.fixture
def bundled_model(monkeypatch, smollm2):
    """The command line's model is the session's SmolLM2, loaded once: a command that asks for it
    (smollm2-135m on the CPU, float32 as "auto" gives there) gets it, any other model fails the test."""
    from triage_app.cli import options
    from triage_app.engine import models

    def load(args):
        assert (args.model, args.device, args.dtype) in {(models.SMOLLM2, d, t) for d in ("auto", "cpu")
                                                         for t in ("auto", "float32")}, args
        return smollm2

    monkeypatch.setattr(options, "load_model", load)


CLOSED_PORT = "http://127.0.0.1:9"   # discard: nothing listens there


@pytest.fixture
def empty_hub(tmp_path, monkeypatch):
    """An empty Hugging Face cache and a Hub that cannot be reached, for this test only.

    huggingface_hub read its environment when it was imported, so its constants are set."""
    from huggingface_hub import constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "ENDPOINT", CLOSED_PORT)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    return cache


# The fast tier (scripts/test --fast): tests that need no model and no window. A test is marked by
# the fixtures it asks for, so a new test lands in the right tier without a word; the modules below
# load a model or start the app in a process of their own, which no fixture shows.
MODEL_FIXTURES = {"smollm2", "tiny_qwen", "tiny_model", "bundled_model", "sample_rows"}
WINDOW_FIXTURES = {"qtbot", "qapp"}
PROCESS_MODULES = {"test_checked_emulated", "test_cli", "test_config", "test_job", "test_learn", "test_offline",
                   "test_selftest", "test_ui_architecture", "test_ui_signals", "test_ui_window", "test_direct", "test_models",
                   "test_scale"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & MODEL_FIXTURES or item.module.__name__ in PROCESS_MODULES:
            item.add_marker(pytest.mark.model)
        if names & WINDOW_FIXTURES:
            item.add_marker(pytest.mark.window)
