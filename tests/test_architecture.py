"""The layout is the architecture: the engine, file handling, quality metrics and scale-out never import Qt.

Only ui/ and selftest.py (which drives the whole app, window included, like a user) may.
"""

import ast
import re
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
        for folder in ("engine", "files", "quality", "review", "learn", "scale")
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
    "engine": ("files", "quality", "learn", "review", "scale", "cli", "ui", "job", "label_scores", "taught_job"),
    "files": ("scale", "cli", "ui", "review"),
    "review": ("scale", "cli", "ui", "job", "taught_job"),
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


# Product code runs from a wheel or the app bundle, where scripts/ does not exist: what it needs
# lives in the package, and the scripts import it from there, never the other way round.
SCRIPTS_PATH = re.compile(r"(?:^|[/\\])scripts(?:[/\\]|$)")


def scripts_references(path: Path) -> list[str]:
    """Imports of scripts.* and string literals naming a scripts folder (docstrings aside: a note
    on where a number came from loads nothing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    found = [name for name in imported_modules(path) if name.split(".")[0] == "scripts"]
    found += [repr(node.value) for node in ast.walk(tree)
              if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
              and SCRIPTS_PATH.search(node.value)]
    return found


def test_no_product_module_loads_a_file_from_scripts():
    offenders = [f"{path.relative_to(PACKAGE)}: {ref}" for path in sorted(PACKAGE.rglob("*.py"))
                 for ref in scripts_references(path)]
    assert offenders == []


def test_the_scripts_check_sees_a_path_and_an_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text('"""Numbers from scripts/experiments/x.py."""\nimport scripts.experiments.x\n'
                      'p = ROOT / "scripts" / "experiments"\nq = "scripts/x.py"\nr = "transcripts"\n')
    assert sorted(scripts_references(sample)) == ["'scripts'", "'scripts/x.py'", "scripts.experiments.x"]


# A module that imports itself through others: reader.py and sheets.py once took each other's
# helpers, so neither could be read, or imported first, without the other.
def module_graph(package: Path) -> dict[str, set[str]]:
    """Module name -> the package's modules it imports (function-level imports included)."""
    paths = {".".join(p.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__"): p
             for p in package.rglob("*.py")}
    return {name: {t for t in imported_targets(path) if t in paths and t != name} for name, path in paths.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every module from which its own imports lead back to it."""
    def reaches(start: str) -> set[str]:
        seen, todo = set(), list(graph[start])
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += graph[name]
        return seen
    return sorted(name for name in graph if name in reaches(name))


def test_no_module_imports_itself_through_others():
    assert import_cycles(module_graph(PACKAGE)) == []


def test_the_cycle_check_sees_a_cycle(tmp_path):
    (tmp_path / "triage_app" / "files").mkdir(parents=True)
    (tmp_path / "triage_app" / "files" / "a.py").write_text("from triage_app.files.b import x\n")
    (tmp_path / "triage_app" / "files" / "b.py").write_text("def f():\n    from triage_app.files import a\n")
    (tmp_path / "triage_app" / "files" / "c.py").write_text("from triage_app.files import a\n")
    assert import_cycles(module_graph(tmp_path / "triage_app")) == ["triage_app.files.a", "triage_app.files.b"]
