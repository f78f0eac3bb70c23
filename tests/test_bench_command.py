"""bench as a person meets it: speedups against the reference loop when it is not among --modes, the
many-labels workload's JSON and exit status, and bad arguments refused before the model loads."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run_main

from triage_app.bench import throughput
from triage_app.bench.workloads import BANKING77, WORKLOADS
from triage_app.cli import options


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))


@pytest.fixture
def small_dense_rate(monkeypatch):
    """The dense-forward rate on one small batch: what is checked here is not it."""
    real = throughput.dense_rate
    monkeypatch.setattr(throughput, "dense_rate", lambda loaded: real(loaded, rows=2, width=16, repeats=1))


def test_speedups_are_against_the_reference_loop_when_it_is_not_a_mode(tmp_path, capsys, tiny_model,
                                                                        small_dense_rate):
    # a hunt's finding: each mode was divided by its own time, 1.00x for every one
    out = tmp_path / "bench.json"
    code, _, err = run_main(capsys, "bench", "--n", "4", "--modes", "prefix,fast", "--json", out)
    assert code == 0, err
    modes = json.loads(out.read_text())["modes"]
    assert set(modes) == {"prefix", "fast"}
    assert any(line.strip().startswith("(reference)") for line in err)
    # every speedup is over the same base, the reference loop's seconds, not the mode's own
    prefix, fast = modes["prefix"], modes["fast"]
    assert prefix["speedup"] * prefix["seconds"] == pytest.approx(fast["speedup"] * fast["seconds"])
    assert prefix["speedup"] != 1.0 and fast["speedup"] != 1.0
    assert prefix["agreement"] == fast["agreement"] == 1.0


@pytest.mark.skipif(not BANKING77.is_file(), reason="the shared BANKING77 training split is not here")
def test_the_many_labels_workload_writes_its_json(tmp_path, capsys, tiny_model, monkeypatch):
    # a hunt's finding: --json wrote nothing. 12 labels and 4, not 77 and 10: the tiny model's context is short
    real = throughput.run_many_labels
    monkeypatch.setattr(throughput, "run_many_labels", lambda loaded, n, **kwargs: real(loaded, n, (12, 4), **kwargs))
    out = tmp_path / "many.json"
    code, _, err = run_main(capsys, "bench", "--workload", "many-labels", "--n", "2", "--json", out)
    assert out.exists(), err
    data = json.loads(out.read_text())
    assert [(r["labels"], r["prune"]) for r in data["runs"]] == [(12, False), (12, True), (4, False), (4, True)]
    assert code == (0 if all(r["same_labels"] for r in data["runs"]) else 1), err


def test_the_many_labels_workload_exits_1_when_pruned_labels_differ(tmp_path, capsys, tiny_model, monkeypatch):
    differ = throughput.ManyLabelsResult(10, True, 1.0, 2.0, 5, 9, same_labels=False)
    monkeypatch.setattr(throughput, "run_many_labels", lambda *args, **kwargs: [differ])
    code, stdout, _ = run_main(capsys, "bench", "--workload", "many-labels", "--n", "2", "--json", tmp_path / "m.json")
    assert code == 1 and "NO" in stdout
    assert json.loads((tmp_path / "m.json").read_text())["runs"][0]["same_labels"] is False


@pytest.mark.parametrize("given, said", [
    (["--workload", "nonsense"], f"unknown workload 'nonsense': use {', '.join(WORKLOADS)}"),
    (["--modes", ","], "--modes names no mode: use one or more of reference, buckets, prefix, prefix+buckets, fast, "
                       "comma-separated"),
    (["--batch-size", "0"], "--batch-size must be at least 1, not 0"),
    (["--token-budget", "-1"], "--token-budget must be at least 1, not -1"),
])
def test_bad_arguments_are_refused_in_one_line_before_the_model_loads(capsys, no_model, given, said):
    code, _, err = run_main(capsys, "bench", "--n", "3", *given)
    assert code == 2 and err == [f"triage-app: {said}"]


def test_every_workload_is_named_in_the_refusal():
    assert {"export", "taught", "axes", "many-labels"} <= set(WORKLOADS)
