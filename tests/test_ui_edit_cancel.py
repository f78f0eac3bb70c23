"""A label's description edited after a run (its names the same): the window scores again what the edit
changed by itself. Cancelled part way, the table and the export hold answers of the new wording only,
each of them the answer a full run on it gives; the rows it had not reached yet wait, unanswered, for Run.

The real SmolLM2 on a few short sample tickets, scored with channel (whose edits re-run by themselves).
"""

from __future__ import annotations

import pandas as pd

from test_ui_run import SHORT, ready  # noqa: F401
from ui_helpers import Relay, make_window, run_and_wait, save_shot, settings_file  # noqa: F401

N = 8
NEW_WORDING = "a card that has not arrived, card delivery and tracking"


def test_a_rescore_cancelled_after_a_description_edit_never_mixes_in_the_old_wordings_answers(qtbot, ready, tmp_path):
    window = ready(N, SHORT, batch_size=2)
    assert window.remembered.method == "channel"
    assert run_and_wait(qtbot, window) == "done" and window.model.rows_answered == N
    first = window.latest.id
    batches, rescored = Relay(window.worker.batch_done), []

    def cancel_after_the_first_batch(batch):
        if batch.run_id != first:
            rescored.extend(p.index for p in batch.predictions)
            window.cancel()

    batches.received.connect(cancel_after_the_first_batch)
    with qtbot.waitSignal(window.run_ended, timeout=120_000) as ended:
        window.labels_panel.labels.item(0, 1).setText(NEW_WORDING)       # billing's description; names stay
    assert ended.args == ["cancelled"] and 0 < len(rescored) < N
    model = window.model
    shown = {r: model.label_of(r) for r in range(N) if model.prediction(r) is not None}
    assert sorted(shown) == sorted(rescored), "rows still show answers scored on the old description"
    assert window.statusBar().currentMessage() == f"Cancelled: the {len(rescored)} rows labeled so far are kept."
    exported = pd.read_csv(window.export_to(tmp_path / "after_cancel.csv"), keep_default_na=False)
    save_shot(window, "rescore_cancelled.png", tmp_path)

    batches.received.disconnect(cancel_after_the_first_batch)
    assert run_and_wait(qtbot, window) == "done" and model.rows_answered == N      # the new wording, whole
    assert {r: model.label_of(r) for r in shown} == shown
    assert exported["label"].tolist() == [shown.get(r, "") for r in range(N)]
