"""triage-app --self-test, as the frozen app runs it: a subprocess, exit status and one line per step."""

import subprocess
import sys

import pytest

STEPS = ("environment:", "imports:", "window:", "sample:", "model:", "classify:", "export:")
FAILING = ("import triage_app.cli.selftest as s; from pathlib import Path; "
           "s.sample_path = lambda: Path('/nonexistent/sample.csv'); raise SystemExit(s.main())")


def _self_test(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    # the environment is conftest's: offscreen Qt, the suite's model cache (converted once)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def failing():
    """The self-test with its sample gone, started before the passing one and running beside it: its time is
    imports and a window, which leave the passing run's model a core; each is its own process all the same."""
    process = subprocess.Popen([sys.executable, "-c", FAILING], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    yield process
    if process.poll() is None:
        process.kill()
        process.communicate()


def test_self_test_passes_and_says_each_step(failing):   # failing: started first, to run beside this one
    done = _self_test("-m", "triage_app", "--self-test")
    lines = [line for line in done.stdout.splitlines() if line.startswith("self-test")]
    assert done.returncode == 0, done.stdout + done.stderr
    for step in STEPS:
        assert any(line.startswith(f"self-test: {step}") for line in lines), (step, lines)
    assert "8 tickets" in next(line for line in lines if "classify:" in line)
    assert lines[-1].startswith("self-test passed in ")


def test_self_test_fails_with_a_reason(failing):
    stdout, stderr = failing.communicate(timeout=120)
    assert failing.returncode == 1, stdout + stderr
    assert "self-test FAILED: the bundled sample is missing: /nonexistent/sample.csv" in stdout
