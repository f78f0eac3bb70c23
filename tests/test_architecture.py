"""The layout is the architecture: the engine, file handling, quality metrics and scale-out never import Qt.

Only ui/ and selftest.py (which drives the whole app, window included, like a user) may.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "triage_app"
QT = ("PySide6", "qasync", "pyqtgraph", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_and_files_never_import_qt():
    offenders = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for folder in ("engine", "files", "quality", "scale")
        for path in (PACKAGE / folder).rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] in QT
    ]
    assert offenders == []


def test_the_windows_metrics_need_no_torch():
    """The window computes accuracy with quality/metrics.py, so that module stays plain Python."""
    assert not {name.split(".")[0] for name in imported_modules(PACKAGE / "quality" / "metrics.py")} & {"torch"}


def test_the_check_sees_imports(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("from PySide6.QtCore import QObject\nimport torch\n")
    assert imported_modules(sample) == {"PySide6.QtCore", "torch"}
