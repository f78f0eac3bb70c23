"""scripts/app runs where the person stands: a relative path is read from the folder it is started in, not
from the repository (issue 32 item 17). It still sets the repository's .venv up, and still opens the window."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "scripts" / "app"


def _app(cwd: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(cwd / "config"))
    return subprocess.run([str(APP), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.model      # starts the app in a process of its own
def test_a_relative_path_is_read_from_the_folder_it_is_run_in(tmp_path):
    (tmp_path / "export.csv").write_text("id,body\n1,my invoice is wrong\n2,the app crashes\n", encoding="utf-8")
    done = _app(tmp_path, "inspect", "export.csv")
    assert done.returncode == 0, done.stderr
    assert "body" in done.stdout and "2" in done.stdout


@pytest.mark.window
@pytest.mark.model
def test_the_window_opens_from_another_folder_and_writes_its_screenshot_there(tmp_path):
    done = _app(tmp_path, "gui", "--screenshot", "shot.png")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
