"""Five labels are enough, in the window (issue 34): a file opened, every ticket embedded by the worker, a
person's labels given with the keys' own call, and the answers shown are what learn() gives on those very
embeddings and the encoder's similarity to each label. The real window offscreen, the bundled encoder, a
real results database; no language model is loaded, so the labels and the encoder answer alone."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_ui_embedding import Handed, embedded
from ui_helpers import make_window, save_shot, settings_file  # noqa: F401

from triage_app.engine.labels import LabelSet
from triage_app.learn import LabelSimilarity, TicketFeatures, learn

pytestmark = pytest.mark.model      # the encoder loads in the worker: no fixture says so
RESOURCES = Path(__file__).resolve().parents[1] / "resources"
PER_QUEUE, TAUGHT = 8, 5


def test_five_labels_a_queue_are_learned_on_the_embeddings_the_worker_made(qtbot, make_window, tmp_path):
    frame = pd.read_csv(RESOURCES / "helpdesk_tickets.csv").groupby("queue", sort=False).head(PER_QUEUE)
    path = tmp_path / "tickets.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["text"], *([t] for t in frame["customer_message"])])
    gold = frame["queue"].tolist()
    window = make_window()
    window.labels_panel.set_label_set(LabelSet.load(RESOURCES / "helpdesk_labels.json"))
    names = window.label_set.names
    handed = Handed(window.learning)
    embedded(qtbot, window, lambda: window.open_file(path))
    qtbot.waitUntil(lambda: window.embedding.settled and bool(handed.label_vectors), timeout=120_000)
    texts, vectors = handed.embeddings[-1]
    field, prototypes, *_ = handed.label_vectors[-1]

    labels = {}
    for queue in names:
        for row in [r for r, g in enumerate(gold) if g == queue][:TAUGHT]:
            assert window.model.set_person_label(row, queue)
            labels[row] = queue
    live = window.learning.lives[field]
    qtbot.waitUntil(lambda: not live.busy and f"learned from {len(labels)} labels" in window.learning.status.text(),
                    timeout=120_000)

    lm = np.full((len(texts), len(names)), np.nan)            # no model has run: no scores
    want = learn(TicketFeatures(texts, vectors), lm, labels, names, similarity=LabelSimilarity.of(vectors, prototypes))
    shown = [window.model.label_of(r) for r in range(len(texts))]
    assert shown == [labels.get(r, names[k]) for r, k in enumerate(want.labels)]
    right = np.mean([s == g for r, (s, g) in enumerate(zip(shown, gold)) if r not in labels])
    assert right > 1 / len(names)            # better than chance on the tickets nobody labelled
    save_shot(window, "window-five-labels.png", tmp_path)
