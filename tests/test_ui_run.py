"""Runs with the real SmolLM2 (the session's loaded model): labels fill in, cancel keeps finished
rows, person's labels survive a re-run, export round-trips, accuracy, verify, responsiveness.

The tickets are a stretch of the sample whose texts are short: what these tests check is the
window around the model, and the model's time grows with every token it reads.
"""

import gc
import math
import time

import pandas as pd
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from triage_app.engine.classifier import Classifier
from triage_app.engine.config import METHOD_LIMIT, Scoring
from triage_app.files.clean import clean, clean_texts
from triage_app.files.store import ResultStore
from ui_helpers import (Relay, make_window, open_file, run_and_wait, sample_rows, settings_file,  # noqa: F401
                        with_model, write_slice)

SHORT = 380   # from sample row 380 the tickets are short (the first twelve 61 to 366 characters), all three categories


@pytest.fixture
def ready(qtbot, make_window, smollm2, tmp_path):
    """A window with the model adopted and n sample tickets open."""
    def make(n, start=SHORT, batch_size=4):
        window = make_window()
        window.remembered.batch_size = batch_size
        with_model(qtbot, window, smollm2)
        open_file(qtbot, window, write_slice(tmp_path, n, start))
        return window
    return make


def test_a_run_fills_labels_batch_by_batch(qtbot, ready, smollm2):
    window = ready(8)
    started, done, finished = (Relay(s) for s in (window.worker.started, window.worker.batch_done,
                                                  window.worker.finished))
    checks = [lambda run_id: True, lambda batch: len(batch.predictions) > 0, lambda run_id: True]
    with qtbot.waitSignals([started.received, done.received, finished.received],
                           check_params_cbs=checks, order="simple", timeout=120_000):
        window.run()
    qtbot.waitUntil(lambda: not window.running)
    batches = done.seen
    model, names = window.model, window.label_set.names
    assert model.rows_answered == 8
    assert sorted(p.index for b in batches for p in b.predictions) == list(range(8))
    assert len(batches) >= 2                                            # batch by batch, not all at the end
    for row in range(8):
        p = model.prediction(row)
        assert model.label_of(row) in names
        assert model.confidence(row) == pytest.approx(max(math.exp(s) for s in p.scores))
        assert 0 <= model.margin(row) <= model.confidence(row) <= 1
    # the same labels the engine gives on its own
    read = clean_texts(window.texts, window.remembered.cleaning)          # what a run feeds the model
    alone = {p.index: p.label for b in Classifier(smollm2, window.label_set, max_ticket_tokens=METHOD_LIMIT).run(read)
             for p in b.predictions}
    assert [model.label_of(r) for r in range(8)] == [alone[r] for r in range(8)]
    # the run panel shows the engine's numbers
    panel = window.run_panel
    assert panel.bar.value() == 8 and "done" in panel.bar.format()
    assert panel.values["items_per_s"].text() != "–" and "%" in panel.values["padding"].text()
    assert len(panel.points) >= 1


def test_cancel_keeps_every_finished_row(qtbot, ready, tmp_path):
    window = ready(24, batch_size=4)
    answered = []

    def on_batch(batch):
        answered.extend(p.index for p in batch.predictions)
        window.cancel()

    batches = Relay(window.worker.batch_done)
    batches.received.connect(on_batch)          # on this thread: cancel() touches widgets
    assert run_and_wait(qtbot, window) == "cancelled"
    assert 0 < len(answered) < 24
    assert window.model.rows_answered == len(answered)
    assert sorted(r for r in range(24) if window.model.prediction(r) is not None) == sorted(answered)
    assert "cancelled" in window.run_panel.bar.format()
    # finished rows were saved: the next run starts from them
    batches.received.disconnect(on_batch)
    progress = Relay(window.worker.progress)
    with qtbot.waitSignal(progress.received, timeout=60_000):
        window.run()
    window.cancel()
    qtbot.waitUntil(lambda: not window.running, timeout=60_000)
    assert progress.seen[0].resumed == len(answered)


def test_person_label_survives_a_rerun_and_is_stored(qtbot, ready, tmp_path):
    window = ready(4)
    run_and_wait(qtbot, window)
    names, model = window.label_set.names, window.model
    predicted = model.predicted_label(0)
    choice = next(n for n in names if n != predicted)
    window.view.setFocus()
    window.view.selectRow(0)
    QTest.keyClick(window.view, Qt.Key.Key_1 + names.index(choice))    # "2" labels with the 2nd label...
    assert model.label_of(0) == choice and model.is_person_label(0)

    def stored():
        with ResultStore(tmp_path / "results.sqlite3") as store:
            return store.person_labels(window.labelling.person.file, window.labelling.person.row_hashes).labels
    qtbot.waitUntil(lambda: stored() == {0: choice})                   # written off the UI thread
    run_and_wait(qtbot, window, fresh=True)                             # the model answers row 0 again...
    assert model.predicted_label(0) == predicted
    assert model.label_of(0) == choice and model.is_person_label(0)          # ...and the person's label stands
    # a new window on the same file finds it again
    again = ready(4)
    assert again.model.person_labels == {0: choice}
    # the dropdown delegate sets labels too, and its first entry gives the row back to the model
    view = window.view
    index = window.proxy.index(1, 0)
    view.edit(index)
    editor = view.indexWidget(index) or view.findChild(type(view.itemDelegateForColumn(0).createEditor(
        view.viewport(), None, index)))
    assert editor is not None
    editor.setCurrentIndex(editor.findData(choice))
    view.commitData(editor)
    assert model.label_of(1) == choice and model.is_person_label(1)
    window.view.selectRow(0)
    QTest.keyClick(window.view, Qt.Key.Key_0)
    assert not model.is_person_label(0) and model.label_of(0) == predicted


def read_back(path):
    if path.suffix == ".csv":
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    if path.suffix == ".xlsx":
        return pd.read_excel(path, dtype=str, keep_default_na=False)
    return pd.read_json(path, orient="records", dtype=False)


def test_export_round_trips(qtbot, ready, tmp_path):
    window = ready(6)
    run_and_wait(qtbot, window)
    window.model.set_person_label(2, window.label_set.names[0])
    rows = sample_rows()[SHORT:SHORT + 6]
    original = list(rows[0])
    names = window.label_set.names
    p0 = window.model.prediction(0).probabilities
    for suffix in ("csv", "xlsx", "json"):      # one run, each format written from it
        path = window.export_to(tmp_path / f"out.{suffix}")
        assert path is not None and path.is_file(), suffix
        back = read_back(path)
        assert list(back.columns)[:len(original)] == original, suffix
        assert {"label", "confidence", "margin", "person", *[f"p_{n}" for n in names]} <= set(back.columns), suffix
        assert back["id"].astype(str).tolist() == [r["id"] for r in rows], suffix    # every row, in order
        assert back["text"].astype(str).tolist() == [r["text"] for r in rows], suffix
        assert back["label"].astype(str).tolist() == [window.model.label_of(r) for r in range(6)], suffix
        person_labels = back["person"].astype(str).str.lower().tolist()
        assert person_labels == ["true" if r == 2 else "false" for r in range(6)], suffix
        assert [float(back[f"p_{n}"][0]) for n in names] == pytest.approx(p0, rel=1e-6), suffix


def test_accuracy_against_the_gold_column(qtbot, ready):
    window = ready(10)
    run_and_wait(qtbot, window)
    gold = [r["category"] for r in sample_rows()[SHORT:SHORT + 10]]
    predicted = [window.model.predicted_label(r) for r in range(10)]
    pairs = [(g, p) for g, p in zip(gold, predicted) if p is not None]
    expected = sum(g == p for g, p in pairs) / len(pairs)
    qtbot.waitUntil(lambda: window.accuracy_panel.scores is not None and window.accuracy_panel.scores.n == 10)
    scores = window.accuracy_panel.scores
    assert scores.accuracy == pytest.approx(expected)
    assert f"{100 * expected:.1f}%" in window.accuracy_panel.headline.text()
    # the confidences against the same column: is "review everything under 70%" sane here?
    mean_confidence = sum(window.model.confidence(r) for r in range(10)) / 10
    calibration = window.accuracy_panel.calibration.text()
    assert 0 <= scores.ece <= 1 and f"{scores.ece:.3f}" in calibration
    assert f"{100 * mean_confidence:.0f}%" in calibration
    gap = mean_confidence - expected
    assert ("is close to" if abs(gap) < 0.02 else "overstates" if gap > 0 else "understates") in calibration
    names = window.label_set.names
    for k, name in enumerate(names):
        assert scores.confusion[k] == [sum(g == name and p == col for g, p in pairs) for col in names]
        predicted_as = sum(p == name for _, p in pairs)
        hits = sum(g == p == name for g, p in pairs)
        assert scores.per_label[name].precision == (hits / predicted_as if predicted_as else None)
    # a person's label is a correction, not a prediction: accuracy does not move
    wrong = next(r for r in range(10) if predicted[r] != gold[r]) if expected < 1 else 0
    window.model.set_person_label(wrong, gold[wrong])
    window.summary.refresh()
    assert window.accuracy_panel.scores.accuracy == pytest.approx(expected)
    window.columns.gold.setCurrentText("none")
    qtbot.waitUntil(lambda: window.accuracy_panel.scores is None)
    assert window.accuracy_panel.calibration.text() == ""


def test_the_window_stays_responsive_during_a_run(qtbot, ready):
    window = ready(12)
    # the garbage of the tests before this one, not the run's: late in the suite a full collection of it on
    # the UI thread's collector (ui/ui_thread_gc.py) stalled the loop for a second inside the run once
    gc.collect()
    gaps, last = [], [None]

    def tick():
        now = time.perf_counter()
        if last[0] is not None:
            gaps.append(now - last[0])
        last[0] = now

    timer = QTimer(interval=20)
    timer.timeout.connect(tick)
    batches, started = Relay(window.worker.batch_done), Relay(window.worker.started)
    started.received.connect(timer.start)
    run_and_wait(qtbot, window)
    timer.stop()
    assert len(batches.seen) >= 2 and len(gaps) > 20
    assert max(gaps) < 0.5, f"the event loop stalled for {max(gaps):.2f} s during the run"


def test_scoring_method_chosen_in_settings_reaches_the_run(qtbot, ready, smollm2):
    window = ready(4)
    window.remembered.method = "direct"          # not the default
    assert run_and_wait(qtbot, window) == "done"
    direct = Classifier(smollm2, window.label_set, scoring=Scoring(method="direct"))
    read = clean_texts(window.texts, window.remembered.cleaning)
    alone = {p.index: p for b in direct.run(read) for p in b.predictions}
    for row in range(4):
        assert window.model.prediction(row).scores == pytest.approx(alone[row].scores, abs=1e-4)


def test_verify_reports_agreement(qtbot, ready):
    window = ready(6)
    verified = Relay(window.worker.verify_done)
    with qtbot.waitSignal(verified.received, timeout=120_000) as blocker:
        window.verify(probes=3)
    report = blocker.args[0]
    assert report.probes == 3
    assert report.ok, report.summary()
    assert "agrees" in window.run_panel.verify_result.text() and report.summary() in window.run_panel.verify_result.text()


def test_prompt_preview_with_a_model(qtbot, ready, smollm2, tmp_path):
    window = ready(3)
    window.view.selectRow(1)
    prompted = Relay(window.worker.prompt_ready)
    with qtbot.waitSignal(prompted.received, timeout=60_000):
        window.show_prompt()
    qtbot.waitUntil(lambda: window.prompt_preview.plain_text != "")   # delivered to the dialog on this thread
    # channel scoring (the default): the preview shows a label's own prompt, what the model reads
    assert "Channel scoring" in window.prompt_preview.summary.text()
    channel = Classifier(smollm2, window.label_set, scoring=Scoring(method="channel")).method.channel
    ticket = clean(window.texts[1], window.remembered.cleaning).strip()    # what a run feeds the model
    assert window.prompt_preview.plain_text == channel.texts[0] + ticket
    QApplication.processEvents()
    window.prompt_preview.grab().save(str(tmp_path / "channel-preview.png"))
    # direct scoring: one prompt, the ticket inside it
    window.remembered.method = "direct"
    with qtbot.waitSignal(prompted.received, timeout=60_000):
        window.show_prompt()
    qtbot.waitUntil(lambda: "Channel scoring" not in window.prompt_preview.summary.text())
    prompt = Classifier(smollm2, window.label_set, scoring=Scoring(method="direct")).prompt
    assert window.prompt_preview.plain_text == prompt.text + ticket + prompt.tail
    assert f"{len(prompt.ids):,} tokens" in window.prompt_preview.summary.text()
    window.prompt_preview.close()


def test_model_errors_are_messages_and_the_window_keeps_working(qtbot, ready, make_window, smollm2, tmp_path):
    window = make_window()
    window.remembered.allow_download = False
    open_file(qtbot, window, write_slice(tmp_path, 4, start=SHORT))
    # the window's own signal: it fires on this thread once the banner shows the worker's message
    with qtbot.waitSignal(window.error_shown, timeout=60_000) as blocker:
        window.load_model("qwen2.5-0.5b")
    assert "Hugging Face cache" in blocker.args[0]
    # not downloaded is said as it is, with the bundled model offered in the same place
    assert window.banner_text.text() == blocker.args[0] and window.banner.isVisible()
    assert window.bundled_button.isVisible()
    assert "Not loaded" in window.model_panel.status.text()
    with qtbot.waitSignal(window.error_shown, timeout=60_000) as blocker:
        window.load_model(str(tmp_path / "nothing.gguf"))
    assert "no such GGUF file" in blocker.args[0]
    assert "could not be loaded" in window.banner_text.text() and not window.bundled_button.isVisible()
    # a run asked for while the model fails to load did not start (it is not "cancelled"), and the next one works
    window.model_panel.set_spec(str(tmp_path / "nothing.gguf"))
    assert run_and_wait(qtbot, window) == "failed"
    assert "did not start" in window.run_panel.bar.format()
    with_model(qtbot, window, smollm2)
    assert run_and_wait(qtbot, window) == "done"
    assert window.model.rows_answered == 4
