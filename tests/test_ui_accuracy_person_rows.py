"""The accuracy tab scores the model's own answers: on a row a person labelled, the answer under the label is
the model's, not one learned from that very label (a hunt's finding: labels given before a run came back as
the run's answers on their rows, and the tab counted them as the model being right)."""

from __future__ import annotations

import csv

import numpy as np

from triage_app.engine.labels import LabelSet
from triage_app.engine.prediction import Prediction
from ui_helpers import make_window, open_file, settings_file  # noqa: F401

NAMES = ["card_arrival", "exchange_rate", "lost_or_stolen_card"]


def test_a_persons_rows_are_scored_on_the_models_own_answers(qtbot, make_window, tmp_path):
    words = {"card_arrival": "card arrive delivery post still waiting",
             "exchange_rate": "rate exchange euro dollar fee", "lost_or_stolen_card": "lost stolen wallet thief block"}
    rng = np.random.default_rng(0)
    rows = [{"text": f"{words[name]} {' '.join(rng.choice(words[name].split(), 3))} {k}", "category": name}
            for name in NAMES for k in range(10)]
    path = tmp_path / "t.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["text", "category"], *[[r["text"], r["category"]] for r in rows]])
    window = make_window(autoload=False)
    window.labels_panel.set_label_set(LabelSet.from_names(NAMES))
    open_file(qtbot, window, path)
    labelled = [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]
    for r in labelled:                                            # as the gold says, before any run
        assert window.model.set_person_label(r, rows[r]["category"])
    state = window.model.state
    qtbot.waitUntil(lambda: state._learned is not None and state._learned.weights.is_learning, timeout=60_000)
    # a run whose model answers card_arrival everywhere, unsure
    window.model.apply_predictions([Prediction(r, NAMES, np.log([0.4, 0.3, 0.3]).tolist()) for r in range(30)])
    assert [state.predicted_label(r) for r in labelled] == ["card_arrival"] * 12
    window.summary.refresh()
    scores = window.accuracy_panel.scores
    assert "learned from your labels; where you labelled, the model" in window.accuracy_panel.headline.text()
    assert scores.n == 30 and round(scores.accuracy * 30) == 4 + sum(
        state.predicted_label(r) == rows[r]["category"] for r in range(30) if r not in labelled)
