"""What a command may write, refused before anything loads (files/output_paths.py, cli.check_paths): the
results database whichever command writes, the files Triage ships."""

from __future__ import annotations

import os
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


def _model_folder(path: Path) -> Path:
    path.mkdir()
    for name in ("config.json", "tokenizer_config.json", "tokenizer.json"):
        (path / name).write_text("{}")
    (path / "model.safetensors").write_bytes(b"weights")
    return path


@pytest.mark.parametrize("spelling", ["mymodel", "./mymodel/", "{}/mymodel"])
def test_an_output_inside_the_model_folder_is_refused_before_it_loads(data, capsys, spelling):
    model, spelling = _model_folder(Path("mymodel")), spelling.format(Path.cwd())
    code, _, err = run_main(capsys, "classify", "tickets.csv", "-o", "mymodel/tokenizer_config.json",
                            "--model", spelling, "--labels", "a,b", "--db", "r.db")
    assert (code, err) == (2, [f"triage-app: mymodel/tokenizer_config.json: that is inside the model (--model); {OTHER}"])
    code, _, err = run_main(capsys, "bench", "--model", spelling, "--json", "mymodel/results.json")
    assert (code, err) == (2, [f"triage-app: mymodel/results.json: that is inside the model (--model); {OTHER}"])
    assert (model / "tokenizer_config.json").read_text() == "{}" and not Path("mymodel/results.json").exists()


def test_an_output_naming_the_gguf_file_or_inside_the_encoder_folder_is_refused(data, capsys):
    Path("model.gguf").write_bytes(b"GGUF")
    code, _, err = run_main(capsys, "classify", "tickets.csv", "-o", "model.gguf", "--model", "model.gguf",
                            "--labels", "a,b", "--db", "r.db")
    assert (code, err) == (2, [f"triage-app: model.gguf: that is the model (--model); {OTHER}"])
    _model_folder(Path("encoder"))
    code, _, err = run_main(capsys, "eval", "tickets.csv", "--json", "encoder/config.json", "--encoder", "encoder",
                            *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: encoder/config.json: that is inside the sentence encoder (--encoder); "
                               f"{OTHER}"])
    assert Path("model.gguf").read_bytes() == b"GGUF" and Path("encoder/config.json").read_text() == "{}"


def test_a_model_alias_is_no_file_even_where_a_file_has_its_name(data, capsys):
    """smollm2-135m names the bundled model, never ./smollm2-135m: an output of that name is the person's."""
    Path("smollm2-135m").write_text("an old export")
    code, _, err = run_main(capsys, "bench", "--model", "smollm2-135m", "--n", "0", "--json", "smollm2-135m")
    assert "that is the model" not in " ".join(err)


@pytest.mark.parametrize("option", ["-o", "--updates", "--stats-json"])
def test_a_read_only_output_is_refused_before_the_run(data, capsys, option):
    """It was refused by the atomic writer after the whole run, its time lost."""
    target = Path("out.json" if option == "--stats-json" else "out.csv")
    target.write_text("precious\n")
    target.chmod(0o444)
    more = ["-o", "labeled.csv"] if option != "-o" else []
    code, _, err = run_main(capsys, "classify", "tickets.csv", option, target, *more, "--db", "r.db", *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {target}: it is read-only; make it writable or choose another name"])
    assert target.read_text() == "precious\n"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes in any folder")
def test_an_output_in_a_folder_that_cannot_be_written_in_is_refused_before_the_run(data, capsys):
    Path("locked").mkdir()
    Path("locked").chmod(0o555)
    code, _, err = run_main(capsys, "classify", "tickets.csv", "-o", "locked/new/out.csv", "--db", "r.db", *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: locked/new/out.csv: the folder {Path.cwd() / 'locked'} is read-only; "
                               f"make it writable or choose another folder"])


@pytest.mark.parametrize("command, more", [
    ("classify", ["-o", "out.csv", "--stats-json", "stats.xlsx"]),
    ("eval", ["--json", "results.csv"]),
    ("bench", ["--json", "bench.txt"]),
])
def test_json_under_another_suffix_is_refused(data, capsys, command, more):
    """A spreadsheet named stats.xlsx that is JSON inside will not open, and the name lied about the file."""
    args = ["tickets.csv", "--db", "r.db"] if command != "bench" else []
    code, _, err = run_main(capsys, command, *args, *more, *NO_MODEL)
    assert (code, err) == (2, [f"triage-app: {more[-1]}: {more[-2]} writes JSON; name a .json file"])
    code, _, err = run_main(capsys, command, *args, *more[:-1], "Results.JSON", *NO_MODEL)
    assert code == 2 and "writes JSON" not in err[-1]     # on past the check, to what the command reads
