"""No command writes one file twice, over a file it reads, or over its results database (issue 32 item 1).

The rule (files/output_paths.py) is held to the file system itself: every set of paths it lets through is
written, one after the other, and each must still read what was written to it, the input what it held.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from cli_helpers import run_main
from hypothesis import given, settings
from hypothesis import strategies as st

from triage_app.files import output_paths

NO_MODEL = ["--model", "/no/such/model.gguf"]     # a command that got past the check would fail on this
INPUT = "tickets.csv"
DATABASE = "results.db"
# spellings of the same few names: by ./, by .., through a symlinked folder, by case, by a link to a file
NAMES = ["out.csv", "OUT.csv", "stats.json", INPUT, DATABASE, "sub/out.csv"]
SPELLINGS = ["{}", "./{}", "sub/../{}", "linked/../{}", "sub/./../{}", "{abs}/{}"]
LINKS = ["link.csv", "hard.csv", "dblink", "linked/out.csv"]   # to the input, to the input, to the database, sub's


def _folder(root: Path) -> None:
    """The input, the database, a folder, and links to each: what the generated paths name."""
    (root / INPUT).write_text("input")
    (root / DATABASE).write_text("database")
    (root / "sub").mkdir()
    (root / "linked").symlink_to(root / "sub")
    (root / "link.csv").symlink_to(root / INPUT)
    os.link(root / INPUT, root / "hard.csv")
    (root / "dblink").symlink_to(root / DATABASE)


def _spelt(root: Path):
    names = st.sampled_from(NAMES)
    spelt = st.builds(lambda name, how: how.format(name, abs=root), names, st.sampled_from(SPELLINGS))
    return st.one_of(spelt, st.sampled_from(LINKS))


def _overwrites(root: Path, writes: list[str], reads: list[str]) -> bool:
    """Whether writing each path in turn leaves any of them, or a read file, not holding its own bytes."""
    held = {path: (root / path).read_text() for path in reads}
    for k, path in enumerate(writes):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"written {k}")
    return (any((root / path).read_text() != f"written {k}" for k, path in enumerate(writes))
            or any((root / path).read_text() != text for path, text in held.items()))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_set_of_paths_is_refused_exactly_when_writing_them_would_overwrite_one(data):
    """Outputs spelt every way the file system allows, the database among them; the input read. The rule
    refuses a set of paths if and only if writing them, in order, overwrites a file."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        _folder(root)
        writes = data.draw(st.lists(_spelt(root), min_size=1, max_size=4), label="writes")
        reads = [data.draw(st.sampled_from([INPUT, "./" + INPUT, "link.csv"]), label="input")]
        before = os.getcwd()
        os.chdir(root)
        try:
            try:
                output_paths.check([("", p, "the input file") for p in reads],
                                   [(f"--out{k}", p, f"output {k}", "write it elsewhere") for k, p in enumerate(writes)])
                refused = False
            except ValueError as exc:
                refused = True
                assert "\n" not in str(exc)
            assert refused == _overwrites(root, writes, reads), (writes, reads)
        finally:
            os.chdir(before)


def test_case_alone_is_another_file_where_the_file_system_tells_case_apart(tmp_path):
    (tmp_path / "probe").write_text("")
    if (tmp_path / "PROBE").exists():
        pytest.skip("this file system folds case")
    assert not output_paths.same(tmp_path / "out.csv", tmp_path / "OUT.csv")
    assert output_paths.same(tmp_path / "out.csv", tmp_path / "sub" / ".." / "out.csv")


@pytest.fixture
def tickets(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path(INPUT).write_text("id,text,label\n1,my invoice is wrong,billing\n2,the app crashes,technical\n")
    return tmp_path / INPUT


def _database_with_a_persons_label(path: Path) -> None:
    from triage_app.files.store import ResultStore

    with ResultStore(path) as store:
        store.set_person_labels("tickets", {0: ("hash", "billing")})


def _persons_labels(path: Path) -> list:
    from triage_app.files.store import ResultStore

    with ResultStore(path) as store:
        return store.stored_person_labels("tickets")


@pytest.mark.parametrize("more, line", [
    (["--stats-json", "labels_db.json", "--db", "labels_db.json"],
     "labels_db.json: that is the results database (--db); write the results to another"),
    (["--db", "labels_db.json", "-o", "labels_db.json"],
     "labels_db.json: that is the results database (--db); write the results to another"),
])
def test_an_output_naming_the_database_is_refused_and_the_persons_labels_kept(tickets, capsys, more, line):
    """It replaced the SQLite database, a person's labels in it, with the statistics or the export, exit 0."""
    _database_with_a_persons_label(Path("labels_db.json"))
    args = ["-o", "out.csv", *more] if "-o" not in more else more
    code, _, err = run_main(capsys, "classify", tickets, *args, *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {line}"])
    assert _persons_labels(Path("labels_db.json")) == [(0, "hash", "billing")]


@pytest.mark.parametrize("more, line", [
    (["-o", "same.csv", "--updates", "same.csv"], "same.csv: that is the export (-o); write the results to another"),
    (["-o", "x.csv", "--stats-json", "./x.csv"], "./x.csv: that is the export (-o); write the results to another"),
    (["-o", "labels.json", "--labels-file", "labels.json"],
     "labels.json: that is the label set (--labels-file); write the results to another"),
    (["-o", "out.csv", "--updates", "sub/../u.csv", "--stats-json", "u.csv"],
     "u.csv: that is the updates (--updates); write the results to another"),
])
def test_two_outputs_of_one_file_are_refused_before_anything_is_written(tickets, capsys, more, line):
    Path("labels.json").write_text('{"labels": [{"name": "billing"}, {"name": "technical"}]}')
    code, _, err = run_main(capsys, "classify", tickets, *more, *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {line}"])
    assert sorted(p.name for p in tickets.parent.iterdir()) == ["labels.json", INPUT]


def test_an_output_naming_the_default_database_is_refused(tickets, capsys):
    from triage_app.files.store import default_path

    code, _, err = run_main(capsys, "classify", tickets, "-o", default_path(), *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {default_path()}: that is the results database (--db); "
                                 "write the results to another"])


def test_db_naming_the_input_is_refused_first_and_the_input_left_as_it_was(tickets, capsys):
    """--db naming the input made it private (0600) before refusing it, and told the person to move their
    ticket file aside."""
    tickets.chmod(0o644)
    held = tickets.read_bytes()
    code, _, err = run_main(capsys, "classify", tickets, "-o", "out.csv", "--db", "./tickets.csv", *NO_MODEL)
    assert (code, err) == (2, ["triage-app: ./tickets.csv: that is the input file; "
                               "keep the results database in another file"])
    assert (tickets.stat().st_mode & 0o777, tickets.read_bytes()) == (0o644, held)


def test_eval_writes_neither_over_its_input_nor_its_json_over_its_plot(tickets, capsys):
    code, _, err = run_main(capsys, "eval", tickets, "--json", "tickets.csv", *NO_MODEL)
    assert (code, err) == (2, ["triage-app: tickets.csv: that is the input file; write the results to another"])
    code, _, err = run_main(capsys, "eval", tickets, "--learning-curve", "--json", "c.png", "--plot", "c.png",
                            *NO_MODEL)
    assert (code, err) == (2, ["triage-app: c.png: that is the results (--json); write the results to another"])
    assert sorted(p.name for p in tickets.parent.iterdir()) == [INPUT]


@pytest.mark.parametrize("more, option", [
    (["--review-below", "0.6"], "--review-below"),
    (["--updates", "u.csv", "--apply-above", "0.6"], "--updates"),
    (["--person-labels", "label"], "--person-labels"),
])
def test_prune_with_an_option_that_reads_confidences_is_refused_before_the_model_loads(tickets, capsys, more,
                                                                                       option):
    """A pruned run's confidences are bounds, lower than the whole run's: a row at 0.61 whole, 0.56 pruned,
    left the updates file."""
    code, _, err = run_main(capsys, "classify", tickets, "-o", "out.csv", "--method", "direct", "--prune", *more,
                            *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: --prune leaves the labels that cannot win unfinished (confidences and "
                               f"probabilities are bounds), and {option} reads them: leave out --prune or {option}"])
    code, _, err = run_main(capsys, "classify", tickets, "-o", "out.csv", "--method", "direct", "--prune", *NO_MODEL)
    assert code == 2 and "--prune" not in err[-1] and "model" in err[-1], err     # alone it goes on to the model


def test_a_command_that_always_reads_confidences_is_told_to_leave_out_prune_alone():
    import argparse

    from triage_app.cli import options

    with pytest.raises(ValueError, match=r"and eval reads them: leave out --prune$"):
        options.refuse_pruned_confidences(argparse.Namespace(prune=True), {"eval": True})
    options.refuse_pruned_confidences(argparse.Namespace(prune=False), {"eval": True})


def test_eval_refuses_prune_before_reading_anything(tmp_path, capsys):
    from cli_helpers import run_main

    code, _, err = run_main(capsys, "eval", tmp_path / "missing.csv", "--prune")
    assert code == 2 and err == ["triage-app: --prune leaves the labels that cannot win unfinished (confidences and "
                                 "probabilities are bounds), and eval reads them: leave out --prune"], err
