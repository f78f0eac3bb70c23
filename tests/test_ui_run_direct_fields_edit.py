"""An edit of one direct-fields field's labels mid-run: every field of that method names the edited
field's labels in its prompt, so every one of them is scored again, and none keeps an answer (nor a
batch still on its way) scored on the prompt before the edit.

The real SmolLM2 on the helpdesk file's shortest tickets, queue and priority both direct-fields (one pass);
the pass waits before its second batch until the test has edited, so that batch is in flight at the edit.
"""

from __future__ import annotations

import threading

from triage_app.engine import axes_pass
from triage_app.engine.methods.direct_after import DirectAfterMethod
from test_ui_axes_one_pass import alone, window_on
from ui_helpers import Relay, make_window, settings_file  # noqa: F401

N = 6
FIELDS = {"queue": "direct-fields", "priority": "direct-fields"}


def held_before_second_batch(monkeypatch) -> threading.Event:
    """The first pass waits with its second batch scored, before handing it on, until the event is set."""
    gate, real = threading.Event(), axes_pass.AxesPass.run

    def held(self, *args, **kwargs):
        for k, batch in enumerate(real(self, *args, **kwargs)):
            if k == 1 and not gate.is_set():
                assert gate.wait(60)
            yield batch

    monkeypatch.setattr(axes_pass.AxesPass, "run", held)
    return gate


def test_an_edit_of_queue_scores_priority_again_and_drops_its_batch_in_flight(qtbot, make_window, smollm2,
                                                                           tmp_path, monkeypatch):
    window = window_on(qtbot, make_window, smollm2, tmp_path, FIELDS, n=N, batch_size=2)
    gate = held_before_second_batch(monkeypatch)
    fields, progress, batches, ended = (Relay(window.worker.fields_started), Relay(window.worker.progress),
                                        Relay(window.worker.batch_done), [])
    window.run_ended.connect(ended.append)
    shown_stale = []

    def first_batch(step):
        if step.rows_done and not gate.is_set():
            window.choose_axis("queue")
            window.labels_panel.labels.item(0, 1).setText("a parcel that has not arrived, tracking")
            gate.set()

    def landed(batch):      # after the window's own slot: what it showed of a batch of the prompt before
        if gate.is_set() and batch.run_id == first and batch.axis == "priority":
            shown_stale.append(window.model.answers_of("priority").rows_answered)

    progress.received.connect(first_batch)
    batches.received.connect(landed)
    first = window.run()
    qtbot.waitUntil(lambda: len(ended) == 2 and not window.running, timeout=120_000)
    assert ended == ["done", "done"]
    assert [f.names for f in fields.seen] == [["queue", "priority"], ["queue", "priority"]]
    assert shown_stale and set(shown_stale) == {0}       # the batch in flight never landed
    expected = alone(smollm2, window)                    # each field alone on the labels as edited
    for axis in FIELDS:
        answers = window.model.answers_of(axis)
        assert answers.rows_answered == N
        for row, p in expected[axis].items():
            got = answers.prediction(row)
            assert got.label == p.label, (axis, row)
            assert max(abs(a - b) for a, b in zip(got.scores, p.scores)) < DirectAfterMethod.TOLERANCE["float32"]
