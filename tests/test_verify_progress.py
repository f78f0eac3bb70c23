"""Verify tells what it will cost before it starts, how far it is after every probe, and stops when asked
(issue 32 item 9: a verify of many labels ran for minutes without a word)."""

from __future__ import annotations

import pytest

from cli_helpers import run_main
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import Scoring
from triage_app.engine.labels import LabelSet
from triage_app.engine.verify import reference_passes, verify

TEXTS = ["My invoice is wrong.", "I cannot log in since the update.", "", "Please cancel my subscription.",
         "The app crashes whenever I open the settings page on my phone."]
# names of several tokens, sharing first ones: direct's reference makes a pass per path through their trie
LABELS = LabelSet.from_names(["billing dispute", "billing question", "technical problem", "account access",
                              "account deletion", "feature request"])


@pytest.mark.parametrize("method", ["direct", "channel"])
def test_progress_announces_the_passes_and_counts_every_one(tiny_qwen, method):
    classifier = Classifier(tiny_qwen, LABELS, scoring=Scoring(method=method))
    told = []
    report = verify(classifier, TEXTS, probes=3, progress=told.append)
    first, last = told[0], told[-1]
    assert (first.probes_done, first.passes_done, first.probes) == (0, 0, 3)
    assert first.passes == reference_passes(classifier, 3) >= 3 * 4
    # the passes announced are the passes made, and each probe is told as it ends
    assert (last.probes_done, last.passes_done) == (3, first.passes) and last.eta_seconds == 0
    assert [p.probes_done for p in told if p.probes_done] [-3:] == [1, 2, 3]
    assert report.probes == 3 and not report.stopped


def test_stop_ends_between_passes_with_the_probes_compared_so_far(tiny_qwen):
    classifier = Classifier(tiny_qwen, LabelSet.default(), scoring=Scoring(method="direct"))
    told = []
    report = verify(classifier, TEXTS, probes=3, progress=told.append, stop=lambda: bool(told[-1].probes_done))
    assert report.probes == 1 and report.planned == 3 and report.stopped
    assert "stopped after 1 of 3 probes" in report.summary()
    assert told[-1].passes_done < told[-1].passes


def test_stop_inside_a_probe_waits_for_no_more_passes(tiny_qwen):
    classifier = Classifier(tiny_qwen, LabelSet.default(), scoring=Scoring(method="direct"))
    passes = []
    model = classifier.loaded.model
    hook = model.register_forward_hook(lambda *a: passes.append(1))
    try:
        report = verify(classifier, TEXTS, probes=3, stop=lambda: len(passes) >= 2)
    finally:
        hook.remove()
    assert len(passes) == 2 and report.probes == 0 and report.stopped
    assert not model._forward_hooks.keys() - {hook.id} and not model._forward_pre_hooks   # verify's hooks are gone


def test_the_command_says_the_cost_first_and_a_line_per_probe(tmp_path, capsys, tiny_model):
    tickets = tmp_path / "tickets.csv"
    tickets.write_text("text\n" + "\n".join(f'"{t}"' for t in TEXTS) + "\n", encoding="utf-8")
    code, out, err = run_main(capsys, "verify", tickets, "--probes", "3", "--model", "random:qwen2.5-0.5b",
                              "--method", "direct")
    cost = [k for k, line in enumerate(err) if "model passes over the whole prompt" in line]
    probes = [line for line in err if line.startswith("probe ")]
    assert cost and "3 probe(s)" in err[cost[0]]
    assert [line.split(",")[0] for line in probes] == ["probe 1/3 checked", "probe 2/3 checked", "probe 3/3 checked"]
    assert "labels identical to the reference loop" in out
