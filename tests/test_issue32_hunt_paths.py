"""Issue 32, the hunt: what a command writes besides its export, checked before anything runs and written
whole (a folder named as an output, the results database's journal, a statistics file in a new folder, a
Ctrl-C while one is written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, write_rows

from triage_app.cli import options
from triage_app.files import output_paths

ROWS = [{"id": "1", "text": "I was charged twice"}, {"id": "2", "text": "The app crashes on start"}]
LABELS = ["--labels", "billing,technical"]


@pytest.fixture
def no_model(monkeypatch):
    """A command that got past its checks would load the model: that is the failure here."""
    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))


def test_a_folder_named_as_the_export_is_refused_before_the_model_loads(tmp_path, capsys, no_model):
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    (tmp_path / "out.csv").mkdir()
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", *LABELS,
                            "--db", tmp_path / "r.db")
    assert code == 2 and len(err) == 1
    assert "out.csv" in err[0] and "folder" in err[0] and "partial" not in err[0]


@pytest.mark.parametrize("option", ["--stats-json", "--updates"])
def test_a_folder_named_as_another_output_is_refused_before_the_model_loads(tmp_path, capsys, no_model, option):
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    (tmp_path / "extra.json").mkdir()
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", *LABELS,
                            "--db", tmp_path / "r.db", option, tmp_path / "extra.json")
    assert code == 2 and len(err) == 1 and "extra.json" in err[0] and option in err[0]


@pytest.mark.parametrize("option", ["-o", "--updates", "--stats-json", "--db"])
def test_an_output_under_a_file_is_refused_before_the_model_loads(tmp_path, capsys, no_model, option):
    """A path whose folder is a file (the ticket file itself here) failed only when written, after the run,
    with the export already written beside it."""
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    paths = {"-o": tmp_path / "out.csv", "--db": tmp_path / "r.db"} | {option: tickets / "x.json"}
    if option == "-o":
        paths["-o"] = tickets / "out.csv"
    extra = [] if option in ("-o", "--db") else [option, paths[option]]
    code, _, err = run_main(capsys, "classify", tickets, "-o", paths["-o"], *LABELS, "--db", paths["--db"], *extra)
    assert code == 2 and err == [f"triage-app: {paths[option]}: {tickets} is a file, not a folder ({option}); "
                                 "name a file in a folder"]


@pytest.mark.parametrize("journal", ["-wal", "-shm", "-journal"])
def test_the_databases_journal_is_the_database(tmp_path, capsys, no_model, journal):
    """In WAL mode a committed label can live in the -wal file until a checkpoint: writing statistics over
    it, while a window has the database open, loses it."""
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", *LABELS,
                            "--db", tmp_path / "r.db", "--stats-json", tmp_path / f"r.db{journal}")
    assert code == 2 and len(err) == 1 and "results database's journal (--db)" in err[0]


def test_the_journal_of_a_database_named_through_a_symlink_is_the_one_beside_the_file_it_names(
        tmp_path, capsys, no_model):
    # a hunt's finding: SQLite keeps the -wal beside the file the link names; only the link's spelling was refused
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    (tmp_path / "data").mkdir()
    (tmp_path / "r.db").symlink_to(tmp_path / "data" / "results.db")
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", *LABELS, "--db", tmp_path / "r.db",
                            "--stats-json", tmp_path / "data" / "results.db-wal")
    assert code == 2 and len(err) == 1 and "results database's journal (--db)" in err[0]
    (tmp_path / "linked").symlink_to(tmp_path / "data", target_is_directory=True)     # one folder, two spellings
    database = ("--db", str(tmp_path / "linked" / "results.db"), "the results database", "another")
    output_paths.check([], output_paths.with_journals(database))       # its journals are not two files each


@pytest.mark.parametrize("option", ["input", "-o", "--updates", "--db"])
def test_a_path_that_is_a_symlink_loop_is_no_traceback(tmp_path, capsys, tiny_model, option):
    # a hunt's finding: Path.resolve() raises RuntimeError on a loop before Python 3.13, and the paths' check
    # ended in a traceback; an output is written in the loop's place, an input or a database refused in a line
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    (tmp_path / "loop.csv").symlink_to(tmp_path / "loop.csv")
    paths = {"input": tickets, "-o": tmp_path / "out.csv", "--updates": tmp_path / "u.csv", "--db": tmp_path / "r.db"}
    paths[option] = tmp_path / "loop.csv"
    code, _, err = run_main(capsys, "classify", paths["input"], "-o", paths["-o"], *LABELS, "--db", paths["--db"],
                            "--updates", paths["--updates"])
    assert (code, len(err[-1:])) == ((2, 1) if option in ("input", "--db") else (0, 1)), err


def test_statistics_go_into_a_new_folder_as_the_export_does(tmp_path, capsys, tiny_model):
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out" / "out.csv", *LABELS,
                            "--db", tmp_path / "r.db", "--stats-json", tmp_path / "stats" / "s.json")
    assert code == 0, err
    assert json.loads((tmp_path / "stats" / "s.json").read_text())["rows"] == 2


def test_statistics_interrupted_as_they_are_written_leave_the_old_file_whole(tmp_path, capsys, tiny_model,
                                                                            monkeypatch):
    """Ctrl-C halfway through writing the statistics: the file is the old one or the new one, never half."""
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    stats = tmp_path / "s.json"
    stats.write_text('{"old": true}\n')
    write_text = Path.write_text

    def interrupted(path, text, *args, **kwargs):
        write_text(path, text[:len(text) // 2], *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", interrupted)
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.json", *LABELS,
                            "--db", tmp_path / "r.db", "--stats-json", stats)
    assert code == 130
    assert stats.read_text() == '{"old": true}\n'
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []
