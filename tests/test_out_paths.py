"""What a command may write, refused before anything loads (files/output_paths.py, cli.check_paths): the
results database whichever command writes, the files Triage ships."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run_main

from triage_app.paths import resource

NO_MODEL = ["--model", "/no/such/model.gguf"]     # a command that got past the check would fail on this
OTHER = "write the results to another"


@pytest.fixture
def data(tmp_path, monkeypatch):
    """A per-user data folder of this test's own, holding a results database; cwd is tmp_path."""
    monkeypatch.setenv("TRIAGE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    from triage_app.files.store import ResultStore, default_path

    with ResultStore(default_path()) as store:
        store.set_person_labels("tickets", {0: ("hash", "billing")})
    Path("tickets.csv").write_text("id,text\n1,my invoice is wrong\n2,the app crashes\n")
    return default_path()


@pytest.mark.parametrize("end", ["", "-wal", "-journal"])
def test_bench_json_never_replaces_the_results_database(data, capsys, end):
    held, what = data.read_bytes(), "the results database's journal" if end else "the results database"
    code, _, err = run_main(capsys, "bench", "--n", "2", "--modes", "reference", "--json", f"{data}{end}", *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {data}{end}: that is {what}; {OTHER}"])
    assert data.read_bytes() == held


def test_an_output_of_a_command_on_another_database_never_replaces_the_default_one(data, capsys):
    code, _, err = run_main(capsys, "classify", "tickets.csv", "--db", "other.db", "-o", "out.csv",
                            "--stats-json", data, *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {data}: that is the results database; {OTHER}"])
    code, _, err = run_main(capsys, "eval", "tickets.csv", "--db", "other.db", "--json", f"{data}-wal", *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {data}-wal: that is the results database's journal; {OTHER}"])


def test_bench_json_never_replaces_a_file_triage_ships(data, capsys):
    shipped = resource("helpdesk_axes.json")
    held = shipped.read_bytes()
    code, _, err = run_main(capsys, "bench", "--workload", "axes", "--json", shipped, *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {shipped}: that is inside the files Triage ships (--workload); {OTHER}"])
    assert shipped.read_bytes() == held
