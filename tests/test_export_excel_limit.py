"""An Excel cell holds 32,767 characters: a longer text is cut in an XLSX export, and the export says
which rows (openpyxl alone cuts it without a word); CSV and JSON keep it whole."""

from __future__ import annotations

import csv

import openpyxl
import pandas as pd
import pytest

from triage_app.files.export import EXCEL_MAX_CHARS, export
from ui_helpers import make_window, open_file, settings_file  # noqa: F401

LONG = "x" * (EXCEL_MAX_CHARS + 100)


def cells(path, column: int) -> list[str]:
    book = openpyxl.load_workbook(path, read_only=True)
    try:
        return [row[column] for row in book.active.iter_rows(min_row=2, values_only=True)]
    finally:
        book.close()


def test_an_xlsx_export_says_which_rows_it_cut_to_an_excel_cell(tmp_path):
    frame = pd.DataFrame({"id": ["1", "2", "3", "4"],
                          "text": ["short", LONG, "y" * EXCEL_MAX_CHARS, "z" + LONG]}, dtype=object)
    notes = []
    export(frame, tmp_path / "r.xlsx", notes=notes)
    back = cells(tmp_path / "r.xlsx", 1)
    assert back == ["short", LONG[:EXCEL_MAX_CHARS], "y" * EXCEL_MAX_CHARS, ("z" + LONG)[:EXCEL_MAX_CHARS]]
    assert len(notes) == 1 and "\n" not in notes[0]
    # sheet rows as Excel numbers them, the header being row 1; a cell of exactly the limit is whole
    assert "2 cell(s)" in notes[0] and "rows 3, 5" in notes[0] and "text" in notes[0] and "r.xlsx" in notes[0]


def test_excel_counts_an_emoji_as_two_characters_and_the_cut_never_splits_one(tmp_path):
    emoji = "\U0001F600" * (EXCEL_MAX_CHARS // 2 + 1)     # fewer code points than the limit, more UTF-16 units
    notes = []
    export(pd.DataFrame({"text": [emoji]}, dtype=object), tmp_path / "r.xlsx", notes=notes)
    assert cells(tmp_path / "r.xlsx", 0) == ["\U0001F600" * (EXCEL_MAX_CHARS // 2)] and len(notes) == 1


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_keep_a_long_cell_whole_and_say_nothing(tmp_path, fmt):
    notes = []
    path = export(pd.DataFrame({"text": [LONG]}, dtype=object), tmp_path / f"r.{fmt}", notes=notes)
    assert LONG in path.read_text(encoding="utf-8") and notes == []


def test_the_windows_xlsx_export_says_it_cut_a_cell(qtbot, make_window, tmp_path):
    path = tmp_path / "t.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["id", "text"], ["1", "where is my parcel"], ["2", "refund " + LONG]])
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    messages = []
    window.exporting.message.connect(lambda text, ms: messages.append(text))
    assert window.export_to(tmp_path / "out.xlsx") == tmp_path / "out.xlsx"
    assert "Exported 2 rows" in messages[-1] and "1 cell(s)" in messages[-1] and "row 3" in messages[-1]
    assert window.export_to(tmp_path / "out.csv") == tmp_path / "out.csv"
    assert "cell(s)" not in messages[-1]
