"""The layout is the architecture: the engine, file handling, quality metrics and scale-out never import Qt.

Only ui/ and selftest.py (which drives the whole app, window included, like a user) may.
"""

import ast
import sys
from pathlib import Path

import pytest

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


# The import graph: engine <- files/quality <- scale/cli/ui, nothing upward. A layer that imports
# from above it drags the layers above along (and their imports, Qt among them), and makes loops.
LAYERS_ABOVE = {
    "engine": ("files", "quality", "learn", "scale", "cli", "ui", "job"),
    "files": ("scale", "cli", "ui"),
    "quality": ("scale", "cli", "ui"),
}


def imported_targets(path: Path) -> set[str]:
    """imported_modules, plus what `from package import module` names: triage_app.cli for
    `from triage_app import cli`."""
    names = imported_modules(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def upward_imports(folder: str, above: tuple[str, ...]) -> list[str]:
    """Every import in triage_app/<folder> (function-level ones included) of a module named in above."""
    return sorted({
        f"{path.relative_to(PACKAGE)} imports triage_app.{parts[1]}"
        for path in (PACKAGE / folder).rglob("*.py")
        for parts in (name.split(".") for name in imported_targets(path))
        if parts[0] == "triage_app" and len(parts) > 1 and parts[1] in above
    })


@pytest.mark.parametrize("folder", list(LAYERS_ABOVE))
def test_no_layer_imports_the_layers_above_it(folder):
    assert upward_imports(folder, LAYERS_ABOVE[folder]) == []


def test_scale_imports_neither_the_command_line_nor_the_window():
    assert upward_imports("scale", ("cli", "ui")) == []


def test_the_graph_check_sees_an_upward_import(tmp_path, monkeypatch):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "x.py").write_text("def f():\n    from triage_app.ui import window\n")
    (tmp_path / "engine" / "y.py").write_text("from triage_app import cli, paths\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path)
    assert upward_imports("engine", ("ui", "cli")) == ["engine/x.py imports triage_app.ui",
                                                        "engine/y.py imports triage_app.cli"]
