"""A label-set file is checked in one place (engine/labels.py): what cannot be used is refused in one
line naming the file and the field; nothing in it is quietly dropped or read as something else."""

from __future__ import annotations

import json

import pytest

from triage_app.engine.axes import Axes
from triage_app.engine.labels import BadLabelSet, Example, Label, LabelSet


def refusal(path, content) -> str:
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    with pytest.raises(BadLabelSet) as error:
        Axes.load(path)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    return message.removeprefix(f"{path}: ")


@pytest.mark.parametrize("content, said", [
    ({"labels": [{"name": 5}, "b"]}, "label 1: name: must be text, not the number 5"),
    ({"labels": ["a", {"name": "b", "alias": 7}]}, "label 2: alias: must be text, not the number 7"),
    ({"labels": "ab"}, "labels: must be a list, not the text 'ab'"),
    ({"labels": {"a": 1, "b": 2}}, "labels: must be a list, not an object"),
    ({"labels": [{"name": "a", "description": ["x"]}, "b"]}, "label 1: description: must be text, not a list"),
    ({"labels": ["a", "b"], "examples": [{"text": 3, "label": "a"}]}, "example 1: text: must be text, not the number 3"),
    ({"labels": ["a", "b"], "examples": [{"text": None, "label": "a"}]}, "example 1: text: must be text, not null"),
    ({"labels": ["a", "b"], "examples": [{"text": "x\ud800", "label": "a"}]}, "example 1: text: holds '\\ud800'"),
    ({"labels": ["a\udfff", "b"]}, "label 1: name: holds '\\udfff'"),
    ({"labels": ["two\nlines", "b"]}, "label 1: the name of 'two\\nlines' must be one line"),
    ({"labels": [{"name": "a", "descripton": "x"}, "b"]}, "label 1: unknown key 'descripton' (it takes name, "
                                                          "description, alias)"),
    ({"labels": ["a", "b"], "notes": "x"}, "unknown key 'notes' (it takes labels, examples)"),
    ({"axes": [{"name": "queue", "labels": ["a", "b"], "colour": 1}]}, "axis 1: unknown key 'colour'"),
    ({"axes": [{"name": 5, "labels": ["a", "b"]}]}, "axis 1: axis name 5: use a letter"),
    ({"axes": [{"name": "queue", "labels": ["a", {"name": None}]}]}, "axis 'queue': label 2: name: must be text, "
                                                                     "not null"),
    (b'{"labels": ["a", "b"], "labels": ["c", "d"]}', "the key 'labels' is given twice in one object"),
    (b'{"labels": ["a", "b\xff"]}', "not UTF-8 text (byte 20 is 0xff); save it as UTF-8"),
    (b"[" * 100_000, "not valid JSON (nested too deeply)"),
    (b'{"labels": [' + b"1" * 5000 + b"]}", "Exceeds the limit"),
])
def test_a_file_that_cannot_be_used_is_one_line_naming_the_file_and_the_field(tmp_path, content, said):
    assert refusal(tmp_path / "labels.json", content).startswith(said)


def test_a_file_saved_with_a_byte_order_mark_reads_as_without(tmp_path):
    """Notepad's UTF-8 begins with one."""
    label_set = LabelSet((Label("Überweisung", "Geld zurück"), Label("返金")), (Example("Où est mon colis ?", "返金"),))
    label_set.save(tmp_path / "plain.json")
    (tmp_path / "notepad.json").write_bytes(b"\xef\xbb\xbf" + (tmp_path / "plain.json").read_bytes())
    assert LabelSet.load(tmp_path / "notepad.json") == label_set
    assert Axes.load(tmp_path / "notepad.json") == Axes.of(label_set)


def test_label_set_load_refuses_as_axes_load_does(tmp_path):
    (tmp_path / "l.json").write_text(json.dumps({"labels": [{"name": 5}, "b"]}))
    with pytest.raises(BadLabelSet, match=r"l\.json: label 1: name: must be text, not the number 5$"):
        LabelSet.load(tmp_path / "l.json")


@pytest.mark.parametrize("build, said", [
    (lambda: Label(5), "name: must be text, not the number 5"),
    (lambda: Label("a", None), "description: must be text, not null"),
    (lambda: Example("\ud800", "a"), "text: holds '\\ud800'"),
    (lambda: Label("a\u2028b"), "must be one line"),
])
def test_a_label_or_example_checks_its_own_fields(build, said):
    with pytest.raises(ValueError, match=said.replace("\\", "\\\\")):
        build()
