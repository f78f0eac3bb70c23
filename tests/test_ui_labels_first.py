"""Labels first and "none of these" in the window (issue 34, items 6 and 7): the real window offscreen, the
bundled encoder embedding a small real file in the worker, the bundled SmolLM2 for labels first, a real
results database. What the window shows is held to run/labels_first.labels_first and to the command line's
own "none of these" rows (cli/learning.misfits), computed here on the same inputs."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from test_ui_axes import select
from test_ui_embedding import Handed, embedded
from ui_helpers import make_window, run_and_wait, save_shot, settings_file, with_model  # noqa: F401

from triage_app.cli import learning as cli_learning
from triage_app.engine.classifier import Prediction
from triage_app.engine.labels import LabelSet
from triage_app.learn import NONE_OF_THESE, LabelSimilarity, TicketFeatures
from triage_app.run.labels_first import labels_first
from triage_app.ui.panels.run_progress import EVERY_TICKET, LABELS_FIRST
from triage_app.ui.table.cell_roles import READ_MARK
from triage_app.ui.settings import SettingsDialog

pytestmark = pytest.mark.model      # the encoder loads in the worker: no fixture says so
RESOURCES = Path(__file__).resolve().parents[1] / "resources"
PER_QUEUE, TAUGHT = 8, 5
UNSURE_TOO = 14      # tickets a queue where five labels a queue leave some unsure (and some sure)


BLANK = ["", "   "]      # tickets with nothing to read
# tickets no queue of the helpdesk's is for
ASTRAY = ["Who won the football match on Saturday? My brother says it was a draw.",
          "Can you recommend a good recipe for banana bread with walnuts?"]


def opened_and_embedded(qtbot, window, tmp_path, per_queue: int = PER_QUEUE, blank: list[str] = (),
                        astray: list[str] = ()):
    """The helpdesk sample, per_queue tickets a queue, then these tickets of no queue, then these blank
    tickets, open and embedded: (texts, embeddings, field, label vectors, gold)."""
    path, gold = helpdesk_file(window, tmp_path, per_queue, blank, astray)
    handed = Handed(window.learning)
    embedded(qtbot, window, lambda: window.open_file(path))
    qtbot.waitUntil(lambda: window.embedding.settled and bool(handed.label_vectors), timeout=120_000)
    texts, vectors = handed.embeddings[-1]
    field, prototypes, *_ = handed.label_vectors[-1]
    return texts, vectors, field, prototypes, gold


def helpdesk_file(window, tmp_path, per_queue: int, blank: list[str] = (), astray: list[str] = ()):
    """opened_and_embedded's file, written, and its queues the window's label set: (path, gold)."""
    frame = pd.read_csv(RESOURCES / "helpdesk_tickets.csv").groupby("queue", sort=False).head(per_queue)
    path = tmp_path / "tickets.csv"
    with path.open("w", newline="", encoding="utf-8") as f:      # the queue: the accuracy tab's gold column
        csv.writer(f).writerows([["text", "queue"], *zip(frame["customer_message"], frame["queue"]),
                                 *([text, ""] for text in [*astray, *blank])])
    window.labels_panel.set_label_set(LabelSet.load(RESOURCES / "helpdesk_labels.json"))
    return path, frame["queue"].tolist() + [""] * (len(astray) + len(blank))


def teach(qtbot, window, field: str, gold: list[str], taught: int = TAUGHT) -> dict[int, str]:
    """taught labels a queue, given as a key press gives them; returns once learning has them all."""
    labels = {}
    for queue in window.label_set.names:
        for row in [r for r, g in enumerate(gold) if g == queue][:taught]:
            assert window.model.set_person_label(row, queue)
            labels[row] = queue
    live = window.learning.lives[field]
    qtbot.waitUntil(lambda: not live.busy and f"learned from {len(labels)} labels" in window.learning.status.text(),
                    timeout=120_000)
    return labels


def test_labels_first_in_the_window_reads_what_run_labels_first_reads_and_answers_as_it_does(
        qtbot, make_window, tmp_path, smollm2):
    window = make_window()
    window.remembered.method = "direct"     # one pass a ticket: the test's time, not what it checks
    with_model(qtbot, window, smollm2)
    texts, vectors, field, prototypes, gold = opened_and_embedded(qtbot, window, tmp_path, UNSURE_TOO)
    item = window.run_panel.method.model().item(LABELS_FIRST)
    assert not item.isEnabled() and "label a few tickets" in window.run_panel.method_note.text()
    save_shot(window.run_panel, "run-panel-labels-first-waiting.png", tmp_path)
    labels = teach(qtbot, window, field, gold)
    qtbot.waitUntil(item.isEnabled, timeout=10_000)
    window.run_panel.method.setCurrentIndex(LABELS_FIRST)

    assert run_and_wait(qtbot, window, timeout=600_000) == "done"
    answers = window.model.answers_of(field)
    qtbot.waitUntil(lambda: not window.learning.lives[field].busy, timeout=60_000)
    read = answers.read_by_model()
    names = window.label_set.names

    def score(rows: list[int]) -> list:     # the model's scores as the window's run gave them, read rows only
        assert all(read[r] for r in rows), "labels_first asks for a ticket the window's run did not read"
        return [answers.prediction(r) for r in rows]

    want = labels_first(TicketFeatures(texts, vectors), names, labels, score, LabelSimilarity.of(vectors, prototypes))
    assert np.array_equal(read, want.read)
    print(f"labels first: {read.sum()} read of {len(texts)}, {want.unsure} unsure")
    assert read[list(labels)].all() and read.sum() == len(labels) + want.unsure < len(texts)
    # on this file the weighing leaves SmolLM2's scores out: no unsure ticket is read, and the run says why
    # (a model that counts, and the tickets it then reads: tests/test_labels_first.py)
    assert want.unsure == 0 and want.not_sent > 0
    assert f"The {want.not_sent} of those under 90% sure were not sent" in window.run_panel.method_note.text()
    shown = [window.model.label_of(r) for r in range(len(texts))]
    assert None not in shown
    assert shown == [labels.get(r, names[k]) for r, k in enumerate(want.learned.labels)]
    open_rows = [r for r in range(len(texts)) if r not in labels]
    assert np.allclose([answers.confidence(r) for r in open_rows], want.learned.confidence[open_rows])
    assert f"read {read.sum()} of {len(texts)}" in window.run_panel.method_note.text()

    exported = pd.read_csv(window.export_to(tmp_path / "out.csv"))
    assert exported[cli_learning.READ_COLUMN].tolist() == read.tolist()
    qtbot.wait(200)
    save_shot(window, "window-labels-first.png", tmp_path)

    # a hunt's finding: an edit of the field's labels drops what the model read, and the line about it stayed
    window.labels_panel.labels.item(0, 0).setText(names[0] + " (renamed)")
    qtbot.waitUntil(lambda: answers.read_by_model() is None and "read" not in window.run_panel.method_note.text(),
                    timeout=60_000)


def test_labels_first_with_no_encoder_reads_words_as_the_command_lines_does(qtbot, make_window, tmp_path, smollm2,
                                                                            monkeypatch):
    # `classify --encoder none --labels-first` learns on words; the window refused to run
    window = make_window()
    window.remembered.method = "direct"     # one pass a ticket: the test's time, not what it checks
    with_model(qtbot, window, smollm2)
    monkeypatch.setattr(SettingsDialog, "exec", lambda dialog: dialog.encoder.setText("none") or True)
    window.settings_dialog()
    path, gold = helpdesk_file(window, tmp_path, PER_QUEUE)
    with qtbot.waitSignal(window.file_loaded, timeout=20_000):
        window.open_file(path)
    assert window.embedding.on_words
    field, texts = window.fields.current, list(window.texts)
    labels = teach(qtbot, window, field, gold)
    assert window.labels_first.why_not() == ""
    window.run_panel.method.setCurrentIndex(LABELS_FIRST)
    assert run_and_wait(qtbot, window, timeout=600_000) == "done"
    # the short line on the status bar (the whole sentence was cut there, under the counts); the whole one stands
    assert window.statusBar().currentMessage().startswith("Done: the model read")
    assert window.run_panel.method_note.text().startswith("Labels first: the language model read")
    answers = window.model.answers_of(field)
    read = answers.read_by_model()
    want = labels_first(TicketFeatures(texts), window.label_set.names, labels,
                        lambda rows: [answers.prediction(r) for r in rows])
    assert np.array_equal(read, want.read) and read[list(labels)].all()
    assert [window.model.label_of(r) for r in range(len(texts))] == \
        [labels.get(r, window.label_set.names[k]) for r, k in enumerate(want.learned.labels)]


def test_a_run_of_every_ticket_after_labels_first_answers_as_any_run_does(qtbot, make_window, tmp_path, tiny_qwen,
                                                                           monkeypatch):
    # a hunt's finding: the field stayed labels first: every row marked read and exported as read_by_model, and
    # learning's unsettled rows never settled (Running.settle waits for no labels-first field)
    window = make_window()
    window.remembered.method = "direct"
    with_model(qtbot, window, tiny_qwen)       # random weights: what is checked is which run answered
    monkeypatch.setattr(SettingsDialog, "exec", lambda dialog: dialog.encoder.setText("none") or True)
    window.settings_dialog()
    path, gold = helpdesk_file(window, tmp_path, 3)
    with qtbot.waitSignal(window.file_loaded, timeout=20_000):
        window.open_file(path)
    field = window.fields.current
    teach(qtbot, window, field, gold, taught=2)
    window.run_panel.method.setCurrentIndex(LABELS_FIRST)
    assert run_and_wait(qtbot, window) == "done"
    answers = window.model.answers_of(field)
    read = answers.read_by_model()
    assert read is not None and not read.all()

    window.run_panel.method.setCurrentIndex(EVERY_TICKET)
    assert run_and_wait(qtbot, window) == "done"
    assert answers.read_by_model() is None and not answers.labels_first
    assert not any(READ_MARK in str(window.model.data(window.model.index(r, window.model.decisions.column(field))))
                   for r in range(len(gold)))
    assert cli_learning.READ_COLUMN not in pd.read_csv(window.export_to(tmp_path / "out.csv")).columns
    monkeypatch.setattr(window.runs, "_settle_next", lambda: None)    # asked, not run: a float32 run's time
    window.runs.settle(field, [0])
    assert window.runs.settling.next([field]) == (field, [0])


def test_none_of_these_shows_and_exports_where_the_fitted_threshold_rejects_and_a_persons_label_wins(
        qtbot, make_window, tmp_path):
    window = make_window()        # no language model: the labels and the encoder answer alone
    texts, _, field, _, gold = opened_and_embedded(qtbot, window, tmp_path, blank=BLANK, astray=ASTRAY)
    blank = list(range(len(texts) - len(BLANK), len(texts)))
    labels = teach(qtbot, window, field, gold)
    answers = window.model.answers_of(field)
    assert answers.misfit_mask().sum() == 0        # not offered: every ticket keeps a label
    # a hunt's finding: learning labelled the blank tickets, and "none of these" marked them
    assert [window.model.label_of(r) for r in blank] == [None, None]
    # the two blank tickets are one blank text, neither embedded nor said as kept from an earlier run
    assert window.model_panel.embedding.format() == f"All {len(texts) - 2:,} tickets embedded"
    window.learning.offer_none.setChecked(True)

    # what classify --none-of-these marks: its run found the blank tickets blank (no scores), the others scored
    written = [Prediction(r, answers.label_names, None if r in blank else [0.0]) for r in range(len(texts))]
    want = cli_learning.misfits(answers.learned, written, "")
    assert want and set(want).isdisjoint(labels) and set(want).isdisjoint(blank)
    assert np.flatnonzero(answers.misfit_mask()).tolist() == want
    assert [window.model.label_of(r) for r in want] == [NONE_OF_THESE] * len(want)
    # a hunt's finding: Enter on such a row agreed with nothing, said nothing and moved on
    select(window, want[0], field)
    qtbot.keyClick(window.view, Qt.Key.Key_Return)
    assert window.model.label_of(want[0]) == NONE_OF_THESE and want[0] not in answers.person_labels
    assert window.view.selected_source_rows() == [want[0]]
    assert "which is no label: press a label's key" in window.statusBar().currentMessage()
    window.summary.refresh()          # the accuracy tab counts "none of these" as an answer of no label
    assert f"{len(want)} {NONE_OF_THESE}" in window.tickets.counts.text()
    exported = pd.read_csv(window.export_to(tmp_path / "out.csv"))
    assert [r for r, label in enumerate(exported["label"]) if label == NONE_OF_THESE] == want
    assert exported["label"][blank].isna().all() and [window.model.label_of(r) for r in blank] == [None, None]
    window.view.scrollTo(window.proxy.mapFromSource(window.model.index(want[0], 0)))
    qtbot.wait(200)             # the new lines laid out before the picture
    save_shot(window, "window-none-of-these.png", tmp_path)

    row = want[0]
    queue = gold[row] or window.label_set.names[0]        # a ticket of no queue: the person files it anyway
    assert window.model.set_person_label(row, queue)
    assert window.model.label_of(row) == queue
    live = window.learning.lives[field]
    qtbot.waitUntil(lambda: not live.busy and f"learned from {len(labels) + 1} labels" in window.learning.status.text(),
                    timeout=120_000)
    assert window.model.label_of(row) == queue
    assert pd.read_csv(window.export_to(tmp_path / "after.csv"))["label"][row] == queue
