"""Issue 32, the hunt: counts a person gives (--limit, --probes, --examples-per-label) and an eval with
nothing left to judge, refused in one line before the model loads, never a run of everything, a verify
that checks nothing and says OK, or a traceback."""

from __future__ import annotations

import pytest
from cli_helpers import run_main, write_rows

from triage_app.cli import options

ROWS = [{"id": str(k), "text": f"ticket {k} about my invoice", "category": "billing" if k % 2 else "technical"}
        for k in range(6)]
LABELS = ["--labels", "billing,technical"]


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))


@pytest.fixture
def tickets(tmp_path):
    return write_rows(tmp_path / "t.csv", ROWS)


@pytest.mark.parametrize("command, option, value", [
    ("classify", "--limit", "0"), ("classify", "--limit", "-1"), ("eval", "--limit", "0"), ("eval", "--limit", "-3"),
    ("eval", "--examples-per-label", "-1"), ("verify", "--probes", "0"), ("verify", "--probes", "-2")])
def test_a_count_under_its_least_is_refused_in_one_line(tickets, tmp_path, capsys, no_model, command, option, value):
    extra = {"classify": ["-o", tmp_path / "o.csv", "--db", tmp_path / "r.db"], "eval": [], "verify": []}[command]
    code, _, err = run_main(capsys, command, tickets, *LABELS, *extra, option, value)
    assert code == 2 and len(err) == 1 and option in err[0] and value in err[0]


def test_eval_on_a_column_that_holds_no_label_is_refused(tickets, capsys, no_model):
    code, _, err = run_main(capsys, "eval", tickets, *LABELS, "--gold-column", "text")
    assert code == 2 and len(err) == 1 and "--gold-column text" in err[0]


def test_eval_whose_examples_take_every_gold_row_is_refused(tickets, capsys, no_model):
    code, _, err = run_main(capsys, "eval", tickets, *LABELS, "--examples-per-label", "100")
    assert code == 2 and len(err) == 1 and "--examples-per-label" in err[0]


@pytest.mark.parametrize("value", ["0", "-5"])
def test_bench_of_fewer_than_one_ticket_is_refused(capsys, no_model, value):
    """--n 0 ended in an AttributeError after the model loaded; --n -5 timed all the sample but five."""
    code, _, err = run_main(capsys, "bench", "--n", value)
    assert code == 2 and len(err) == 1 and "--n" in err[0] and value in err[0]


@pytest.mark.parametrize("value", ["2", "-1", "nan"])
def test_labels_first_past_a_probability_is_refused_before_anything_is_read(tickets, tmp_path, capsys, no_model,
                                                                             value):
    """It was refused only after the model loaded and the encoder embedded every ticket."""
    code, _, err = run_main(capsys, "classify", tickets, *LABELS, "-o", tmp_path / "o.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "category", "--labels-first", value)
    assert code == 2 and err == [f"triage-app: --labels-first: {float(value)} is not from 0 to 1"]
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize("given", [["--actors", "4"], ["--cpus-per-actor", "2", "--rows-per-block", "64"]])
def test_a_ray_option_without_ray_is_refused_not_ignored(tickets, tmp_path, capsys, no_model, given):
    code, _, err = run_main(capsys, "classify", tickets, *LABELS, "-o", tmp_path / "o.csv", "--db", tmp_path / "r.db",
                            *given)
    flags = given[::2]
    assert code == 2 and err == [f"triage-app: {', '.join(flags)}: for a run on Ray only; add --ray, or leave "
                                 f"{' and '.join(flags)} out"]
