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


# ui/ in rooms: each room keeps to itself and the few shared words; only the window's shell (the
# modules directly in ui/) wires rooms together. A room that reached into another's modules would
# tie the two together where no newcomer looks for it.
ROOMS = ("table", "panels", "learning", "background")
SHARED = ("plain_text", "words", "qt_fixes", "images")


def room_reaches(room: str) -> list[str]:
    from test_architecture import imported_targets

    out = []
    for path in sorted((UI / room).rglob("*.py")):
        for name in imported_targets(path):
            parts = name.split(".")
            if parts[:2] == ["triage_app", "ui"] and len(parts) > 2 and parts[2] not in (room, *SHARED):
                out.append(f"{room}/{path.name} imports {'.'.join(parts[:4])}")
    return sorted(set(out))


def test_a_room_imports_no_other_room_and_not_the_shell():
    assert {room: room_reaches(room) for room in ROOMS} == {room: [] for room in ROOMS}


def test_the_room_check_sees_a_reach(tmp_path, monkeypatch):
    import test_ui_architecture as this

    (tmp_path / "table").mkdir()
    (tmp_path / "table" / "x.py").write_text("from triage_app.ui.panels.side import SidePanels\n"
                                             "from triage_app.ui.table.model import LABEL\n"
                                             "from triage_app.ui.plain_text import tooltip\n")
    monkeypatch.setattr(this, "UI", tmp_path)
    assert room_reaches("table") == ["table/x.py imports triage_app.ui.panels.side"]


MAX_LINES = 400


def test_no_module_is_over_400_lines():
    package = UI.parent
    long = {str(p.relative_to(package)): n for p in package.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
