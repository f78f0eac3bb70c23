"""A person's label follows its ticket (its id and its text) when the helpdesk's next export changed the ticket's
other cells: its status, the queue Triage sent it back, a column added (a hunt's findings: the label was counted
as "no longer in this file" though its ticket was there under the same id, and --updates sent the model's
contrary answer to the helpdesk). An edited text is another ticket's, and a file without ids is as before."""

from __future__ import annotations

from argparse import Namespace

import pandas as pd

from triage_app.cli.classify import person_labels
from triage_app.engine.axes import PLAIN, Axis
from triage_app.engine.labels import LabelSet
from triage_app.files.opening import open_tickets
from triage_app.files.store import ResultStore
from triage_app.files.ticket_keys import file_key, row_hashes, ticket_row_hashes
from triage_app.review.person_labels import PersonLabels

AXIS = Axis(PLAIN, LabelSet.from_names(["billing", "technical", "account"]))
MONDAY = pd.DataFrame({"id": ["101", "102", "103"], "status": ["open"] * 3, "queue": [""] * 3,
                       "text": ["my card was charged twice", "the app crashes on login", "reset my password"]})


def tuesday(monday: pd.DataFrame) -> pd.DataFrame:
    """The helpdesk's next export: the labels Triage sent applied, statuses moved on, a column and a ticket added."""
    after = monday.assign(status="pending", queue=["billing", "", "account"], updated_at="2026-12-01")
    top = pd.DataFrame({"id": ["100"], "status": ["new"], "queue": [""], "text": ["refund please"],
                        "updated_at": ["2026-12-01"]})
    return pd.concat([top, after])


def window(path):
    """The file as the window reads it: its key, and a person's labels over its rows (ui/background/file_reading)."""
    opened = open_tickets(path)
    return PersonLabels(file_key(path), ticket_row_hashes(opened.table))


def give(store, path, labels: dict[int, str]) -> None:
    person = window(path)
    for row, label in labels.items():
        store.set_person_labels(person.file, person.give(row, label))


def window_reads(store, path):
    opened = open_tickets(path)
    return store.person_labels(file_key(path), ticket_row_hashes(opened.table), opened.texts)


def command_reads(store, path, limit=None) -> dict[int, str]:
    opened = open_tickets(path, guess=False, limit=limit)
    return person_labels(store, Namespace(input=str(path), limit=limit), opened.table, opened.texts, AXIS)[0]


def test_a_label_follows_its_ticket_when_the_helpdesk_changed_its_other_cells(tmp_path):
    path = tmp_path / "queue.csv"
    MONDAY.to_csv(path, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, path, {0: "billing", 2: "technical"})      # 103: the person's answer, not the helpdesk's
        tuesday(MONDAY).to_csv(path, index=False)
        assert command_reads(store, path) == {1: "billing", 3: "technical"}
        read = window_reads(store, path)
        assert read.labels == {1: "billing", 3: "technical"} and read.not_found == 0
        assert command_reads(store, path, limit=2) == {1: "billing"}


def test_an_edited_text_or_a_file_without_ids_loses_the_label_as_before(tmp_path):
    path, plain = tmp_path / "queue.csv", tmp_path / "no_ids.csv"
    MONDAY.to_csv(path, index=False)
    MONDAY.drop(columns="id").to_csv(plain, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, path, {0: "billing", 1: "technical"})
        give(store, plain, {0: "billing"})
        MONDAY.assign(text=["my card was charged twice!!", *MONDAY.text[1:]]).to_csv(path, index=False)
        MONDAY.drop(columns="id").assign(status="pending").to_csv(plain, index=False)
        read = window_reads(store, path)
        assert read.labels == {1: "technical"} and read.not_found == 1
        read = window_reads(store, plain)
        assert read.labels == {} and read.not_found == 1


def test_a_label_given_before_tickets_were_kept_gets_its_ticket_when_its_row_is_read(tmp_path):
    path = tmp_path / "queue.csv"
    MONDAY.to_csv(path, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        hashes = list(row_hashes(open_tickets(path).table.frame))     # as stored before: the cells' hash alone
        store.set_person_labels(file_key(path), {0: (hashes[0], "billing")})
        assert window_reads(store, path).labels == {0: "billing"}
        tuesday(MONDAY).to_csv(path, index=False)
        assert window_reads(store, path).labels == {1: "billing"}


def test_with_limit_a_label_whose_ticket_moved_up_into_the_rows_read_is_found(tmp_path):
    path = tmp_path / "queue.csv"
    MONDAY.to_csv(path, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, path, {2: "account"})
        MONDAY[2:].to_csv(path, index=False)                # 101 and 102 closed: 103 is the first row now
        assert command_reads(store, path, limit=1) == {0: "account"}
        assert window_reads(store, path).labels == {0: "account"}


def test_the_command_line_keys_a_ticket_by_the_files_own_text_whatever_column_it_reads(tmp_path):
    # a review's finding: --with-subject (or --text-column) keyed tickets by the text it read, so its labels were
    # not found where the window's were, and a label it read first got a key the window never matches
    path = tmp_path / "queue.csv"
    subjects = MONDAY.assign(subject=["Charged twice", "Crash", "Password"])
    subjects.to_csv(path, index=False)
    with ResultStore(tmp_path / "r.db") as store:
        give(store, path, {0: "billing", 2: "account"})
        subjects.assign(status="pending").to_csv(path, index=False)
        opened = open_tickets(path, guess=False)
        joined = opened.table.texts(opened.text_column, "subject")
        assert person_labels(store, Namespace(input=str(path), limit=None), opened.table, joined, AXIS)[0] == \
            {0: "billing", 2: "account"}
        assert window_reads(store, path).labels == {0: "billing", 2: "account"}
