"""triage-app --self-test, as the frozen app runs it: a subprocess, exit status and one line per step."""

import subprocess
import sys

STEPS = ("environment:", "imports:", "window:", "sample:", "model:", "classify:", "export:")


def _self_test(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    # the environment is conftest's: offscreen Qt, the suite's model cache (converted once)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout)


def test_self_test_passes_and_says_each_step():
    done = _self_test("-m", "triage_app", "--self-test")
    lines = [line for line in done.stdout.splitlines() if line.startswith("self-test")]
    assert done.returncode == 0, done.stdout + done.stderr
    for step in STEPS:
        assert any(line.startswith(f"self-test: {step}") for line in lines), (step, lines)
    assert "8 tickets" in next(line for line in lines if "classify:" in line)
    assert lines[-1].startswith("self-test passed in ")


def test_self_test_fails_with_a_reason():
    done = _self_test("-c", "import triage_app.cli.selftest as s; from pathlib import Path; "
                      "s.sample_path = lambda: Path('/nonexistent/sample.csv'); raise SystemExit(s.main())")
    assert done.returncode == 1
    assert "self-test FAILED: the bundled sample is missing: /nonexistent/sample.csv" in done.stdout
