"""verify says what its fast path answered in on a checked placement: channel scoring runs a plain float32
classifier there (engine/build.py), and its verify read "checked precision: every one must be" though no
low-precision answer was compared; a checked run's verify says how many probes were low-precision answers."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from cli_helpers import run_main, write_rows

from triage_app.cli import options
from triage_app.engine import checked
from triage_app.engine.build import classifier_for
from triage_app.engine.checked import Check, CheckedClassifier
from triage_app.engine.config import RunConfig, RunSettings, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.engine.verify import collect, verify

TEXTS = ["My invoice is wrong, I was charged twice.", "I cannot log in since the update.",
         "Please cancel my subscription.", "The app crashes whenever I open the settings page on my phone.",
         "Where is my refund?", "My password reset e-mail never arrives."]
LABELS = LabelSet.from_names(["billing", "technical", "account"])


@pytest.fixture
def checked_tiny(tiny_qwen):
    loaded = replace(tiny_qwen, placement=replace(tiny_qwen.placement, checked=torch.bfloat16))
    loaded.low = checked.low_copy(loaded)
    return loaded


def test_channel_on_a_checked_placement_is_verified_as_the_float32_it_runs(tmp_path, capsys, monkeypatch,
                                                                           checked_tiny):
    classifier = classifier_for(checked_tiny, LABELS, RunSettings(scoring=Scoring(method="channel")))
    report = verify(classifier, TEXTS, probes=3)
    assert not report.checked and report.ok, report.summary()
    said = "channel scoring runs in float32 on bfloat16-checked, so no bfloat16 answer was compared"
    assert said in report.summary() and "checked precision" not in report.summary()
    # and the command line says so
    monkeypatch.setattr(options, "load_model", lambda args: checked_tiny)
    path = write_rows(tmp_path / "t.csv", [{"text": text} for text in TEXTS])
    code, out, err = run_main(capsys, "verify", path, "--labels", ",".join(LABELS.names), "--method", "channel",
                              "--probes", "3")
    assert code == 0, err
    assert said in out and "checked precision" not in out


def test_a_checked_verify_says_how_many_probes_were_low_precision_answers(checked_tiny):
    classifier = CheckedClassifier(checked_tiny, LABELS, scoring=Scoring(method="direct"),
                                   check=Check(probes=2, ranges=1, always=True))
    report = verify(classifier, TEXTS, probes=3)
    assert report.checked and report.probes == 3, report.summary()
    low = int(report.precision.split(" of ")[0])
    assert report.precision == f"{low} of 3 answered in bfloat16, the rest in float32"
    assert f"(checked precision: every one must be; {report.precision})" in report.summary()
    # a finished run's answers checked whole (the window's verify): its low-precision answers carry their drift
    fast = collect(classifier, TEXTS, RunConfig())
    low = sum(1 for p in fast.values() if p.drift > 0)
    report = verify(classifier, TEXTS, probes=len(TEXTS), fast=fast)
    assert report.precision == f"{low} of {len(TEXTS)} answered in bfloat16, the rest in float32"
