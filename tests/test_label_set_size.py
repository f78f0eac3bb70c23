"""A ticket file named as the label set is refused by its size before a byte of it is read or parsed
(issue 32's hunt: a 120 MB JSON took 13 s and 824 MB before "not a label set")."""

from __future__ import annotations

import pytest
from cli_helpers import run_main, write_rows

from triage_app.engine.axes import Axes
from triage_app.engine.labels import MAX_LABEL_SET_BYTES, BadLabelSet, LabelSet


def big_file(path, size):
    with open(path, "wb") as f:      # sparse: the size is what is checked, no disk is spent
        f.truncate(size)
    return path


@pytest.mark.parametrize("load", [LabelSet.load, Axes.load])
def test_a_file_bigger_than_any_label_set_is_refused_naming_it(tmp_path, load, monkeypatch):
    path = big_file(tmp_path / "tickets.json", MAX_LABEL_SET_BYTES + 1)
    monkeypatch.setattr("pathlib.Path.read_bytes", lambda self: pytest.fail("the file was read"))
    with pytest.raises(BadLabelSet, match=r"tickets\.json: .*too big for a label set"):
        load(path)


def test_a_label_set_at_the_limit_is_read(tmp_path):
    path = tmp_path / "labels.json"
    path.write_text('{"labels": ["billing", "technical"]}' + " " * (MAX_LABEL_SET_BYTES - 36))
    assert path.stat().st_size == MAX_LABEL_SET_BYTES
    assert LabelSet.load(path).names == ["billing", "technical"]


def test_the_command_line_says_it_in_one_line_before_the_model_loads(tmp_path, capsys):
    tickets = write_rows(tmp_path / "t.csv", [{"text": "my card never came"}])
    labels = big_file(tmp_path / "big.json", 120 << 20)
    code, _, err = run_main(capsys, "classify", tickets, "--labels-file", labels, "-o", tmp_path / "out.csv",
                              "--model", tmp_path / "none")
    assert code == 2
    assert len(err) == 1 and "big.json" in err[0] and "too big for a label set" in err[0]
