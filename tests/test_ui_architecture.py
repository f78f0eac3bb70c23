"""The window never touches tensors: no module under triage_app/ui imports torch, and opening the
window does not load it (only the worker's thread does, when a model is asked for)."""

import subprocess
import sys
from pathlib import Path

from test_architecture import imported_modules

UI = Path(__file__).resolve().parents[1] / "triage_app" / "ui"


def test_ui_modules_never_import_torch():
    modules = sorted(UI.rglob("*.py"))
    assert len(modules) >= 8
    offenders = [f"{path.name} imports {name}" for path in modules for name in imported_modules(path)
                 if name.split(".")[0] in ("torch", "transformers")]
    assert offenders == []


def test_opening_the_window_loads_no_torch(tmp_path):
    code = ("import sys; from PySide6.QtWidgets import QApplication; app = QApplication([]);"
            "from triage_app.ui.window import MainWindow; w = MainWindow(autoload=False); w.shutdown();"
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    env = {"QT_QPA_PLATFORM": "offscreen", "TRIAGE_SETTINGS_FILE": str(tmp_path / "t.ini"),
           "TRIAGE_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=UI.parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
