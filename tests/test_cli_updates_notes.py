"""classify --updates says what a person must know about the file it wrote: an id on several rows whose
values disagree (issue 32 item 4), and an id a CSV cannot hold unchanged (item 5)."""

from __future__ import annotations

import json

from cli_helpers import read_rows, run_main, write_rows

from triage_app.engine.axes import Axes, Axis
from triage_app.engine.labels import LabelSet

QUEUE = LabelSet.from_names(["billing", "technical"])


def test_an_id_on_two_rows_that_disagree_is_named_once_and_sent_once(tmp_path, capsys, tiny_model):
    from triage_app.files.reader import read_tickets
    from triage_app.files.store import ResultStore
    from triage_app.files.ticket_keys import file_key, row_hashes

    rows = [{"id": "4711", "text": "I was charged twice"}, {"id": "4711", "text": "The app crashes on upload"},
            {"id": "=1+2", "text": "Please send my invoice"}]
    tickets = write_rows(tmp_path / "t.csv", rows)
    axes = tmp_path / "axes.json"
    Axes((Axis("queue", QUEUE),)).save(axes)
    hashes = row_hashes(read_tickets(tickets).frame)
    with ResultStore(tmp_path / "r.db") as store:   # two people's labels on one ticket's two messages
        store.set_person_labels(file_key(tickets), {0: (hashes[0], "billing"), 1: (hashes[1], "technical"),
                                                    2: (hashes[2], "billing")}, axis="queue")
    updates = tmp_path / "u.csv"
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--method", "direct", "--labels-file", axes, "--updates", updates)
    assert code == 0, err
    assert read_rows(updates) == []     # 4711 disputed, "=1+2" a formula to a spreadsheet
    notes = [line for line in err if line.startswith("note: ")]
    assert any("1 ticket id(s) are on several rows with different values" in n and "'4711'" in n for n in notes), err
    assert any("1 ticket(s) left out of the CSV" in n and "'=1+2'" in n for n in notes), err
    assert any(line.startswith("updates: 0 tickets") for line in err), err
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--method", "direct", "--labels-file", axes, "--updates", tmp_path / "u.json")
    assert code == 0, err
    assert json.loads((tmp_path / "u.json").read_text()) == [{"id": "=1+2", "fields": {"queue": "billing"}}]


def test_the_updates_line_counts_what_the_file_holds(tmp_path, capsys, tiny_model):
    # a hunt's finding: "1 tickets, 2 fields", counting the fields of a ticket the CSV left out
    tickets = write_rows(tmp_path / "t.csv", [{"id": "4711", "text": "I was charged twice"},
                                              {"id": "=1+2", "text": "Please send my invoice"}])
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--labels", "billing,technical", "--updates", tmp_path / "u.csv", "--apply-above", "0")
    assert code == 0, err
    assert [r["id"] for r in read_rows(tmp_path / "u.csv")] == ["4711"]
    assert any(line.startswith("updates: 1 tickets, 1 fields (label 1 at 0+;") for line in err), err


def test_an_interrupt_while_the_updates_are_made_leaves_the_results_and_updates_of_one_run(tmp_path, capsys,
                                                                                        tiny_model, monkeypatch):
    # a hunt's finding: the export came first, so Ctrl-C then left new results beside the last run's updates
    from triage_app.files import updates

    tickets = write_rows(tmp_path / "t.csv", [{"id": "100", "text": "I was charged twice"}])
    out, sent = tmp_path / "out.csv", tmp_path / "u.csv"
    args = ["-o", out, "--db", tmp_path / "r.db", "--labels", "billing,technical", "--updates", sent,
            "--apply-above", "0"]
    assert run_main(capsys, "classify", tickets, *args)[0] == 0
    before = out.read_text(), sent.read_text()
    tickets = write_rows(tmp_path / "t.csv", [{"id": "200", "text": "The app crashes on start"}])

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(updates, "updates", interrupted)
    assert run_main(capsys, "classify", tickets, *args)[0] == 130
    assert (out.read_text(), sent.read_text()) == before
