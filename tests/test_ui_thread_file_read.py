"""Issue 32 item 7: the UI thread's own work as a big file appears (MainWindow._file_read): its answers allocate
nothing per label before the first answer, live learning keeps the window's list of texts instead of copying
and comparing it, and a big file's objects are kept out of the UI thread's collections (docs/files.md)."""

from __future__ import annotations

import gc
import math
import tracemalloc

import numpy as np
import pytest
import pandas as pd
from ui_helpers import make_window, open_file, sample_rows, settings_file, write_slice  # noqa: F401

from triage_app.engine.prediction import Prediction
from triage_app.learn.model import LEARNED, MODEL
from triage_app.review.answers import FileAnswers
from triage_app.ui import ui_thread_gc
from triage_app.ui.learning.live import LiveLearning
from triage_app.ui.table.model import TicketTableModel

ROWS = 499_000       # the row limit
LABELS = [f"intent {k}" for k in range(20)]
NAMES = ["billing", "technical", "account"]
WORDS = {"billing": "invoice charge refund price receipt", "technical": "error crash bug outage timeout",
         "account": "login password user profile email"}


def tickets(n: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(0)
    gold = [NAMES[r % len(NAMES)] for r in range(n)]
    return [" ".join(rng.choice(WORDS[g].split(), 3).tolist() + ["please", "help"]) for g in gold], gold


def table(texts: list[str]) -> TicketTableModel:
    """A file no run has answered yet."""
    model = TicketTableModel(pd.DataFrame({"text": texts}, dtype=object))
    model.set_label_names(NAMES)
    return model


def test_a_big_files_answers_allocate_no_row_per_label_before_the_first_answer():
    tracemalloc.start()
    try:
        answers = FileAnswers(ROWS, LABELS)
        allocated = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert allocated < ROWS * len(LABELS) * 8        # one [N, L] float64 array; the old clear made two, and more
    assert answers.label_column[ROWS - 1] is None and math.isnan(answers.confidence_column[0])
    assert np.isnan(answers.lm_scores).all() and answers.lm_scores.shape == (ROWS, len(LABELS))
    assert answers.sources[:2] == [MODEL, MODEL] and answers.answered_rows().size == 0
    assert answers.label_indexes()[7] == -1 and answers.prediction(3) is None and answers.label_of(3) is None


def test_the_first_answer_writes_a_files_own_columns_never_anothers():
    names = ["billing", "technical"]
    first, second = FileAnswers(10, names), FileAnswers(10, names)
    assert first.apply_predictions([Prediction(4, names, [math.log(0.9), math.log(0.1)])]) == [4]
    assert first.label_of(4) == "billing" and math.isclose(first.confidence(4), 0.9)
    assert second.label_of(4) is None and second.confidence(4) is None and np.isnan(second.lm_scores).all()
    assert first.sources[4] == MODEL and first.label_of(5) is None and not np.isnan(first.lm_scores[4]).any()
    first.clear(10)
    assert first.label_of(4) is None and first.answered_rows().size == 0


def test_learned_answers_on_a_file_no_run_has_answered(qtbot):
    texts, gold = tickets(40)
    model = table(texts)                # no run: the answers are all "nothing yet"
    learning = LiveLearning(model)
    learning.retrained.connect(lambda r: model.apply_learned(r.learned))
    learning.set_file(texts, NAMES)
    for r in range(12):
        model.set_person_label(r, gold[r])
    with qtbot.waitSignal(learning.retrained, timeout=30_000):
        learning.request()
    assert learning.close(10_000)
    state = model.decisions.of()
    assert state.source(30) == LEARNED and state.label_of(30) in NAMES


def test_live_learning_keeps_the_windows_list_of_texts(qtbot):
    texts, _ = tickets(60)
    learning = LiveLearning(table(texts))
    learning.set_file(texts, NAMES)
    learning.set_file(texts, list(reversed(NAMES)))        # another label order: the same texts, not copied again
    assert learning._texts is texts
    assert learning.close(10_000)


@pytest.fixture
def frozen_cleanly():
    """Each test here leaves nothing frozen: the suite collects its windows' cycles between tests."""
    yield
    gc.unfreeze()


def test_a_big_files_objects_leave_the_ui_threads_collections(frozen_cleanly):
    texts = [f"ticket {k}" for k in range(ui_thread_gc.BIG_FILE_ROWS)]
    ui_thread_gc.file_kept(len(texts))
    assert not any(o is texts for o in gc.get_objects())
    small = [f"ticket {k}" for k in range(100)]
    ui_thread_gc.file_kept(len(small))
    assert any(o is small for o in gc.get_objects())      # a small file's are collected as ever


def test_the_window_keeps_a_big_files_texts_out_of_its_collections(qtbot, make_window, tmp_path, monkeypatch,
                                                                    frozen_cleanly):
    monkeypatch.setattr(ui_thread_gc, "BIG_FILE_ROWS", len(sample_rows()))
    window = make_window()
    open_file(qtbot, window, write_slice(tmp_path, len(sample_rows())))
    assert window._texts and not any(o is window._texts for o in gc.get_objects())


def test_the_ui_threads_collections_wait_while_a_bulk_is_built_then_collect(qapp):
    collector = ui_thread_gc.install()
    collector.check()
    collector.young = collector.deferred = 0
    records = []
    for tick in range(3):           # a reader's records, growing between ticks: not walked
        records += [{"row": k} for k in range(ui_thread_gc.BULK)]
        collector.tick()
        assert gc.get_count()[0] > ui_thread_gc.BULK * (tick + 1)
    collector.tick()                # it stopped growing: collected as ever
    assert gc.get_count()[0] < ui_thread_gc.BULK


def test_a_bulk_that_keeps_growing_is_collected_after_a_while(qapp, monkeypatch):
    monkeypatch.setattr(ui_thread_gc, "BULK", 1_000)
    collector = ui_thread_gc.install()
    collector.check()
    collector.young = collector.deferred = 0
    records, young = [], []
    for _ in range(ui_thread_gc.MOST_DEFERRED + 1):
        records += [{"row": k} for k in range(2_000)]
        collector.tick()
        young.append(gc.get_count()[0])
    assert young[-2] > 2_000 * ui_thread_gc.MOST_DEFERRED and young[-1] < 1_000
