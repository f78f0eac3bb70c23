"""classify --person-labels on a checked run counts its tickets as what they are (issue 32 item 13): the
labelled rows it scores first, in float32, are found stored by the run after them, but they are not
from earlier runs."""

from __future__ import annotations

import json

from cli_helpers import run_main
from test_checked_learning import LABELS, checked_tiny, taught_file, write_csv  # noqa: F401  (a fixture)

from triage_app.engine import checked


def test_the_labelled_rows_scored_first_are_not_counted_as_from_earlier_runs(tmp_path, capsys, monkeypatch,
                                                                              checked_tiny):
    from triage_app.cli import options

    texts, _, labels = taught_file(40)
    path = write_csv(tmp_path / "t.csv", ["id", "text", "queue"],
                     [[r, t, labels.get(r, "")] for r, t in enumerate(texts)])
    monkeypatch.setattr(checked.Decision, "pays", property(lambda self: True))   # the checked path on any CPU
    monkeypatch.setattr(options, "load_model", lambda args: checked_tiny)

    def classify():
        code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                                "--stats-json", tmp_path / "s.json", *LABELS, "--person-labels", "queue")
        assert code == 0, err
        summary = [line for line in err if line.startswith(f"{len(texts)} tickets (")]
        return summary, json.loads((tmp_path / "s.json").read_text())

    summary, stats = classify()                                  # a fresh database: nothing from earlier runs
    rest = len(texts) - len(labels)
    assert summary[0].startswith(f"{len(texts)} tickets (0 from earlier runs, {len(labels)} labelled, scored "
                                 f"first): {rest} classified"), summary
    assert (stats["resumed"], stats["scored_first"], stats["done"]) == (0, len(labels), rest)
    summary, stats = classify()                                  # again: every row is from the run before
    assert summary[0].startswith(f"{len(texts)} tickets ({len(texts)} from earlier runs): 0 classified"), summary
    assert (stats["resumed"], stats["scored_first"], stats["done"]) == (len(texts), 0, 0)
