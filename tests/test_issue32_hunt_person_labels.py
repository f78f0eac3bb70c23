"""Issue 32, the hunt: labels a person gave in the window that classify cannot use are said, never dropped
without a word: a label the label-set file no longer has (renamed or removed there), a ticket the file no
longer holds (edited or removed)."""

from __future__ import annotations

from cli_helpers import read_rows, run_main, write_rows

from triage_app.files.opening import open_tickets
from triage_app.files.store import ResultStore
from triage_app.files.ticket_keys import file_key, row_hashes

ROWS = [{"id": "1", "text": "I was charged twice"}, {"id": "2", "text": "The app crashes on start"},
        {"id": "3", "text": "Please reset my password"}]


def _labelled_in_the_window(tmp_path, labels: dict[int, str], gone: dict[int, str]):
    """The file, and a database where a person labelled its rows (labels) and rows since edited away (gone)."""
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    hashes = row_hashes(open_tickets(str(tickets), None, None, guess=False).table.frame)
    given = {row: (hashes[row], label) for row, label in labels.items()}
    given |= {row: (f"{row:032x}", label) for row, label in gone.items()}   # a ticket no longer in the file
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(tickets), given)
    return tickets


def test_labels_of_a_label_the_set_no_longer_has_are_said(tmp_path, capsys, tiny_model):
    tickets = _labelled_in_the_window(tmp_path, {0: "billing", 2: "account"}, {})
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "o.csv", "--labels", "payments,technical,account",
                            "--db", tmp_path / "r.db")
    assert code == 0, err
    said = [line for line in err if "not in this label set" in line]
    assert len(said) == 1 and "1 of your labels" in said[0] and "billing" in said[0]
    assert [r["person"] for r in read_rows(tmp_path / "o.csv")] == ["False", "False", "True"]


def test_labels_of_tickets_the_file_no_longer_holds_are_said(tmp_path, capsys, tiny_model):
    tickets = _labelled_in_the_window(tmp_path, {0: "billing"}, {5: "technical", 6: "billing"})
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "o.csv", "--labels", "billing,technical",
                            "--db", tmp_path / "r.db")
    assert code == 0, err
    said = [line for line in err if "no longer" in line]
    assert len(said) == 1 and "2 of your labels" in said[0]


def test_all_labels_in_use_say_nothing(tmp_path, capsys, tiny_model):
    tickets = _labelled_in_the_window(tmp_path, {0: "billing"}, {})
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "o.csv", "--labels", "billing,technical",
                            "--db", tmp_path / "r.db")
    assert code == 0, err
    assert not [line for line in err if "of your labels" in line]
