"""Several direct-after axes as one job and one command (issue 24): each axis's results stored under the key
its one-axis run uses, resumed after a stop, and the command's per-axis method from the label-set file.

On the tiny random Qwen2: what is checked is where results go and that they are the one-axis runs', not
how right they are (tests/test_axes_pass.py checks the one pass itself on SmolLM2)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import read_rows, run_main, write_rows

from triage_app.run.one_pass import run_axes_job
from triage_app.engine.methods.direct_after import DirectAfterMethod
from triage_app.engine.axes import Axes, Axis
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.files.store import ResultStore
from triage_app.run.job import run_job

QUEUE = LabelSet.from_names(["billing", "technical", "account"])
PRIORITY = LabelSet.from_names(["urgent", "normal"])
TEXTS = ["I was charged twice for my plan", "The app crashes when I upload a file", "I cannot log in anymore",
         "Please send me last month's invoice", "Error 500 on the dashboard since this morning",
         "I was charged twice for my plan", "How do I add a user to my team?", ""]
AFTER = Scoring(method="direct-after")
TOLERANCE = DirectAfterMethod.TOLERANCE["float32"]


def by_row(steps) -> dict[int, list[float] | None]:
    return {p.index: p.scores for step in steps for p in step.predictions}


def assert_close(a: dict, b: dict):
    assert a.keys() == b.keys()
    for row in a:
        assert (a[row] is None) == (b[row] is None), row
        if a[row] is not None:
            assert max(abs(x - y) for x, y in zip(a[row], b[row])) < TOLERANCE, row


def test_an_axis_method_is_read_written_and_checked():
    axes = Axes.from_dict({"axes": [{"name": "queue", "method": "direct-after", "labels": ["a", "b"]},
                                    {"name": "priority", "labels": ["x", "y"]}]})
    assert [a.method_or("channel") for a in axes] == ["direct-after", "channel"]
    assert Axes.from_dict(axes.to_dict()) == axes
    assert "method" not in axes.to_dict()["axes"][1]
    with pytest.raises(ValueError, match="axis 'queue': the method must be one of"):
        Axis("queue", QUEUE, "generate")


def test_one_pass_stores_each_axis_where_its_one_axis_run_finds_it_and_resumes_after_a_stop(tmp_path, tiny_qwen):
    classifiers = [Classifier(tiny_qwen, labels, scoring=AFTER) for labels in (QUEUE, PRIORITY)]
    config = RunConfig(batch_size=2)
    alone = [by_row(run_job(c, None, TEXTS, config)) for c in classifiers]
    with ResultStore(tmp_path / "r.db") as store:
        first = run_axes_job(classifiers, store, TEXTS, config)
        for steps in first:   # stopped after the first batch scored and saved
            if any(p.scores for p in steps[0].predictions):
                break
        first.close()
        steps = list(run_axes_job(classifiers, store, TEXTS, config))
        assert 0 < steps[0][0].resumed < len(TEXTS) - 1
        for axis in range(2):
            assert_close(by_row(s[axis] for s in steps), alone[axis])
        # a later one-axis run of either axis scores nothing: the one pass stored it under that axis's key
        for c, expected in zip(classifiers, alone):
            again = list(run_job(c, store, TEXTS, config))
            assert again[0].resumed == len(TEXTS) - 1 and sum(s.stats.done for s in again[1:]) <= 1   # the blank
            assert_close(by_row(again), expected)


def test_classify_runs_the_files_direct_after_axes_in_one_pass(tmp_path, capsys, tiny_model, tiny_qwen,
                                                             monkeypatch):
    from triage_app.engine import axes_pass

    tickets = write_rows(tmp_path / "t.csv", [{"id": str(r), "text": t} for r, t in enumerate(TEXTS)])
    axes_file = tmp_path / "axes.json"
    Axes((Axis("queue", QUEUE, "direct-after"), Axis("priority", PRIORITY, "direct-after"))).save(axes_file)
    passes = []
    real_run = axes_pass.AxesPass.run
    monkeypatch.setattr(axes_pass.AxesPass, "run", lambda self, *a, **k: passes.append(1) or real_run(self, *a, **k))
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--labels-file", axes_file, "--method", "channel", "--stats-json", tmp_path / "s.json")
    assert code == 0, err
    assert passes == [1]   # both axes, one pass, though the run's method is channel
    out = read_rows(tmp_path / "out.csv")
    for axis, labels in (("queue", QUEUE), ("priority", PRIORITY)):
        alone = by_row(run_job(Classifier(tiny_qwen, labels, scoring=AFTER), None, TEXTS))
        for row, r in enumerate(out):
            if alone[row] is None:
                assert r[axis] == ""
                continue
            p = [float(r[f"p_{axis}_{name}"]) for name in labels.names]
            assert max(abs(a - b) for a, b in zip(p, [2.718281828 ** s for s in alone[row]])) < 1e-3
    assert set(json.loads((tmp_path / "s.json").read_text())["axes"]) == {"queue", "priority"}
