"""The README is the front door; the measurements and the depth live in docs/."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")                        # [text](target) and ![alt](target)
DOCS_PATH = re.compile(r"docs/[\w./-]*README\.md")          # a pointer into docs/, not into the README


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines: measurements and details belong in docs/"


def test_every_relative_link_points_to_a_file():
    missing = []
    for md in markdown_files():
        for target in LINK.findall(md.read_text(encoding="utf-8")):
            path = target.split("#", 1)[0]
            if not path or re.match(r"[a-z][a-z0-9+.-]*:", path):   # an anchor here, or a URL
                continue
            if not (md.parent / path).exists():
                missing.append(f"{md.relative_to(ROOT)}: {target}")
    assert not missing, "links to missing files:\n" + "\n".join(missing)


def test_the_code_points_into_docs_not_the_readme():
    # a person using the app has no README, and its sections move; docs/ files are named by path
    pointers = [f"{py.relative_to(ROOT)}:{n}"
                for py in sorted((ROOT / "triage_app").rglob("*.py"))
                for n, line in enumerate(py.read_text(encoding="utf-8").splitlines(), 1)
                if "README" in DOCS_PATH.sub("", line)]
    assert not pointers, "pointers into the README (point into docs/ instead): " + ", ".join(pointers)
