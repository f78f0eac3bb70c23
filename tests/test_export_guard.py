"""The export's formula guard (files/export.py) changes what it must and nothing else: no two columns
end up under one name, and JSON keeps every cell as read."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from triage_app.files.export import export
from triage_app.files.reader import read_tickets


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_guarded_column_name_never_takes_another_columns_name(tmp_path, fmt):
    frame = pd.DataFrame({"=x": ["a"], "'=x": ["b"], "'=x_2": ["c"], "subject": ["-Assistance Needed"]}, dtype=object)
    back = read_tickets(export(frame, tmp_path / f"r.{fmt}")).frame
    assert back.columns.tolist() == ["'=x_3", "'=x", "'=x_2", "subject"]
    assert back.iloc[0].tolist() == ["a", "b", "c", "'-Assistance Needed"]   # the guard, as docs say


def test_the_guard_leaves_a_plain_header_alone_and_json_untouched(tmp_path):
    frame = pd.DataFrame({"id": ["-17"], " text ": ["=1+2"]}, dtype=object)
    with open(export(frame, tmp_path / "r.csv"), encoding="utf-8", newline="") as f:
        assert list(csv.reader(f)) == [["id", " text "], ["'-17", "'=1+2"]]
    assert json.loads(export(frame, tmp_path / "r.json").read_text()) == [{"id": "-17", " text ": "=1+2"}]
