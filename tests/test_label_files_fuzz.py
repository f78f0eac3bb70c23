"""Generated label-set files, valid and broken: each one loads and runs, or is refused in one line naming
the file, wherever it is read: the command line, Labels ▸ Load…, and the set remembered at start-up.

Broken means wrong types, unknown keys, odd Unicode (lone surrogates among it), several axes, a
byte-order mark, bytes that are not UTF-8. What the engine reads (Axes.load) is the one judge: the
command line runs exactly the sets it reads, on the bundled SmolLM2 (its tokenizer takes every one of
them), and refuses the others with its line; the window's Load… and its settings do the same.
TRIAGE_FUZZ_EXAMPLES=N runs N random examples (the exploratory campaign); the default is a fixed, quick set.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from cli_helpers import run_main, write_rows
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QSettings

from triage_app.engine.axes import Axes
from triage_app.engine.labels import LabelSet
from triage_app.engine.prompt import PromptPrefix

EXAMPLES = int(os.environ.get("TRIAGE_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=EXAMPLES or 60, deadline=None, derandomize=not EXAMPLES, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

NAMES = st.sampled_from(["billing", "technical", "account", "Überweisung", "返金", "réclamation 😀", "a b"])
ODD = st.sampled_from(["\ud800", "x\udfffy", "two\nlines", " padded", "", "\x00", "\u202eright-to-left",
                       "zero\u200bwidth", "tab\there", "line\u2028sep", "e\u0301"])
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=8)   # surrogates too
WRONG = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.lists(NAMES, max_size=2),
                  st.dictionaries(NAMES, st.integers(), max_size=2))
TEXT = st.one_of(NAMES, NAMES, NAMES, ODD, ANY_TEXT, WRONG)
LABEL = st.one_of(TEXT, st.fixed_dictionaries({"name": TEXT}, optional={"description": TEXT, "alias": TEXT,
                                                                         "colour": TEXT}))
LABELS = st.one_of(st.lists(LABEL, min_size=2, max_size=4), st.lists(LABEL, max_size=1), WRONG, ANY_TEXT)
EXAMPLE = st.fixed_dictionaries({"text": TEXT, "label": TEXT}, optional={"why": TEXT})
EXAMPLES_ = st.one_of(st.lists(EXAMPLE, max_size=2), WRONG)
PLAIN = st.fixed_dictionaries({"labels": LABELS}, optional={"examples": EXAMPLES_, "notes": TEXT})
AXIS = st.fixed_dictionaries({"name": st.one_of(st.sampled_from(["queue", "priority", "my queue"]), TEXT),
                              "labels": LABELS},
                             optional={"examples": EXAMPLES_, "method": st.sampled_from(["direct", "channel", "nope"])})
SEVERAL = st.fixed_dictionaries({"axes": st.one_of(st.lists(AXIS, min_size=1, max_size=3), WRONG)},
                                optional={"labels": LABELS})
# valid, and as odd as valid goes: any character but half of one, names one line and trimmed
ONE_LINE = st.text(st.characters(exclude_categories=("Cs",)), max_size=16).filter(lambda t: t.splitlines() in ([], [t]))
VALID_NAME = ONE_LINE.filter(lambda t: t and t == t.strip())


@st.composite
def valid_sets(draw) -> dict:
    names = draw(st.lists(st.one_of(NAMES, VALID_NAME), min_size=2, max_size=4, unique_by=str.lower))
    labels = [draw(st.one_of(st.just(name), st.fixed_dictionaries({"name": st.just(name)},
                                                                  optional={"description": ONE_LINE})))
              for name in names]
    examples = draw(st.lists(st.fixed_dictionaries({"text": ONE_LINE, "label": st.sampled_from(names)}), max_size=2))
    return {"labels": labels, "examples": examples}


VALID = st.one_of(valid_sets(), st.lists(valid_sets(), min_size=1, max_size=2).map(
    lambda sets: {"axes": [{"name": f"field{k}", **s} for k, s in enumerate(sets)]}))
DOCUMENT = st.one_of(VALID, VALID, VALID, PLAIN, SEVERAL, WRONG)
# how the file is written: as we write it, with Notepad's BOM, raw Unicode (a lone surrogate's bytes
# are not UTF-8), UTF-16, or any bytes at all
TICKET = "I was charged twice for my plan"
FORM = st.sampled_from(["utf-8", "utf-8", "bom", "raw", "raw", "utf-16", "bytes"])


@st.composite
def label_files(draw) -> bytes:
    document, form = draw(DOCUMENT), draw(FORM)
    if form == "bytes":
        return draw(st.binary(max_size=40))
    if form == "raw":
        return json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")
    text = json.dumps(document)
    return {"utf-8": text.encode(), "bom": b"\xef\xbb\xbf" + text.encode(), "utf-16": text.encode("utf-16")}[form]


def read(path: Path) -> Axes | str:
    """What the engine makes of the file: its axes, or its one-line refusal."""
    try:
        axes = Axes.load(path)
    except (ValueError, OSError) as exc:
        event(f"refused: {str(exc).removeprefix(f'{path}: ').split(' (')[0].split(':')[0]}")
        return str(exc)
    event(f"loads: {len(axes)} field(s)")
    return axes


def refused_in_one_line(message: str, path: Path) -> bool:
    return "\n" not in message and str(path) in message


@FUZZ
@given(content=label_files())
def test_a_label_set_file_runs_on_the_command_line_or_is_one_line_naming_it(capsys, tiny_model, smollm2, content):
    with tempfile.TemporaryDirectory() as folder:
        path, out = Path(folder) / "labels.json", Path(folder) / "out.csv"
        path.write_bytes(content)
        tickets = write_rows(Path(folder) / "t.csv", [{"text": TICKET}])
        axes = read(path)
        code, _, err = run_main(capsys, "classify", tickets, "-o", out, "--labels-file", path, "--method", "direct",
                                "--db", Path(folder) / "r.db")
        if isinstance(axes, Axes):
            assert code == 0 and out.is_file(), err
            for axis in axes:   # and the bundled model's tokenizer reads its prompt: the model is not run
                assert PromptPrefix(smollm2.tokenizer, axis.label_set).encode([TICKET])
        else:
            assert refused_in_one_line(axes, path), axes
            assert code == 2 and err == [f"triage-app: {axes}"]


@FUZZ
@given(content=label_files())
def test_a_label_set_file_loads_in_the_window_or_is_one_line_naming_it(qtbot, content):
    from triage_app.ui.panels.label_editor import LabelsPanel

    panel = LabelsPanel()
    qtbot.addWidget(panel)
    said = []
    panel.message.connect(said.append)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.json"
        path.write_bytes(content)
        axes = read(path)
        loaded = panel.load(str(path))
    assert loaded == isinstance(axes, Axes)
    if loaded:
        assert panel.axes == axes
    else:
        assert said == [f"Cannot load labels: {axes}"] and refused_in_one_line(axes, path)


@FUZZ
@given(document=DOCUMENT)
def test_a_remembered_label_set_is_used_or_the_default_with_one_line_naming_the_settings_file(document):
    from triage_app.ui.settings import Remembered

    text = json.dumps(document)
    with tempfile.TemporaryDirectory() as folder:
        file = str(Path(folder) / "triage.ini")
        written = QSettings(file, QSettings.Format.IniFormat)
        written.setValue("label_set", text)
        written.sync()
        remembered = Remembered.load(QSettings(file, QSettings.Format.IniFormat))
        try:
            expected = Axes.from_dict(json.loads(text))
        except ValueError:
            expected = None
        if expected is not None:
            assert remembered.axes == expected and remembered.reverted == []
        else:
            assert remembered.axes == Axes.of(LabelSet.default())
            [line] = remembered.reverted
            assert refused_in_one_line(line, file) and "label_set" in line
            assert (Path(folder) / "label_set-unread.json").read_text(encoding="utf-8") == text
