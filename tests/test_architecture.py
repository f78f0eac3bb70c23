"""The layout is the architecture: the engine, file handling, quality metrics and scale-out never import Qt.

Only ui/ and cli/selftest.py (which drives the whole app, window included, like a user) may.
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
        for folder in ("engine", "files", "quality", "review", "learn", "scale", "run", "bench")
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


# The import graph, floor by floor: a package imports only from the floors below its own. One that
# imports from above drags the floors above along (and their imports, Qt among them), and makes loops.
# docs/architecture.md shows the graph as the code has it (`python tests/test_architecture.py` prints it).
FLOORS = (
    ("paths", "quiet"),
    ("engine",),
    ("files",),
    ("learn",),
    ("quality", "review", "run", "scale"),
    ("bench",),
    ("ui",),
    ("cli",),
    ("__main__",),
)
FLOOR = {name: k for k, names in enumerate(FLOORS) for name in names}
DOC_BLOCK = re.compile(r"<!-- imports -->\n(.*?)<!-- /imports -->", re.S)


def imported_targets(path: Path) -> set[str]:
    """imported_modules, plus what `from package import module` names: triage_app.cli for
    `from triage_app import cli`."""
    names = imported_modules(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def package_graph(package: Path) -> dict[str, set[str]]:
    """Each package (a folder, or a module at the top of triage_app) -> the packages it imports."""
    graph: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        rel = path.relative_to(package)
        source = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        graph.setdefault(source, set())
        for parts in (name.split(".") for name in imported_targets(path)):
            if parts[0] == "triage_app" and len(parts) > 1 and parts[1] != source and (
                    (package / parts[1]).is_dir() or (package / f"{parts[1]}.py").exists()):
                graph[source].add(parts[1])
    graph.pop("__init__", None)
    return graph


def graph_text(graph: dict[str, set[str]]) -> str:
    """The graph as docs/architecture.md shows it: top floor first, each package with what it imports."""
    lines = []
    for names in reversed(FLOORS):
        for name in names:
            if name in graph:
                below = ", ".join(f"`{n}`" for n in sorted(graph[name], key=lambda n: (-FLOOR.get(n, 0), n)))
                lines.append(f"- `{name}` → {below or 'nothing of ours'}")
    return "\n".join(lines) + "\n"


def test_every_package_has_a_floor():
    assert sorted(set(package_graph(PACKAGE)) - set(FLOOR)) == []


def test_no_package_imports_one_on_its_own_floor_or_above():
    graph = package_graph(PACKAGE)
    assert sorted(f"{a} imports {b}" for a, targets in graph.items() for b in targets
                  if FLOOR.get(b, len(FLOORS)) >= FLOOR.get(a, -1)) == []


def test_the_architecture_doc_shows_the_graph_the_code_has():
    found = DOC_BLOCK.search((PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert found and found.group(1) == graph_text(package_graph(PACKAGE))


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


def test_the_floor_check_sees_an_import_from_above(tmp_path):
    for folder, text in (("engine", "def f():\n    from triage_app.ui import window\n"),
                         ("ui", "from triage_app.engine import config\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.py").write_text(text)
    graph = package_graph(tmp_path)
    assert graph == {"engine": {"ui"}, "ui": {"engine"}}
    assert graph_text(graph) == "- `ui` → `engine`\n- `engine` → `ui`\n"


if __name__ == "__main__":
    print(graph_text(package_graph(PACKAGE)), end="")
