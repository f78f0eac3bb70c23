"""A file that is not what its name says is named for what it is, with what to do, in one line."""

from __future__ import annotations

import zipfile

import openpyxl
import pytest

from triage_app.files.reader import BadInput, read_tickets

OLD_EXCEL = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096)   # the compound-file header Excel 97-2003 writes
OLD_OR_LOCKED = "an old Excel .xls or a password-protected workbook: save it as .xlsx or CSV without a password"


def refusal(path) -> str:
    with pytest.raises(BadInput) as refused:
        read_tickets(path)
    return str(refused.value)


def test_a_workbook_named_csv_is_named_a_workbook(tmp_path):
    book = openpyxl.Workbook()
    book.active.append(["id", "text"])
    book.active.append([1, "hello"])
    book.save(tmp_path / "t.csv")
    assert refusal(tmp_path / "t.csv") == "t.csv: an Excel workbook named .csv: rename it .xlsx"


@pytest.mark.parametrize("name", ["t.xls", "t.xlsx", "t.csv"])
def test_an_old_excel_file_or_a_password_protected_workbook_is_named(tmp_path, name):
    (tmp_path / name).write_bytes(OLD_EXCEL)
    assert refusal(tmp_path / name) == f"{name}: {OLD_OR_LOCKED}"


@pytest.mark.parametrize("start", ["<html><body>", "\ufeff<!DOCTYPE html>\n<html>", "  <table>"])
def test_an_html_page_saved_as_xls_is_named_a_web_page(tmp_path, start):
    rows = "".join(f"<tr><td>{k}</td><td>ticket {k}</td></tr>\n" for k in range(3))
    (tmp_path / "t.xls").write_text(f"{start}\n<table>\n{rows}</table></body></html>\n", encoding="utf-8")
    assert refusal(tmp_path / "t.xls") == "t.xls: an HTML page, not a table file: save it as CSV or .xlsx"


def test_a_zip_that_is_no_workbook_is_named_an_archive(tmp_path):
    with zipfile.ZipFile(tmp_path / "t.csv", "w") as archive:
        archive.writestr("tickets.csv", "id,text\n1,hello\n")
    assert refusal(tmp_path / "t.csv") == ("t.csv: a zip archive, not a table of tickets: save the tickets as CSV "
                                           "or .xlsx")


def test_a_table_that_mentions_html_is_still_read(tmp_path):
    (tmp_path / "t.csv").write_text("id,text\n1,<html> in my signature breaks the app\n", encoding="utf-8")
    assert read_tickets(tmp_path / "t.csv").frame["text"].tolist() == ["<html> in my signature breaks the app"]
