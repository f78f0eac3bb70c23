"""Fields that share one pass, run from the window: queue and priority, both direct-after, are one job
on the worker (axes_job.run_axes_job). Each batch fills both decision columns, the status line says
so, Cancel stops after the batch in flight and Run again resumes from what the pass stored per field;
a person's label on each field stays that field's. An edit of one field runs that field alone again,
as that field's own method says.

The real SmolLM2 on the helpdesk file's shortest tickets: what is checked is the window around the pass.
"""

from __future__ import annotations

import json
import os
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from triage_app.engine import axes_pass
from triage_app.engine.methods.direct_after import DirectAfterMethod
from triage_app.engine.build import axes_classifiers
from triage_app.files.clean import clean_texts
from test_ui_axes import HELPDESK_AXES, helpdesk_rows, select, stored, write_helpdesk
from ui_helpers import Relay, make_window, open_file, run_and_wait, save_shot, settings_file, with_model  # noqa: F401

N = 8
AFTER = "direct-after"
TOLERANCE = DirectAfterMethod.TOLERANCE["float32"]


@pytest.fixture
def passes(monkeypatch) -> list:
    """Every one pass the engine runs (AxesPass.run), as the label names of the fields it runs."""
    seen, real = [], axes_pass.AxesPass.run

    def run(self, *args, **kwargs):
        seen.append([c.label_set.names for c in self.classifiers])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(axes_pass.AxesPass, "run", run)
    return seen


def window_on(qtbot, make_window, smollm2, tmp_path, methods: dict[str, str], n: int = N, batch_size: int = 4,
              described: bool = False):
    """A window on the n shortest helpdesk tickets, queue and priority scored with methods' (the rest: the
    run's). Their labels without descriptions unless described: direct-after reads them after every
    ticket, and the descriptions would make each pass some times longer for nothing these tests check."""
    data = json.loads(HELPDESK_AXES.read_text())
    for axis in data["axes"]:
        if not described:
            axis["labels"] = [label["name"] for label in axis["labels"]]
        if axis["name"] in methods:
            axis["method"] = methods[axis["name"]]
    path = tmp_path / "axes.json"
    path.write_text(json.dumps(data))
    window = make_window()
    window.remembered.batch_size = batch_size
    with_model(qtbot, window, smollm2)
    assert window.labels_panel.load(str(path))
    rows = sorted(helpdesk_rows(), key=lambda row: len(row["body"]))[:n]
    open_file(qtbot, window, write_helpdesk(tmp_path, rows))
    return window


_ALONE: dict = {}


def alone(smollm2, window) -> dict[str, dict]:
    """Each field run alone in the engine (Classifier.run) on what the window's run read: field -> row ->
    Prediction (the same for every test on the same tickets and fields: run once)."""
    read = clean_texts(window.texts, window.remembered.cleaning)
    settings = window.remembered.run_settings()
    key = (tuple(read), window.axes, settings.scoring, settings.max_ticket_tokens)
    if key not in _ALONE:
        classifiers = axes_classifiers(smollm2, window.axes, settings)
        _ALONE[key] = {axis.name: {p.index: p for batch in c.run(read, settings.run) for p in batch.predictions}
                       for axis, c in zip(window.axes, classifiers)}
    return _ALONE[key]


def assert_as_alone(window, expected: dict[str, dict]) -> None:
    for axis, found in expected.items():
        answers = window.model.answers_of(axis)
        assert answers.rows_answered == len(found) == N
        for row, p in found.items():
            got = answers.prediction(row)
            assert got.label == p.label, (axis, row)
            assert max(abs(a - b) for a, b in zip(got.scores, p.scores)) < TOLERANCE, (axis, row)


def held_after(monkeypatch, tickets: int) -> threading.Event:
    """The pass waits after the batch that has scored this many tickets until the event is set (by the
    test, on the main thread, once its progress shows as many rows)."""
    gate, real = threading.Event(), axes_pass.AxesPass.run

    def held(self, *args, **kwargs):
        scored = 0
        for batch in real(self, *args, **kwargs):
            yield batch
            scored += len(batch.predictions[0])
            if scored >= tickets and not gate.is_set():
                assert gate.wait(60)

    monkeypatch.setattr(axes_pass.AxesPass, "run", held)
    return gate


def give(window, row: int, axis: str, key) -> dict[int, str]:
    """A person's label on a row of a field, by key as in the window; the field's labels given so far."""
    select(window, row, axis)
    QTest.keyClick(window.view, key)
    return window.model.answers_of(axis).person_labels


def test_two_direct_after_fields_run_in_one_pass_as_each_runs_alone(qtbot, make_window, smollm2, tmp_path, passes):
    window = window_on(qtbot, make_window, smollm2, tmp_path, {"queue": AFTER, "priority": AFTER})
    given = {"queue": give(window, 0, "queue", Qt.Key.Key_2), "priority": give(window, 1, "priority", Qt.Key.Key_3)}
    assert [len(labels) for labels in given.values()] == [1, 1] and given["queue"] != given["priority"]
    fields, started, lines = Relay(window.worker.fields_started), Relay(window.worker.started), []
    window.statusBar().messageChanged.connect(lines.append)
    assert run_and_wait(qtbot, window) == "done"
    # one job: one engine pass for both fields, said as such while it ran
    assert len(started.seen) == 1 and [f.names for f in fields.seen] == [["queue", "priority"]]
    assert passes == [[axis.names for axis in window.axes]]
    assert "Running queue and priority in one pass…" in lines
    assert window.run_panel.bar.maximum() == N and window.run_panel.bar.format().startswith(f"{N} / {N}")
    assert_as_alone(window, alone(smollm2, window))
    window.db.flush()
    for axis, labels in given.items():       # each field keeps its own person's label, in the table and stored
        assert window.model.answers_of(axis).person_labels == labels
        assert stored(tmp_path, window, axis) == labels


def test_cancel_mid_pass_then_run_again_resumes_with_the_same_labels(qtbot, make_window, smollm2, tmp_path,
                                                                   monkeypatch, passes):
    """The pass is held after its first batch until the window has cancelled: Cancel then stops after the
    batch in flight, deterministically."""
    window = window_on(qtbot, make_window, smollm2, tmp_path, {"queue": AFTER, "priority": AFTER}, batch_size=2)
    gate = held_after(monkeypatch, 1)
    progress = Relay(window.worker.progress)        # after the window's own slots: the batch is in the table
    shown = []

    def first_batch(step):
        if step.rows_done and not gate.is_set():
            shown.append([window.model.answers_of(a).rows_answered for a in ("queue", "priority")])
            window.cancel()
            gate.set()

    progress.received.connect(first_batch)
    assert run_and_wait(qtbot, window) == "cancelled"
    kept = [window.model.answers_of(a).rows_answered for a in ("queue", "priority")]
    assert shown[0][0] == shown[0][1] > 0 and kept[0] == kept[1] and shown[0][0] < kept[0] < N   # the batch in flight
    progress.seen.clear()
    assert run_and_wait(qtbot, window) == "done"
    again = [p for p in progress.seen if p.run_id == window.runs.latest.id]
    assert again[0].resumed == kept[0] and again[-1].stats.done == N - kept[0]     # only the rest was scored
    assert len(passes) == 2
    assert_as_alone(window, alone(smollm2, window))


def test_the_window_while_two_fields_run_in_one_pass(qtbot, make_window, smollm2, tmp_path, monkeypatch):
    """The screenshot in docs/window.md, mid-run: both decision columns filling batch by batch, the status
    line naming the fields of the pass, the bar counting tickets (with TRIAGE_SHOTS=1 the 24 shortest
    helpdesk tickets, labels described as shipped; N without descriptions otherwise)."""
    shots = bool(os.environ.get("TRIAGE_SHOTS"))
    n = 24 if shots else N
    window = window_on(qtbot, make_window, smollm2, tmp_path, {"queue": AFTER, "priority": AFTER}, n=n,
                       described=shots)
    gate = held_after(monkeypatch, n // 2)
    progress, seen = Relay(window.worker.progress), []

    def mid_run(step):
        if step.rows_done >= n // 2 and not gate.is_set():
            window.summary.refresh()
            seen.append((window.statusBar().currentMessage(), window.run_panel.bar.format(),
                         [window.model.answers_of(a).rows_answered for a in ("queue", "priority")]))
            save_shot(window, "window-fields-one-pass.png", tmp_path)
            gate.set()

    progress.received.connect(mid_run)
    assert run_and_wait(qtbot, window, timeout=600_000) == "done"
    line, bar, answered = seen[0]
    assert line == "Running queue and priority in one pass…" and bar.startswith(f"{answered[0]} / {n}")
    assert n // 2 <= answered[0] == answered[1] < n          # the bar counts tickets, both fields have them


def test_an_edit_of_one_field_runs_that_field_alone_as_its_own_method_says(qtbot, make_window, smollm2, tmp_path,
                                                                          passes):
    """queue is scored with the run's channel (an edit re-scores only what it changed), priority names
    direct-after (an edit re-scores every ticket, so the window waits for Run). Neither run touches the other."""
    window = window_on(qtbot, make_window, smollm2, tmp_path, {"priority": AFTER}, n=6)
    assert window.remembered.method == "channel"
    fields = Relay(window.worker.fields_started)
    assert run_and_wait(qtbot, window) == "done"
    assert [f.names for f in fields.seen] == [["queue"], ["priority"]] and passes == []   # one can share with none
    priority = [window.model.answers_of("priority").prediction(r) for r in range(6)]
    window.choose_axis("queue")
    assert "re-scores only the label it changes" in window.labels_panel.edit_note.text()
    fields.seen.clear()
    with qtbot.waitSignal(window.run_ended, timeout=120_000) as ended:
        window.labels_panel.add_label()                     # queue: runs again by itself, queue alone
    assert ended.args == ["done"] and [f.names for f in fields.seen] == [["queue"]]
    assert window.model.answers_of("queue").rows_answered == 6
    assert [window.model.answers_of("priority").prediction(r) for r in range(6)] == priority
    window.choose_axis("priority")
    assert "re-scores every ticket" in window.labels_panel.edit_note.text()
    window.labels_panel.add_label()                         # priority: direct-after, nothing runs by itself
    qtbot.wait(300)
    assert not window.running and [f.names for f in fields.seen] == [["queue"]]
    assert "Run again" in window.statusBar().currentMessage()


def test_show_prompt_and_verify_use_the_selected_fields_own_method_and_every_field(qtbot, make_window, smollm2,
                                                                                  tmp_path, monkeypatch):
    """Both fields name direct-fields (the run's method is channel): priority's prompt names queue's labels
    too and asks for priority after the ticket. Verify checks the selected field as a run scores it."""
    from triage_app.engine import verify as verify_module

    window = window_on(qtbot, make_window, smollm2, tmp_path, {"queue": "direct-fields", "priority": "direct-fields"},
                       n=3)
    prompt = axes_classifiers(smollm2, window.axes, window.remembered.run_settings())[1].method.prompt
    prompted = Relay(window.worker.prompt_ready)
    select(window, 1, "priority")
    with qtbot.waitSignal(prompted.received, timeout=60_000):
        window.show_prompt()
    qtbot.waitUntil(lambda: window.prompt_preview.plain_text != "")
    shown = window.prompt_preview.plain_text
    assert shown.startswith(prompt.text) and shown.endswith(prompt.tail) and prompt.tail.endswith("priority:")
    assert all(name in prompt.text for name in window.axes.named("queue").names)   # every field is named
    window.prompt_preview.close()
    verified, checked, real = Relay(window.worker.verify_done), [], verify_module.verify
    monkeypatch.setattr(verify_module, "verify",
                        lambda classifier, *args: checked.append(classifier.method.prompt.ids) or real(classifier, *args))
    with qtbot.waitSignal(verified.received, timeout=120_000) as blocker:
        window.verify(2)
    assert blocker.args[0].ok and blocker.args[0].probes == 2
    assert checked == [prompt.ids]     # the field's own prompt: direct-fields, every field named
