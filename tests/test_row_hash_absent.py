"""Which ticket a label names does not depend on other rows (a hunt's findings): a JSON key or a sheet's stray
cell that only some rows have is not in the hash of the rows without it, so a label given on the whole file is
its row's when classify reads the first rows only (--limit), and when a record with a new key is appended.
Labels stored under the hash earlier versions gave such a row are found where the whole file is read (the
window, classify without --limit), and kept under the new one."""

from __future__ import annotations

import json
from argparse import Namespace

import openpyxl
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from triage_app.cli.classify import person_labels
from triage_app.engine.axes import PLAIN, Axis
from triage_app.engine.labels import LabelSet
from triage_app.files.reader import read_tickets
from triage_app.files.store import ResultStore
from triage_app.files.table import Absent
from triage_app.files.ticket_keys import _digest, file_key, row_hashes

AXIS = Axis(PLAIN, LabelSet.from_names(["billing", "technical", "account"]))
RECORDS = [{"id": "101", "text": "my card was charged twice"}, {"id": "102", "text": "the app crashes on login"},
           {"id": "103", "text": "reset my password", "tags": "vip"}]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def labels_read(store, path, limit=None):
    table = read_tickets(path, limit=limit)
    texts = table.frame["text"].tolist()
    return person_labels(store, Namespace(input=str(path), limit=limit), table, texts, AXIS)[0]


records = st.lists(st.dictionaries(st.sampled_from(["id", "text", "tags", "channel", "team"]),
                                   st.text(alphabet="ab ", max_size=3), min_size=1), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(records, st.integers(1, 6))
def test_a_rows_hash_is_the_same_whatever_rows_are_read(tmp_path_factory, items, limit):
    path = write_jsonl(tmp_path_factory.mktemp("j") / "t.jsonl", items)
    whole = row_hashes(read_tickets(path).frame)
    first = row_hashes(read_tickets(path, limit=limit).frame)
    assert first == whole[:limit]
    appended = write_jsonl(path.with_name("more.jsonl"), [*items, {"late": "x", **items[0]}])
    assert row_hashes(read_tickets(appended).frame)[:len(items)] == whole


def test_a_label_on_a_jsonl_file_is_its_rows_with_limit_and_after_a_record_with_a_new_key(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", RECORDS)
    hashes = row_hashes(read_tickets(path).frame)
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path), {0: (hashes[0], "account")})
        assert labels_read(store, path, limit=2) == {0: "account"}
        write_jsonl(path, [*RECORDS, {"id": "104", "text": "refund please", "channel": "email"}])
        placed = store.person_labels(file_key(path), row_hashes(read_tickets(path).frame))
        assert placed.labels == {0: "account"} and placed.not_found == 0


def test_a_stray_cell_right_of_a_sheets_header_changes_no_other_rows_hash(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    for row in [["id", "text"], ["1", "charged twice"], ["2", "app crashes"], ["3", "reset password", "", "x"]]:
        sheet.append(row)
    book.save(tmp_path / "t.xlsx")
    whole, first = read_tickets(tmp_path / "t.xlsx"), read_tickets(tmp_path / "t.xlsx", limit=2)
    assert len(whole.columns) == 4 and first.columns == ["id", "text"]
    assert row_hashes(first.frame) == row_hashes(whole.frame)[:2]
    assert isinstance(whole.frame.iloc[0, 3], Absent) and whole.frame.iloc[2, 3] == "x"
    assert whole.frame.iloc[0, 3] == "" and whole.frame.iloc[2, 2] == ""     # shown empty; "" inside is a cell


def test_a_label_under_the_hash_earlier_versions_gave_the_row_is_found_and_stored_under_the_new(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", RECORDS)
    frame = read_tickets(path).frame
    earlier = [_digest(["" if isinstance(c, Absent) else c for c in cells])
               for cells in frame.itertuples(index=False, name=None)]        # every cell hashed, absent as empty
    hashes = row_hashes(frame)
    assert hashes[0] != earlier[0] and hashes[2] == earlier[2]               # row 2 has every key
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path), {0: (earlier[0], "account"), 1: (earlier[1], "billing")})
        placed = store.person_labels(file_key(path), hashes)
        assert placed.labels == {0: "account", 1: "billing"} and placed.not_found == 0
        assert store.stored_person_labels(file_key(path)) == [(0, hashes[0], "account"), (1, hashes[1], "billing")]
        # kept under the hash now: the first rows alone (which no longer show the key they lack) find them too
        assert labels_read(store, path, limit=2) == {0: "account", 1: "billing"}


def three_tickets(tmp_path):
    """A CSV of three tickets: its path, its frame and its rows' hashes."""
    path = tmp_path / "t.csv"
    frame = pd.DataFrame({"id": ["101", "102", "103"], "text": ["charged twice", "app crashes", "reset password"]})
    frame.to_csv(path, index=False)
    return path, frame, row_hashes(read_tickets(path).frame)


def test_with_limit_a_ticket_that_moved_within_the_rows_read_keeps_its_label(tmp_path):
    path, frame, hashes = three_tickets(tmp_path)
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path), {0: (hashes[0], "account"), 2: (hashes[2], "technical")})
        pd.concat([pd.DataFrame({"id": ["100"], "text": ["new at the top"]}), frame]).to_csv(path, index=False)
        assert labels_read(store, path, limit=3) == {1: "account"}     # 103 moved past the rows read: not said
        assert store.stored_person_labels(file_key(path)) == [(0, hashes[0], "account"), (2, hashes[2], "technical")]


def test_with_limit_a_label_is_not_moved_where_the_rows_not_read_might_hold_its_ticket_nearer(tmp_path):
    # a review's finding: its ticket moved past the rows read, and a ticket with the same cells inside them took
    # the label; the whole file might place it on the ticket past them
    path, frame, hashes = three_tickets(tmp_path)
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path), {2: (hashes[2], "account")})
        twin = pd.DataFrame({"id": ["103"], "text": ["reset password"]})     # the same cells as row 2's
        pd.concat([twin, frame]).to_csv(path, index=False)                    # row 2's ticket now at 3
        assert labels_read(store, path, limit=3) == {}                         # not on the twin at 0
        assert labels_read(store, path) == {3: "account"}                      # the whole file: the nearer, at 3
