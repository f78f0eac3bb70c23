"""The window embeds each ticket once, in the one serial worker (issue 34 items 1-2): the real window
offscreen, the bundled sentence encoder and the bundled SmolLM2, a real results database.

Timing is checked relative to the embedding's own batches, never against a wall clock."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from PySide6.QtCore import QObject, Qt, Signal, Slot
from encoder_helpers import bundled_encoder
from ui_helpers import (Relay, make_window, open_file, sample_rows, save_shot, settings_file,  # noqa: F401
                        with_model)

from triage_app.files.clean import model_texts
from triage_app.files.embeddings import EmbeddingCache
from triage_app.learn.similarity import label_texts, label_vectors
from triage_app.ui.settings import SettingsDialog

pytestmark = pytest.mark.model      # the encoder loads in the worker: no fixture says so
MANY = 240      # tickets for the tests that need embedding to last: 30 batches of 8


def write_tickets(path, texts: list[str]):
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text"])
        writer.writerows([k, text] for k, text in enumerate(texts))
    return path


def sample_texts(n: int, start: int = 0) -> list[str]:
    return [row["text"] for row in sample_rows()[start:start + n]]


class Marker(QObject):
    """A mark in the main thread's queue of posted events: whatever the worker emitted before post() is
    seen before it, whatever after, after it (a worker's signals reach the main thread the same way)."""

    posted = Signal()

    def __init__(self, seen):
        super().__init__()
        self.seen = seen
        self.posted.connect(self._seen, Qt.ConnectionType.QueuedConnection)

    def post(self) -> None:
        self.posted.emit()

    @Slot()
    def _seen(self) -> None:
        self.seen()


class Handed:
    """What the window hands its learning (LearningSession.set_embeddings / set_label_vectors), recorded
    on the way."""

    def __init__(self, learning):
        self.embeddings, self.label_vectors = [], []
        for name, seen in (("set_embeddings", self.embeddings), ("set_label_vectors", self.label_vectors)):
            real = getattr(learning, name)

            def record(*args, real=real, seen=seen):
                seen.append(args)
                real(*args)
            setattr(learning, name, record)


def embedded(qtbot, window, start, timeout=180_000):
    """start() (an open, a resume), then the Embedded of the window's request."""
    relay = Relay(window.engine.embedder.embedded)
    with qtbot.waitSignal(relay.received, timeout=timeout,
                          check_params_cb=lambda found: found.request == window.embedding.request) as got:
        start()
    return got.args[0]


def identity() -> str:
    return bundled_encoder().identity


def test_opening_a_file_embeds_each_distinct_cleaned_ticket_once_and_learning_gets_every_row(
        qtbot, make_window, tmp_path):
    texts = sample_texts(20)
    # the same tickets as the model reads them: markup and a duplicate clean to a text already there
    texts += [f"<p>{texts[0]}</p>", texts[1], texts[2].replace(" ", "&nbsp;", 1)]
    path = write_tickets(tmp_path / "tickets.csv", texts)
    window = make_window()
    handed = Handed(window.learning)
    found = embedded(qtbot, window, lambda: open_file(qtbot, window, path))
    cleaned = model_texts(texts, window.remembered.cleaning)
    distinct = len(set(cleaned))
    assert distinct == 20 and found.total == distinct and found.fresh == distinct
    with EmbeddingCache(tmp_path / "results.sqlite3") as cache:
        assert cache.count(identity()) == distinct
    assert len(handed.embeddings) == 1
    rows, vectors = handed.embeddings[0]
    assert rows == window.texts and vectors.dtype == np.float32 and vectors.shape == (23, 384)
    expected = bundled_encoder().embed(cleaned)         # float16 in the database: within its rounding
    np.testing.assert_allclose(vectors, expected, atol=2e-3, rtol=0)
    assert np.array_equal(vectors[20], vectors[0]) and np.array_equal(vectors[21], vectors[1])

    again = make_window()                               # a restart: the same database, the same file
    handed_again = Handed(again.learning)
    found = embedded(qtbot, again, lambda: open_file(qtbot, again, path))
    assert (found.total, found.fresh) == (distinct, 0)
    assert np.array_equal(handed_again.embeddings[0][1], vectors)
    assert again.model_panel.embedding.text() == f"All {distinct} tickets embedded ({distinct} kept from before)"


def test_a_run_pressed_while_embedding_gets_its_first_labels_within_a_batch_and_embedding_goes_on_after(
        qtbot, make_window, smollm2, tmp_path):
    window = make_window()
    window.remembered.batch_size = 4
    with_model(qtbot, window, smollm2)
    events = []
    embedder, worker = window.engine.embedder, window.worker
    relays = [Relay(embedder.progress), Relay(worker.started), Relay(worker.batch_done), Relay(embedder.embedded)]
    for kind, relay in zip(("embedding", "started", "batch", "embedded"), relays):
        relay.received.connect(lambda value, kind=kind: events.append((kind, value)))
    texts = sample_texts(MANY, start=380)
    path = write_tickets(tmp_path / "many.csv", texts)
    with qtbot.waitSignal(relays[0].received, timeout=180_000, check_params_cb=lambda p: p.done >= 16):
        open_file(qtbot, window, path)
    asked = Marker(lambda: events.append(("asked", None)))
    with qtbot.waitSignal(window.run_ended, timeout=120_000):
        window.run(limit=4)
        asked.post()
    started = [kind for kind, _ in events].index("started")
    reached = max(value.done for kind, value in events[:started] if kind == "embedding")
    qtbot.waitUntil(lambda: any(kind == "embedding" and value.done > reached for kind, value in events[started:]),
                    timeout=60_000)
    kinds = [kind for kind, _ in events]
    first_batch = kinds.index("batch")
    # between the request and the run's start, the batch in flight at most: not the rest of the file
    between = [value for kind, value in events[kinds.index("asked"):kinds.index("started")] if kind == "embedding"]
    before = [value for kind, value in events[:first_batch] if kind == "embedding"]
    assert len(between) <= 1 and before[-1].done < before[-1].total
    assert "embedded" not in kinds[:first_batch]                # the run's first labels came first
    # and embedding went on after the run, from where it was (the stored batches read back, not embedded)
    resumed = [value for kind, value in events[started:] if kind == "embedding"]
    assert resumed[0].done == reached and resumed[-1].done > reached
    assert window.model.rows_answered == 4


def test_cancel_stops_embedding_between_batches_and_what_was_stored_is_not_embedded_again(
        qtbot, make_window, tmp_path):
    path = write_tickets(tmp_path / "some.csv", sample_texts(64))
    window = make_window()
    progress = Relay(window.engine.embedder.progress)
    with qtbot.waitSignal(progress.received, timeout=180_000, check_params_cb=lambda p: p.done >= 16):
        open_file(qtbot, window, path)
    assert window.actions.cancel.isEnabled()                    # Esc stops it: no run to stop
    names = window.label_set.names
    for row in (0, 1):                                          # labels on two labels: labels first waits
        window.model.set_person_label(row, names[row])
    stopped = Relay(window.engine.embedder.stopped)
    with qtbot.waitSignal(stopped.received, timeout=30_000):
        window.cancel()
    assert not window.embedding.busy and not window.actions.cancel.isEnabled()
    # a hunt's finding: labels first's line went on "waiting for every ticket to be embedded"
    assert "the embedding was stopped (Cancel): Run" in window.run_panel.method_note.text()
    with EmbeddingCache(tmp_path / "results.sqlite3") as cache:
        kept = cache.count(identity())
    assert 16 <= kept < 64 - 8
    found = embedded(qtbot, window, window.embedding.resume)
    assert found.fresh == found.total - kept
    qtbot.waitUntil(lambda: "stopped" not in window.run_panel.method_note.text(), timeout=30_000)


def test_label_sets_are_embedded_for_learning_and_again_after_an_edit(qtbot, make_window, tmp_path):
    window = make_window()
    handed = Handed(window.learning)
    embedded(qtbot, window, lambda: open_file(qtbot, window, write_tickets(tmp_path / "t.csv", sample_texts(12))))
    qtbot.waitUntil(lambda: window.embedding.settled, timeout=30_000)
    assert len(handed.label_vectors) == len(window.axes.names)
    axis, vectors, names = handed.label_vectors[0]
    label_set = window.axes.named(axis).label_set
    texts, owners = label_texts(label_set)
    encoder = bundled_encoder()
    # the command line's prototypes, exactly (run/embedded.label_similarity, through a cache of its own): a
    # hunt's finding, the window's were float32's, the command line's float16's, kept in the database
    from triage_app.run.embedded import label_similarity

    def kept(label_set):
        with EmbeddingCache(tmp_path / f"cli-{len(label_set.examples)}.sqlite3") as cache:
            return label_similarity(np.zeros((1, 384), dtype=np.float32), label_set, encoder, cache).prototypes

    np.testing.assert_allclose(vectors, kept(label_set), atol=1e-5)
    assert names == label_set.names and vectors.shape == (len(names), 384)

    window.labels_panel.add_example(sample_texts(1, start=30)[0], names[0])     # an edit: a new example
    assert not window.embedding.settled
    qtbot.waitUntil(lambda: window.embedding.settled, timeout=30_000)
    assert len(handed.label_vectors) == 2 * len(window.axes.names)
    label_set = window.axes.named(axis).label_set
    texts, owners = label_texts(label_set)
    assert len(label_set.examples) == 1
    np.testing.assert_allclose(handed.label_vectors[-1][1], kept(label_set), atol=1e-5)


def test_a_refused_encoder_is_one_line_and_the_window_goes_on_with_words(qtbot, make_window, tmp_path, monkeypatch):
    from triage_app.engine import encoder

    fake = tmp_path / "encoder"
    fake.mkdir()
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        (fake / name).write_text("{}")
    monkeypatch.setattr(encoder, "bundled_folder", lambda: fake)
    window = make_window()
    handed = Handed(window.learning)
    failed = Relay(window.engine.embedder.encoder_failed)
    with qtbot.waitSignal(failed.received, timeout=60_000):
        open_file(qtbot, window, write_tickets(tmp_path / "t.csv", sample_texts(6)))
    assert window.model_panel.encoder.text() == "Sentence encoder: not loaded. Learning uses words (TF-IDF) instead."
    line = window.banner_text.text()
    assert "model.safetensors: not the expected bytes" in line and line.endswith("learning uses words (TF-IDF) instead.")
    assert "\n" not in line and handed.embeddings == [] and not window.embedding.busy
    assert window.table is not None and window.actions.run.isEnabled()
    save_shot(window, "window-encoder-refused.png", tmp_path)


def test_the_encoder_is_named_beside_the_model_and_a_french_file_gets_the_multilingual_suggestion(
        qtbot, make_window, tmp_path, monkeypatch):
    window = make_window()
    french = ["Bonjour, je n'ai pas reçu ma carte bancaire et je voudrais savoir quand elle arrivera.",
              "Je voudrais annuler mon abonnement et être remboursé du dernier mois, merci.",
              "Le paiement a été débité deux fois sur ma carte, pouvez-vous me rembourser ?"]
    embedded(qtbot, window, lambda: open_file(qtbot, window, write_tickets(tmp_path / "fr.csv", french)))
    panel = window.model_panel
    assert panel.encoder.text() == "Sentence encoder: all-MiniLM-L6-v2 (bundled, checked)"
    assert panel.embedding.text() == "All 3 tickets embedded"
    assert panel.language.isVisible() and "paraphrase-multilingual-MiniLM-L12-v2" in panel.language.text()
    save_shot(window, "window-encoder-french.png", tmp_path)
    choose = lambda encoder: (lambda dialog: dialog.encoder.setText(encoder) or True)     # noqa: E731
    monkeypatch.setattr(SettingsDialog, "exec", choose("none"))     # no encoder reads them now
    window.settings_dialog()
    assert not panel.language.isVisible()       # (a hunt's finding: it still said the bundled one read them)
    monkeypatch.setattr(SettingsDialog, "exec", choose("bundled"))
    window.settings_dialog()
    embedded(qtbot, window, lambda: open_file(qtbot, window, write_tickets(tmp_path / "en.csv", sample_texts(6))))
    assert not panel.language.isVisible()


def test_another_text_cleaning_in_settings_embeds_the_tickets_as_the_model_now_reads_them(
        qtbot, make_window, tmp_path, monkeypatch):
    # a hunt's finding: the window kept the vectors of the old cleaning while runs read the new one
    texts = sample_texts(12)
    texts += [f"<p>{texts[0]}</p>", f"<b>{texts[1]}</b> thanks"]
    path = write_tickets(tmp_path / "tickets.csv", texts)
    window = make_window()
    handed = Handed(window.learning)
    embedded(qtbot, window, lambda: open_file(qtbot, window, path))
    assert window.remembered.cleaning.html

    def accepted_without_html(dialog):
        dialog.cleaning["html"].setChecked(False)
        return True
    monkeypatch.setattr(SettingsDialog, "exec", accepted_without_html)
    found = embedded(qtbot, window, window.settings_dialog)
    assert not window.remembered.cleaning.html
    cleaned = model_texts(texts, window.remembered.cleaning)
    assert cleaned[12].startswith("<p>") and (found.total, found.fresh) == (14, 2)   # the 12 others read back
    rows, vectors = handed.embeddings[-1]
    assert rows == window.texts
    np.testing.assert_allclose(vectors, bundled_encoder().embed(cleaned), atol=2e-3, rtol=0)
    before = len(handed.embeddings)
    window.settings_dialog()            # the same cleaning accepted again: nothing is embedded again
    qtbot.wait(200)
    assert len(handed.embeddings) == before and not window.embedding.busy


def another_encoder(folder):
    """MiniLM's files with a configuration of two layers: an encoder of its own (other vectors, 384 of them)."""
    import json
    import os

    from triage_app.engine.encoder import bundled_folder

    folder.mkdir()
    for path in bundled_folder().iterdir():
        if path.is_file() and path.name != "config.json":
            os.symlink(path, folder / path.name)
    config = json.loads((bundled_folder() / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(config | {"num_hidden_layers": 2}))
    return folder


def test_an_encoder_folder_chosen_in_settings_embeds_the_file_and_its_labels_with_it_and_is_remembered(
        qtbot, make_window, tmp_path, monkeypatch):
    # a hunt's finding: the window suggested a multilingual encoder but could only ever load the bundled one
    from triage_app.engine.encoder import SentenceEncoder

    texts = sample_texts(12)
    path = write_tickets(tmp_path / "tickets.csv", texts)
    window = make_window()
    handed = Handed(window.learning)
    embedded(qtbot, window, lambda: open_file(qtbot, window, path))
    qtbot.waitUntil(lambda: window.embedding.settled, timeout=30_000)
    folder = another_encoder(tmp_path / "two-layers")

    def accepted_with_the_folder(dialog):
        dialog.encoder.setText(str(folder))
        return True
    monkeypatch.setattr(SettingsDialog, "exec", accepted_with_the_folder)
    found = embedded(qtbot, window, window.settings_dialog)
    assert (found.total, found.fresh) == (12, 12)                     # nothing of the bundled one's is reused
    assert window.model_panel.encoder.text() == f"Sentence encoder: two-layers ({folder})"
    chosen = SentenceEncoder.load(folder)
    cleaned = model_texts(texts, window.remembered.cleaning)
    np.testing.assert_allclose(handed.embeddings[-1][1], chosen.embed(cleaned), atol=2e-3, rtol=0)
    assert np.abs(handed.embeddings[-1][1] - bundled_encoder().embed(cleaned)).max() > 0.1
    qtbot.waitUntil(lambda: window.embedding.settled, timeout=30_000)
    axis, vectors, names = handed.label_vectors[-1]
    label_texts_, owners = label_texts(window.axes.named(axis).label_set)
    kept = chosen.embed(label_texts_).astype(np.float16).astype(np.float32)        # as the database keeps them
    np.testing.assert_allclose(vectors, label_vectors(kept, owners, len(names)), atol=1e-5)

    again = make_window()                       # a restart: the folder is remembered, its vectors stored
    found = embedded(qtbot, again, lambda: open_file(qtbot, again, path))
    assert (found.total, found.fresh) == (12, 0) and again.remembered.encoder == str(folder)
    assert again.model_panel.encoder.text() == f"Sentence encoder: two-layers ({folder})"


def test_a_folder_refused_then_there_is_loaded_when_settings_are_accepted_again(qtbot, make_window, tmp_path, monkeypatch):
    # a hunt's findings: a refused folder stayed refused for the session, the line said "words" while learning
    # kept the earlier encoder's vectors, and the panel named the bundled encoder for a remembered folder
    path = write_tickets(tmp_path / "tickets.csv", sample_texts(8))
    window = make_window()
    handed = Handed(window.learning)
    embedded(qtbot, window, lambda: open_file(qtbot, window, path))
    folder = tmp_path / "two-layers"                                   # not there yet: refused
    monkeypatch.setattr(SettingsDialog, "exec", lambda dialog: dialog.encoder.setText(str(folder)) or True)
    failed = Relay(window.engine.embedder.encoder_failed)
    with qtbot.waitSignal(failed.received, timeout=60_000):
        window.settings_dialog()
    assert window.embedding.refused and len(handed.embeddings) == 1
    assert window.model_panel.encoder.text() == ("Sentence encoder: not loaded. "
                                                 "Learning goes on with the earlier encoder's vectors.")
    assert window.banner_text.text().endswith("learning goes on with the earlier encoder's vectors.")
    for row, label in {0: "billing", 1: "account"}.items():
        window.model.set_person_label(row, label)
    assert window.labels_first.why_not() == ""                         # it reads the vectors learning goes on with
    errors = Relay(window.error_shown)
    window.labels_panel.add_label()      # no encoder for the labels' vectors: not asked, the error not said again
    qtbot.wait(300)
    assert window.embedding.settled and not errors.seen
    another_encoder(folder)                                            # there now: the same folder, accepted again
    found = embedded(qtbot, window, window.settings_dialog)
    assert not window.embedding.refused and found.fresh == found.total == 8
    assert window.model_panel.encoder.text() == f"Sentence encoder: two-layers ({folder})"
    fresh = make_window()                                              # remembered: named before any file opens
    assert fresh.model_panel.encoder.text() == f"Sentence encoder: two-layers ({folder}), loads when a file is opened."


def test_none_chosen_in_settings_learns_on_words_says_so_and_is_no_error(qtbot, make_window, tmp_path, monkeypatch,
                                                                         smollm2):
    # the command line's --encoder none, typed in Settings, was read as a folder and refused
    from ui_helpers import run_and_wait, with_model, write_slice

    window = make_window(autoload=False)
    window.remembered.method = "direct"     # one pass a ticket: the test's time, not what it checks
    with_model(qtbot, window, smollm2)
    handed = Handed(window.learning)
    embedded(qtbot, window, lambda: open_file(qtbot, window, write_slice(tmp_path, 40)))
    qtbot.waitUntil(lambda: window.embedding.settled and bool(handed.label_vectors), timeout=60_000)
    assert run_and_wait(qtbot, window) == "done"
    axis = window.fields.current
    answers, live = window.model.answers_of(axis), window.learning.lives[axis]

    def moved() -> list[int]:
        """Rows whose shown answer is not the model's own: the encoder's similarity moved them (no labels yet)."""
        qtbot.waitUntil(lambda: not live.busy, timeout=30_000)
        names = window.label_set.names
        return [r for r in range(40) if names[int(np.argmax(answers.prediction(r).scores))] != window.model.label_of(r)]
    qtbot.waitUntil(lambda: bool(moved()), timeout=30_000)
    monkeypatch.setattr(SettingsDialog, "exec", lambda dialog: dialog.encoder.setText("none") or True)
    window.settings_dialog()
    none_line = "Sentence encoder: none (Settings): your labels teach by shared words (TF-IDF)."
    assert window.model_panel.encoder.text() == none_line and not window.banner_text.text()
    assert window.embedding.on_words and live.encoded() is None         # at once: the bundled one's vectors are gone
    qtbot.waitUntil(lambda: not moved(), timeout=30_000)                  # the model's own answers, as with no encoder
    qtbot.wait(50)                                                     # laid out, as a person sees it
    save_shot(window, "window-encoder-none.png", tmp_path)
    window.open_file(write_slice(tmp_path, 6, start=50, name="other.csv"))
    window.settings_dialog()                                           # OK again, none still chosen
    assert window.embedding.on_words and window.embedding.request == 0     # decided here: nothing asked of the worker
    window.cancel()         # a Cancel did not read as "embedding stopped" for a request that waited behind a run
    assert not window.embedding.halt and window.model_panel.embedding.isHidden()
    fresh = make_window()                                              # remembered: said before any file opens
    assert fresh.remembered.encoder == "none" and fresh.model_panel.encoder.text() == none_line


def test_none_chosen_while_embedding_offers_labels_first_at_once(qtbot, make_window, tmp_path, monkeypatch):
    # a hunt's finding: the offer waited "for every ticket to be embedded" until the next label given
    from triage_app.ui.panels.run_progress import LABELS_FIRST

    window = make_window()
    open_file(qtbot, window, write_tickets(tmp_path / "tickets.csv", sample_texts(MANY)))
    window.model.set_person_label(0, "billing")
    window.model.set_person_label(1, "account")
    note, item = window.run_panel.method_note, window.run_panel.method.model().item(LABELS_FIRST)
    qtbot.waitUntil(lambda: "waiting for every ticket" in note.text(), timeout=10_000)
    assert window.embedding.busy
    monkeypatch.setattr(SettingsDialog, "exec", lambda dialog: dialog.encoder.setText("none") or True)
    window.settings_dialog()
    assert item.isEnabled() and note.isHidden()


def test_an_encoder_chosen_before_answering_late_is_not_taken_for_the_one_chosen_now(qtbot, make_window, tmp_path):
    window = make_window()
    embedded(qtbot, window, lambda: open_file(qtbot, window, write_tickets(tmp_path / "t.csv", sample_texts(4))))
    shown = window.model_panel.encoder.text()
    window.engine.embedder.encoder_failed.emit(str(tmp_path / "chosen-before"), "not a sentence encoder folder")
    qtbot.wait(50)
    assert not window.embedding.refused and window.model_panel.encoder.text() == shown
    assert "not a sentence encoder folder" not in window.banner_text.text()


class StandInEngine(QObject):
    """The engine's side of the EmbeddingWorker: a request waits from the start (a run asked for), served when
    run_requested arrives on its thread; what it served, in order, in served."""

    run_requested = Signal()
    closing = False

    def __init__(self):
        super().__init__()
        self.pending, self.served = 1, []
        self.run_requested.connect(self._run, Qt.ConnectionType.QueuedConnection)

    def waiting(self) -> bool:
        return self.pending > 0

    @Slot()
    def _run(self):
        self.pending -= 1
        self.served.append("run")


class NoDatabase:
    problem = "unavailable"      # the vectors are not kept: the order of the requests is what counts


def on_a_thread(qtbot, ask, until) -> StandInEngine:
    """The real EmbeddingWorker and a StandInEngine on a thread of their own; ask(embedder, engine) from here,
    then wait until(engine). Every LabelVectors the worker gives is appended to engine.served."""
    from PySide6.QtCore import QThread

    from triage_app.ui.background.embedding import EmbeddingWorker

    bundled_encoder()        # loaded once per process, as the window does, before the worker's thread asks
    thread = QThread()
    thread.start()
    engine = StandInEngine()
    embedder = EmbeddingWorker(engine, NoDatabase())
    for part in (engine, embedder):
        part.moveToThread(thread)
    embedder.label_vectors.connect(engine.served.append, Qt.ConnectionType.DirectConnection)
    try:
        ask(embedder, engine)
        qtbot.waitUntil(lambda: until(engine), timeout=60_000)
    finally:
        thread.quit()
        thread.wait()
    return engine


def test_a_run_asked_while_label_vectors_are_embedded_waits_one_batch_not_all_of_them(qtbot):
    """A hunt's finding: every label text of every field was embedded in one call, and a Run pressed right
    after a label edit waited for all of them (1.5 s for 40 labels with examples). The run is asked after two
    fields' labels: it is served first."""
    from triage_app.engine.labels import Example, Label, LabelSet

    texts = sample_texts(60)
    queue = LabelSet(tuple(Label(f"intent {k}", f"questions about topic {k}: cards and refunds") for k in range(20)),
                     tuple(Example(texts[k], f"intent {k % 20}") for k in range(40)))
    priority = LabelSet((Label("low"), Label("high")), tuple(Example(texts[40 + k], ["low", "high"][k % 2])
                                                              for k in range(20)))

    def ask(embedder, engine):
        embedder.embed_labels("queue", queue)
        embedder.embed_labels("priority", priority)
        engine.run_requested.emit()                  # Run, pressed right after the label edit

    served = on_a_thread(qtbot, ask, lambda engine: len(engine.served) == 3).served
    assert served[0] == "run" and sorted(found.axis for found in served[1:]) == ["priority", "queue"]


def test_a_label_set_asked_again_while_the_first_is_put_off_is_the_one_whose_vectors_come_last(qtbot):
    """A review's finding: a request put off behind a run was posted behind the field's next one too, and its
    vectors, of the set before the edit, came last and stood. The earlier set gets no vectors (answered, so the
    window's count of requests settles), the later one its own."""
    from triage_app.engine.labels import Label, LabelSet
    from triage_app.learn.similarity import label_texts, label_vectors

    before = LabelSet(tuple(Label(f"intent {k}", f"cards and refunds, part {k}") for k in range(12)))
    after = LabelSet(tuple(Label(f"intent {k}", f"transfers and fees, part {k}") for k in range(12)))

    def ask(embedder, engine):
        embedder.embed_labels("queue", before)
        engine.run_requested.emit()
        embedder.embed_labels("queue", after)          # a description edited while the first waits

    served = on_a_thread(qtbot, ask, lambda engine: len(engine.served) == 3).served
    texts, owners = label_texts(after)
    given = [found.vectors for found in served if found != "run" and found.vectors is not None]
    assert len(given) == 1
    np.testing.assert_allclose(given[0], label_vectors(bundled_encoder().embed(texts), owners, 12), atol=1e-3)
