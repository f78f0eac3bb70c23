"""How long the UI thread spends on the table's updates at 100,000 rows, with the real view shown and
sorted: `pytest -m slow -s tests/test_ui_table_updates.py` prints it (docs/bench/table_updates.txt)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from triage_app.engine.classifier import Prediction
from triage_app.engine.prediction import Answers
from triage_app.learn.model import LEARNED, Learned, Weights, _combined
from triage_app.ui.table.model import MARGIN, TicketTableModel
from triage_app.ui.table.proxy import TicketFilterProxy
from triage_app.ui.table.view import TicketView

NAMES = ["billing", "technical", "account"]
N = 100_000
BATCH = 32


def log_probs(rng, n: int) -> np.ndarray:
    """[n, L] random answers, every margin different."""
    p = rng.dirichlet(np.ones(len(NAMES)), size=n)
    return np.log(p)


def predictions(rows, scores) -> list[Prediction]:
    return [Prediction(int(r), NAMES, s.tolist()) for r, s in zip(rows, scores)]


def a_retrain(model: TicketTableModel, rng) -> Learned:
    """A real Learned whose learned part moves every open row's answer."""
    text, lm = log_probs(rng, model.rowCount()), model.lm_scores                       # [N, L] each
    weights = Weights(lm=1.0, learned=1.0)
    scores = _combined(weights, lm, text)
    answers = Answers.of(scores)
    return Learned(NAMES, scores, answers.index, np.full(model.rowCount(), LEARNED, dtype=object), weights,
                   None, None, None, answers, lm, text_scores=text)


def timed(app, change) -> tuple[float, float]:
    """(wall, UI thread's CPU) seconds of a change and the events it posts: on a shared machine the
    CPU time is the work, the wall time that plus waiting for a core."""
    wall, cpu = time.perf_counter(), time.thread_time()
    change()
    app.processEvents()
    return time.perf_counter() - wall, time.thread_time() - cpu


def ms(took) -> str:
    return f"{1000 * took[1]:.0f} ms CPU ({1000 * took[0]:.0f} wall)"


@pytest.mark.slow
def test_how_long_the_table_takes_per_batch_at_100k_rows(qtbot):
    app = QApplication.instance()
    rng = np.random.default_rng(0)
    words = np.array("refund invoice crash login password error outage charge profile email".split())
    texts = [" ".join(rng.choice(words, 6)) + f" #{k}" for k in range(N)]
    model = TicketTableModel(pd.DataFrame({"id": [f"T{k:06d}" for k in range(N)], "text": texts}, dtype=object))
    model.set_label_names(NAMES)
    proxy = TicketFilterProxy()
    proxy.setSourceModel(model)
    view = TicketView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    view.resize(1200, 800)
    view.show()
    spread = rng.permutation(N)
    answered, waiting = spread[: N // 2], spread[N // 2:]
    model.apply_predictions(predictions(answered, log_probs(rng, len(answered))))     # unsorted: cheap
    model.show_person_labels({int(r): NAMES[0] for r in answered[:1000]})
    app.processEvents()

    # the review queue, as the pane turns it on: smallest margin first, header showing it
    setup = {"a repaint alone, for scale": timed(app, lambda: [v.viewport().update() for v in
                                                               (view, view.frozen, view.verticalHeader())]),
             "review queue on": timed(app, lambda: proxy.set_review_queue(True))}
    view.horizontalHeader().setSortIndicator(MARGIN, Qt.SortOrder.AscendingOrder)
    view.selectRow(5)
    selected = view.selected_source_rows()
    batches = []
    for k in range(20):
        rows = waiting[k * BATCH:(k + 1) * BATCH]
        batch = predictions(rows, log_probs(rng, BATCH))
        batches.append(timed(app, lambda: model.apply_predictions(batch)))
    learned = a_retrain(model, rng)
    retrain = timed(app, lambda: model.apply_learned(learned))
    kept = view.selected_source_rows()
    queue = [proxy.source_row(r) for r in range(0, proxy.rowCount(), 97)]
    queue_rows = proxy.rowCount()
    toggles = {"label filter": timed(app, lambda: proxy.set_label_filter("technical")),
               "search": timed(app, lambda: proxy.set_search("refund crash")),
               "search cleared": timed(app, lambda: proxy.set_search("")),
               "label filter off": timed(app, lambda: proxy.set_label_filter(None)),
               "review queue off": timed(app, lambda: proxy.set_review_queue(False))}
    toggles["sort by confidence"] = timed(app, lambda: view.sortByColumn(1, Qt.SortOrder.DescendingOrder))
    toggles["sort by text"] = timed(app, lambda: view.sortByColumn(4, Qt.SortOrder.AscendingOrder))

    batches.sort(key=lambda took: took[1])
    print(f"\n{N:,} rows, review queue on, sorted by margin: {len(batches)} batches of {BATCH} spread rows: "
          f"median {ms(batches[len(batches) // 2])}, max {ms(batches[-1])}; a retrain changing most rows: "
          f"{ms(retrain)}; " + "; ".join(f"{name}: {ms(t)}" for name, t in {**setup, **toggles}.items()))

    # what was shown was right: the selection kept through the re-sorts, the queue in margin order
    assert kept == selected
    assert queue_rows == N - 1000                                                       # the retrain answered every row
    assert [model.margin(r) for r in queue] == sorted(model.margin(r) for r in queue)
    # and now every row, sorted by text
    proxy.sort(4, Qt.SortOrder.AscendingOrder)
    shown = [proxy.source_row(r) for r in range(0, N, 997)]
    assert shown == sorted(range(N), key=lambda r: texts[r].lower())[::997]
