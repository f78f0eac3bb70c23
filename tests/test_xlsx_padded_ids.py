"""An id a sheet shows zero-padded (the number 7 in the format "000": 007) reaches the table, the export
and the helpdesk as the sheet shows it, and a row keeps the key it had when it was read as 7, so a
person's labels stay on it (issue 32 item 5)."""

from __future__ import annotations

import openpyxl

from triage_app.files.reader import read_tickets
from triage_app.files.ticket_keys import row_hashes

IDS = [7, -7, 12345, 7.0, 42, True]


def _sheet(path, formats):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "text"])
    for k, (value, number_format) in enumerate(zip(IDS, formats), start=2):
        sheet.append([value, f"ticket {k}"])
        sheet.cell(k, 1).number_format = number_format
    book.save(path)
    return path


def test_zero_padded_ids_read_as_the_sheet_shows_them_and_keep_their_rows_keys(tmp_path):
    padded = read_tickets(_sheet(tmp_path / "padded.xlsx", ["000", "000", "0000", "00000", "General", "000"]))
    plain = read_tickets(_sheet(tmp_path / "plain.xlsx", ["General"] * len(IDS)))

    assert padded.frame["id"].tolist() == ["007", "-007", "12345", "00007", "42", "True"]
    assert plain.frame["id"].tolist() == ["7", "-7", "12345", "7", "42", "True"]
    assert row_hashes(padded.frame) == row_hashes(plain.frame)


def test_a_format_of_sections_pads_as_the_section_the_sheet_shows(tmp_path):
    # positive;negative sections, and "_)": a space as wide as ")" (an accountant's alignment), not a digit
    formats = ["000_);(000)", "00000;-00000", "0000;-0000;0", "00000;-00000", "General", "000"]
    sectioned = read_tickets(_sheet(tmp_path / "sectioned.xlsx", formats))
    plain = read_tickets(_sheet(tmp_path / "plain.xlsx", ["General"] * len(IDS)))

    assert sectioned.frame["id"].tolist() == ["007", "-00007", "12345", "00007", "42", "True"]
    assert row_hashes(sectioned.frame) == row_hashes(plain.frame)
