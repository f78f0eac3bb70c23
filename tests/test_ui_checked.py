"""A checked low precision (engine/checked.py) in the window: the run panel shows the share of answers
sent back to float32, live, and only for a checked run; the labels are float32's.

The real SmolLM2 with its bfloat16 copy, on short sample tickets: 24 of them, the fewest a checked run
probes rather than running float32 alone (12 probes in both precisions, 12 answered in bfloat16)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from triage_app.engine.checked import low_copy
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import Scoring
from triage_app.engine.stats import RunStats
from triage_app.files.clean import clean_texts
from triage_app.ui.background.worker import RunProgress
from ui_helpers import Relay, make_window, open_file, run_and_wait, settings_file, with_model, write_slice  # noqa: F401

SHORT = 380   # short sample tickets, as tests/test_ui_run.py picks them


@pytest.fixture(scope="module")
def checked_smollm2(smollm2):
    loaded = replace(smollm2, placement=replace(smollm2.placement, checked=torch.bfloat16))
    loaded.low = low_copy(loaded)
    return loaded


def test_the_run_panel_shows_the_rescored_share_of_a_checked_run(qtbot, make_window, checked_smollm2, smollm2,
                                                                tmp_path):
    window = make_window()
    window.remembered.method = "direct"            # channel runs float32 on a checked placement
    with_model(qtbot, window, checked_smollm2)
    open_file(qtbot, window, write_slice(tmp_path, 24, SHORT))
    panel, shown = window.run_panel, []
    progress = Relay(window.worker.progress)       # after the window's own slot: the panel is updated
    progress.received.connect(lambda p: shown.append(panel.values["rescored"].text()))
    assert panel.titles["rescored"].isHidden()
    assert run_and_wait(qtbot, window, timeout=240_000) == "done"

    stats = progress.seen[-1].stats
    assert stats.dtype == "bfloat16-checked" and stats.probes == 12 and "bfloat16" in stats.check
    tried = stats.accepted + stats.rescored
    assert tried == 12 and stats.accepted > 0
    live = [text for text in shown if text != "–"]   # the first progress is the job's, before the engine's
    assert live[0] == "probing…"                  # the probes' float32 answers come before any decision
    assert shown[-1] == panel.values["rescored"].text() == f"{100 * stats.rescored_share:.0f}% of 12 answers"
    assert not panel.titles["rescored"].isHidden() and panel.values["rescored"].toolTip() == stats.check
    # the labels are float32's
    texts = clean_texts(window.texts, window.remembered.cleaning)
    alone = {p.index: p.label for b in Classifier(smollm2, window.label_set, scoring=Scoring(method="direct")).run(texts)
             for p in b.predictions}
    assert [window.model.label_of(r) for r in range(24)] == [alone[r] for r in range(24)]

    # a run that is not checked has no share to show
    panel.start(3)
    panel.update_progress(RunProgress(1, 1, 3, 0, RunStats(total=3, done=1, seconds=1.0)))
    assert panel.titles["rescored"].isHidden() and panel.values["rescored"].isHidden()
