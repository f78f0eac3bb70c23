"""bench as a person meets it: speedups against the reference loop when it is not among --modes, the
many-labels workload's JSON and exit status, and bad arguments refused before the model loads."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run_main

from triage_app.bench import throughput


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
