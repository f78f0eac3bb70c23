"""Live learning in the window: real table model, real TF-IDF and regression, retrains on the
controller's own thread. How long a retrain on a big file stalls the event loop is a measurement:
`pytest -m slow -s -k stalls tests/test_ui_learning.py` prints it."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QEventLoop, QTimer
from ui_helpers import Ticks

import triage_app.ui.learning.live as learning_module
from triage_app.engine.classifier import Prediction
from triage_app.learn import LEARNED, TicketFeatures, learn
from triage_app.ui.learning.live import LiveLearning
from triage_app.ui.table.model import TicketTableModel
from triage_app.ui.table.proxy import TicketFilterProxy

NAMES = ["billing", "technical", "account"]
WORDS = {"billing": "invoice charge refund price receipt", "technical": "error crash bug outage timeout",
         "account": "login password user profile email"}


def tickets(n: int, names=NAMES, words=WORDS, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    gold = [names[r % len(names)] for r in range(n)]
    return [" ".join(rng.choice(words[g].split(), 3).tolist() + ["please", "help"]) for g in gold], gold


def table(texts: list[str], names=NAMES) -> TicketTableModel:
    """The model answers the first label for every ticket, a little unsure."""
    model = TicketTableModel(pd.DataFrame({"text": texts}, dtype=object))
    model.set_label_names(names)
    first = [0.5] + [0.5 / (len(names) - 1)] * (len(names) - 1)
    model.apply_predictions([Prediction(r, names, [math.log(p) for p in first]) for r in range(len(texts))])
    return model


def retrain_held(learning, model, gold, monkeypatch) -> Gate:
    """Twelve labels taught, and their retrain held inside learn() until gate.open is set."""
    gate = Gate(monkeypatch)
    for r in range(12):
        model.set_person_label(r, gold[r])
    learning.request()
    assert gate.entered.wait(30)
    return gate


@pytest.fixture
def live(qtbot):
    texts, gold = tickets(60)
    model = table(texts)
    learning = LiveLearning(model)
    learning.retrained.connect(lambda r: model.apply_learned(r.learned))
    learning.set_file(texts, NAMES)
    yield learning, model, texts, gold
    assert learning.close(10_000)


class Gate:
    """learn() that waits for a release, and counts the retrains that taught something."""

    def __init__(self, monkeypatch):
        self.open, self.entered, self.taught, self.threads = threading.Event(), threading.Event(), [], set()
        monkeypatch.setattr(learning_module, "learn", self)

    def __call__(self, features, scores, labels, names, config, drift=None, similarity=None):
        self.threads.add(threading.get_ident())
        if labels:
            self.taught.append(len(labels))
            self.entered.set()
            assert self.open.wait(10)
        return learn(features, scores, labels, names, config, drift, similarity=similarity)


def test_a_label_retrains_off_the_ui_thread_and_the_table_shows_it(qtbot, live, monkeypatch):
    learning, model, texts, gold = live
    gate = Gate(monkeypatch)
    gate.open.set()
    for r in range(12):
        model.set_person_label(r, gold[r])
    with qtbot.waitSignal(learning.retrained, timeout=60_000) as got:
        learning.request()
    result = got.args[0]
    assert threading.get_ident() not in gate.threads
    same = learn(TicketFeatures(texts), model.lm_scores, model.person_labels, NAMES)
    assert np.array_equal(result.learned.labels, same.labels)                     # seeded: the same answers
    assert [model.label_of(r) for r in range(60)] == gold and model.source(30) == LEARNED
    assert result.changed == 40                                                     # the model said billing for all
    assert result.status().startswith("learned from 12 labels (per label: billing 4, technical 4, account 4) — "
                                      "estimated accuracy ")
    assert result.status().endswith("cross-validated — 40 answer(s) changed since the model's answers")
    assert len(result.queue) == 20 and not set(result.queue) & set(range(12))
    model.set_person_label(12, "technical")                                               # a person disagrees
    with qtbot.waitSignal(learning.retrained, timeout=60_000) as got:
        learning.request()
    assert got.args[0].status().endswith("changed since the last retrain") and not got.args[0].first


def test_labels_given_during_a_retrain_make_one_more_not_a_queue(qtbot, live, monkeypatch):
    learning, model, _, gold = live
    gate = Gate(monkeypatch)
    for r in range(6):
        model.set_person_label(r, gold[r])
    results = []
    learning.retrained.connect(results.append)
    learning.request()
    assert gate.entered.wait(30)
    for r in range(6, 15):                                                          # fast labelling
        model.set_person_label(r, gold[r])
        learning.request()
    gate.open.set()
    qtbot.waitUntil(lambda: len(results) == 2 and not learning.busy, timeout=60_000)
    qtbot.wait(200)
    assert gate.taught == [6, 15] and len(results) == 2
    assert results[-1].learned.teaching.n == 15


def test_a_result_for_an_earlier_file_is_dropped(qtbot, live, monkeypatch):
    learning, model, _, gold = live
    gate = retrain_held(learning, model, gold, monkeypatch)
    texts, _ = tickets(30, seed=4)
    model.set_frame(pd.DataFrame({"text": texts}, dtype=object))                   # another file, no labels yet
    learning.set_file(texts, NAMES)
    with qtbot.assertNotEmitted(learning.retrained, wait=300):
        gate.open.set()
        qtbot.waitUntil(lambda: not learning.busy, timeout=60_000)
    assert gate.taught == [12] and model.learned is None


def test_close_waits_for_the_retrain_and_nothing_is_emitted_after(qtbot, live, monkeypatch):
    learning, model, _, gold = live
    gate = retrain_held(learning, model, gold, monkeypatch)
    threading.Timer(0.3, gate.open.set).start()
    with qtbot.assertNotEmitted(learning.retrained, wait=300):
        started = time.perf_counter()
        assert learning.close(10_000)
        assert time.perf_counter() - started >= 0.2                                # it waited for the retrain
    learning.request()                                                              # closed: nothing starts
    assert not learning.busy and gate.taught == [12]


def test_a_failed_retrain_says_one_line_and_the_answers_stay(qtbot, live, monkeypatch):
    learning, model, _, gold = live
    monkeypatch.setattr(learning_module, "learn", lambda *a, **k: 1 / 0)
    model.set_person_label(0, gold[0])
    with qtbot.waitSignal(learning.failed, timeout=30_000) as got:
        learning.request()
    assert got.args[0] == "Learning from your labels failed: ZeroDivisionError: division by zero"
    assert not learning.busy and model.label_of(30) == "billing" and model.learned is None


def test_a_file_opened_with_labels_already_given_retrains_at_once(qtbot):
    texts, gold = tickets(60, seed=2)
    model = table(texts)
    model.show_person_labels({r: gold[r] for r in range(12)})                       # from the store
    learning = LiveLearning(model)
    with qtbot.waitSignal(learning.retrained, timeout=60_000) as got:
        learning.set_file(texts, NAMES)
    assert got.args[0].learned.teaching.n == 12
    assert learning.close(10_000)


def until_idle(learning, timeout_s: float = 600) -> None:
    """The event loop runs, as the app's does, until the learning thread is idle. (qtbot.waitUntil
    sleeps between its checks, and the timer being measured waits for it.)"""
    loop, poll, deadline = QEventLoop(), QTimer(interval=20), time.monotonic() + timeout_s
    poll.timeout.connect(lambda: (learning.pool.activeThreadCount() == 0 or time.monotonic() > deadline)
                         and loop.quit())
    poll.start()
    loop.exec()
    poll.stop()
    assert learning.pool.activeThreadCount() == 0, f"the learning thread was still busy after {timeout_s:.0f} s"


@pytest.mark.slow
@pytest.mark.parametrize("n, taught", [(20_000, 1_000), (100_000, 2_000)])
def test_how_long_a_retrain_on_a_big_file_stalls_the_window(qtbot, n, taught):
    """n tickets, 10 labels: fitting the file's features, then a retrain on `taught` labels, then the table."""
    names = [f"label {k}" for k in range(10)]
    vocabulary = [f"w{k}" for k in range(3000)]
    words = {name: " ".join(vocabulary[k * 300:(k + 1) * 300]) for k, name in enumerate(names)}
    texts, gold = tickets(n, names, words, seed=1)
    rng = np.random.default_rng(0)
    texts = [t + " " + " ".join(rng.choice(vocabulary, 15)) for t in texts]       # words every label shares
    model = table(texts, names)
    learning = LiveLearning(model)
    with Ticks() as fitting:
        learning.set_file(texts, names)
        until_idle(learning)
    model.show_person_labels({r: gold[r] for r in range(taught)})
    with Ticks() as retraining, qtbot.waitSignal(learning.retrained, timeout=600_000) as got:
        learning.request()
    shown = {}
    for sorted_by in (None, 1):                                                     # as opened; by confidence
        proxy = TicketFilterProxy()
        proxy.setSourceModel(model)
        if sorted_by is not None:
            proxy.sort(sorted_by)
        model.apply_learned(learn(learning.thread.fitted[2], model.lm_scores, {}, names))  # back to the model's answers
        started = time.perf_counter()
        model.apply_learned(got.args[0].learned)
        shown[sorted_by] = time.perf_counter() - started
        proxy.setSourceModel(None)
    print(f"\n{n:,} tickets: fitting the features: {fitting.line}; retrain on {taught:,} labels + queue in "
          f"{got.args[0].seconds:.1f} s: {retraining.line}; showing the result on the UI thread: "
          f"{1000 * shown[None]:.0f} ms unsorted, {1000 * shown[1]:.0f} ms sorted by confidence")
    assert model.source(5000) == LEARNED
    assert learning.close(10_000)


def test_labels_before_any_model_run_are_not_called_changes_of_the_models_answers(qtbot):
    """Before a run the model has answered nothing: the learned answers change nothing of its (issue 32 item 21)."""
    texts, gold = tickets(60)
    model = TicketTableModel(pd.DataFrame({"text": texts}, dtype=object))
    model.set_label_names(NAMES)
    learning = LiveLearning(model)
    for r in range(12):
        model.set_person_label(r, gold[r])
    with qtbot.waitSignal(learning.retrained, timeout=60_000) as got:
        learning.set_file(texts, NAMES)
    result = got.args[0]
    assert result.status().endswith(f"— {result.changed:,} answer(s) from your labels alone; no model run yet")
    assert "changed since" not in result.status()
    assert learning.close(10_000)
