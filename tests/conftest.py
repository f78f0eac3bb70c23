"""Real parts, loaded once per test session: the bundled SmolLM2 and a tiny random Qwen2."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# converted GGUF weights are cached per user; keep the suite's copy out of the user's cache
os.environ.setdefault("TRIAGE_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".cache" / "triage"))
# results databases: one fresh folder per test session, never the user's own
os.environ["TRIAGE_DATA_DIR"] = tempfile.mkdtemp(prefix="triage-data-")
sys.path.insert(0, str(Path(__file__).resolve().parent))


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
    from triage_app.engine.workloads import load_sample

    return load_sample()
