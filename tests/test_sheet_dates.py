"""A workbook's date cell and a JSON number read as the file spells them (issue 32 item 5), and a row's
hash still reads it as Triage read it before, so a person's labels stored then stay on their rows."""

from __future__ import annotations

import pickle
from datetime import datetime

import openpyxl

from triage_app.files.reader import read_tickets
from triage_app.files.store import ResultStore
from triage_app.files.ticket_keys import file_key, row_hash, row_hashes


def workbook(path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "text"])
    sheet.append([datetime(2026, 1, 2), "my card has not come"])
    sheet.append([datetime(2026, 1, 3, 10, 30), "refund please"])
    book.save(path)
    return path


def test_a_date_reads_as_shown_and_hashes_as_before(tmp_path):
    table = read_tickets(workbook(tmp_path / "t.xlsx"))
    assert table.frame["id"].tolist() == ["2026-01-02", "2026-01-03 10:30:00"]
    before = [row_hash(["2026-01-02 00:00:00", "my card has not come"]),
              row_hash(["2026-01-03 10:30:00", "refund please"])]
    assert row_hashes(table.frame) == before
    assert row_hashes(pickle.loads(pickle.dumps(table.frame))) == before   # a copy sent to a worker too


def test_a_label_stored_before_the_change_is_found_on_its_row(tmp_path):
    path = workbook(tmp_path / "t.xlsx")
    with ResultStore(tmp_path / "r.db") as store:   # as the window stored it when the date read with its time
        store.set_person_labels(file_key(path), {0: (row_hash(["2026-01-02 00:00:00", "my card has not come"]),
                                                     "card")})
        table = read_tickets(path)
        found = store.person_labels(file_key(path), row_hashes(table.frame), table.frame["text"].tolist())
    assert found.labels == {0: "card"} and not found.not_found


def test_a_json_number_reads_as_spelled_and_hashes_as_before(tmp_path):
    """JSON numbers keep the file's spelling (12.50, 1e5: issue 32 item 5); a label stored when they read
    as json's own float (12.5, 100000.0) stays on its row."""
    import json

    path = tmp_path / "t.json"
    path.write_text('[{"id": 1e5, "amount": 12.50, "tags": [1.0, "a"], "text": "my card has not come"},'
                    ' {"id": 7, "amount": 3, "tags": [], "text": "refund please"}]', encoding="utf-8")
    table = read_tickets(path)
    assert table.frame.iloc[0].tolist() == ["1e5", "12.50", '[1.0, "a"]', "my card has not come"]
    before = [row_hash(["100000.0", "12.5", json.dumps([1.0, "a"]), "my card has not come"]),
              row_hash(["7", "3", "[]", "refund please"])]
    assert row_hashes(table.frame) == before
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path), {0: (before[0], "card")})
        found = store.person_labels(file_key(path), row_hashes(table.frame), table.frame["text"].tolist())
    assert found.labels == {0: "card"} and not found.not_found
