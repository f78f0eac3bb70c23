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


SECTION = re.compile(r"^triage-app (\S+)")        # a command's first line in the synopsis
GROUP = re.compile(r"^  ([A-Z]+) ")                # options several commands share, named once: [MODEL]


def synopsis() -> dict[str, str]:
    """The README's command-line block, by command; a section takes in the groups it names."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Command line", 1)[1].split("```", 2)[1]
    sections, groups, current = {}, {}, None
    for line in block.splitlines():
        if match := SECTION.match(line):
            name = match.group(1)
            current = sections.setdefault("gui" if name == "[FILE]" else name, [])
        elif match := GROUP.match(line):
            current = groups.setdefault(match.group(1), [])
        if current is not None:
            current.append(line)
    texts = {name: "\n".join(lines) for name, lines in sections.items()}
    return {name: "\n".join([text, *("\n".join(groups[g]) for g in re.findall(r"\[([A-Z]+)\]", text) if g in groups)])
            for name, text in texts.items()}


def undocumented(parser, text: str) -> list[str]:
    """The parser's options (and their choices) that the text does not show."""
    def shown(word):
        return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text)

    missing = []
    for action in parser._actions:
        if not action.option_strings or "-h" in action.option_strings:
            continue
        if not any(shown(option) for option in action.option_strings):
            missing.append(action.option_strings[-1])
        missing += [f"{action.option_strings[-1]} {choice}" for choice in action.choices or () if not shown(choice)]
    return missing


def test_the_readme_synopsis_shows_every_option():
    from triage_app.cli.parser import build_parser
    from triage_app.ui.app import _parser as gui_parser

    parser = build_parser()
    commands = {**parser.commands, "gui": gui_parser()}   # `triage-app gui` hands its arguments to the window's parser
    sections = synopsis()
    missing = [f"{name}: {option}" for name, command in commands.items()
               for option in undocumented(command, sections.get(name, ""))]
    missing += [f"triage-app: {option}" for option in undocumented(parser, "\n".join(sections.values()))]
    assert not missing, "options missing from the README's command-line block:\n" + "\n".join(missing)


CITED = re.compile(r"(?<![\w/.-])docs/[\w./-]*\w")   # a docs/ path written out in code, a script or a comment
CITING = ("triage_app", "scripts", "packaging", "tests", ".github")


def test_every_docs_path_the_code_cites_exists():
    missing = []
    for folder in CITING:
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:   # an image or a binary plist
                continue
            missing += [f"{path.relative_to(ROOT)}:{n}: {cited}" for n, line in enumerate(text.splitlines(), 1)
                        for cited in CITED.findall(line) if not (ROOT / cited).exists()]
    assert not missing, "docs/ paths cited that do not exist:\n" + "\n".join(missing)
