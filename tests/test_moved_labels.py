"""A person's labels follow their file when it moved (another folder, another name) or when a workbook's sheet
was renamed, as a helpdesk names each day's export (a hunt's findings: the same tickets opened with no labels
and nothing said where they were). Only a file that is gone gives its labels, and only to a file that holds
at least half of their tickets; it is said, on the command line and in the window."""

from __future__ import annotations

import openpyxl
import pandas as pd

from triage_app.cli import learning
from triage_app.files.opening import open_tickets
from triage_app.files.store import ResultStore
from triage_app.files.ticket_keys import file_key, row_hashes, ticket_row_hashes
from triage_app.review.person_labels import PersonLabels
from ui_helpers import make_window, open_file, settings_file, write_slice  # noqa: F401

TICKETS = pd.DataFrame({"id": ["101", "102", "103", "104"],
                        "text": ["my card was charged twice", "the app crashes on login", "reset my password",
                                 "where is my refund"]})


def give(store, path, labels: dict[int, str]) -> None:
    opened = open_tickets(path)
    person = PersonLabels(file_key(path, opened.table.sheet), ticket_row_hashes(opened.table))
    for row, label in labels.items():
        store.set_person_labels(person.file, person.give(row, label))


def read(store, path):
    """The labels the command line reads for the file as it is now, and its notes."""
    opened = open_tickets(path)
    learning.follow_moved(store, str(path), opened.table, ticket_row_hashes(opened.table))
    key = file_key(path, opened.table.sheet)
    return store.person_labels(key, ticket_row_hashes(opened.table)).labels


def test_a_file_moved_to_another_folder_keeps_its_labels_and_its_fields_renames(tmp_path, capsys):
    first, moved = tmp_path / "Downloads" / "export.csv", tmp_path / "Archive" / "queue-monday.csv"
    first.parent.mkdir()
    moved.parent.mkdir()
    TICKETS.to_csv(first, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, first, {0: "billing", 2: "account"})
        store.rename_axis(file_key(first), "label", "queue")
        first.rename(moved)
        assert read(store, moved) == {} and "queue" in store.person_label_axes(file_key(moved))
        assert store.person_labels(file_key(moved), row_hashes(open_tickets(moved).table.frame),
                                   axis="queue").labels == {0: "billing", 2: "account"}
        assert store.field_now(file_key(moved), "label") == "queue"
    assert f"which is no longer there, are this file's now" in capsys.readouterr().err


def test_a_copy_of_a_file_still_there_is_another_file(tmp_path):
    first, copy = tmp_path / "export.csv", tmp_path / "copy.csv"
    TICKETS.to_csv(first, index=False)
    TICKETS.to_csv(copy, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, first, {0: "billing"})
        assert read(store, copy) == {} and read(store, first) == {0: "billing"}


def test_a_gone_file_gives_its_labels_only_to_a_file_holding_half_of_their_tickets(tmp_path):
    gone, other = tmp_path / "gone.csv", tmp_path / "other.csv"
    TICKETS.to_csv(gone, index=False)
    TICKETS[2:].to_csv(other, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, gone, {0: "billing", 1: "technical", 2: "account"})
        gone.unlink()
        assert read(store, other) == {}         # one of three
        TICKETS[1:].to_csv(other, index=False)
        assert read(store, other) == {0: "technical", 1: "account"}


def workbook(path, sheet: str) -> None:
    book = openpyxl.Workbook()
    book.active.title = sheet
    book.active.append(list(TICKETS.columns))
    for row in TICKETS.itertuples(index=False):
        book.active.append(list(row))
    book.save(path)


def test_a_workbook_whose_sheet_was_renamed_keeps_its_labels(tmp_path):
    path = tmp_path / "queue.xlsx"
    workbook(path, "Export 2026-05-04")
    with ResultStore(tmp_path / "r.db") as store:
        give(store, path, {1: "technical"})
        workbook(path, "Export 2026-05-05")      # the next day's export, saved over the last
        assert read(store, path) == {1: "technical"}


def test_the_window_says_the_labels_of_a_moved_file_followed_it(qtbot, make_window, tmp_path):
    path = write_slice(tmp_path, 6, name="t.csv")
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    window.model.set_person_label(1, "billing")
    window.db.flush()
    window.shutdown()
    moved = path.rename(tmp_path / "kept.csv")
    window = make_window(autoload=False)
    open_file(qtbot, window, moved)
    qtbot.wait(50)
    assert window.model.person_labels == {1: "billing"}
    assert window.statusBar().currentMessage() == f"The labels you gave {path.resolve()}, which is no longer " \
                                                  "there, are this file's now: it holds their tickets."


def test_a_file_whose_folder_is_away_is_not_gone_and_a_sheet_named_with_a_hash_is_found(tmp_path):
    # a review's findings: a share or a drive away for now made its files "gone", and a copy took their labels
    # for good; a sheet named "Week #1" was split at its "#" and always read as gone
    share, copy = tmp_path / "share" / "q.csv", tmp_path / "Downloads" / "q.csv"
    for path in (share, copy):
        path.parent.mkdir()
        TICKETS.to_csv(path, index=False)
    book = tmp_path / "book.xlsx"
    workbook(book, "Week #1")
    with ResultStore(tmp_path / "r.db") as store:
        give(store, share, {0: "billing"})
        give(store, book, {1: "technical"})
        share.parent.rename(tmp_path / "away")               # the share unmounted
        assert read(store, copy) == {}
        (tmp_path / "away").rename(share.parent)
        assert read(store, share) == {0: "billing"}
    from triage_app.files.moved_labels import gone
    assert not gone(file_key(book, "Week #1")) and gone(file_key(book, "Week #2"))


def test_the_days_export_under_a_new_name_with_its_statuses_changed_keeps_the_labels(tmp_path):
    # a hunt's finding: each rule worked alone (a file renamed; a ticket whose other cells changed), not the two
    # together, which is the daily export: every label was lost and --updates sent the model's answers
    monday, tuesday = tmp_path / "monday.csv", tmp_path / "tuesday.csv"
    TICKETS.assign(status="open").to_csv(monday, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, monday, {0: "billing", 2: "account"})
        TICKETS.assign(status="pending", updated_at="2026-12-08").to_csv(tuesday, index=False)
        monday.unlink()
        assert read(store, tuesday) == {0: "billing", 2: "account"}


def test_labels_without_their_ticket_never_count_as_held_by_a_file_without_ids(tmp_path):
    # the final read's finding: a label stored before tickets were kept (None) matched a row with no id (None)
    gone, other = tmp_path / "gone.csv", tmp_path / "other.csv"
    TICKETS.to_csv(gone, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        hashes = row_hashes(open_tickets(gone).table.frame)         # as stored before: no ticket
        store.set_person_labels(file_key(gone), {0: (hashes[0], "billing"), 1: (hashes[1], "technical")})
        give(store, gone, {2: "account"})                            # one with its ticket
        gone.unlink()
        pd.DataFrame({"id": ["", "", "103"], "text": ["something else", "and more", TICKETS.text[2]]}).to_csv(
            other, index=False)
        assert read(store, other) == {}                              # one of three held: not half
