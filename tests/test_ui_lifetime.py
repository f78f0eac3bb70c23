"""What the window does when things happen out of order: closed while the engine is busy, another
file or text column while a run is in flight, a results database that cannot be used. The tiny
random Qwen2 stands in for a model: what is checked here is where answers land, not what they are."""

import sqlite3

import pytest
from PySide6.QtWidgets import QApplication

from triage_app.ui.background.worker import EngineThread
from ui_helpers import Relay, make_window, open_file, run_and_wait, settings_file, with_model, write_slice  # noqa: F401


@pytest.fixture
def tiny_window(qtbot, make_window, tiny_qwen, tmp_path):
    def make(n=20, start=0, **kwargs):
        window = make_window(**kwargs)
        window.remembered.batch_size = 2
        window.remembered.method = "direct"      # the cheaper method: this is about where batches land
        with_model(qtbot, window, tiny_qwen)
        open_file(qtbot, window, write_slice(tmp_path, n, start))
        return window
    return make


def test_closing_while_the_engine_is_busy_never_destroys_its_thread(qtbot, tiny_window):
    window = tiny_window(40)
    batches = Relay(window.worker.batch_done)
    engine = window.engine
    with qtbot.waitSignal(batches.received, timeout=60_000):
        window.run(fresh=True)
    window.close_wait_ms = 0                    # the engine is mid-run: it cannot stop in no time
    window.close()
    assert not window.isVisible()
    assert engine in EngineThread.outliving     # kept alive: a QThread destroyed while it runs aborts
    assert EngineThread.wait_outliving(60_000) and not EngineThread.outliving
    assert engine.thread.isFinished()
    QApplication.processEvents()
    answered = sum(len(b.predictions) for b in batches.seen)
    assert 0 < answered < 40                    # the run stopped at its next step, not at the end


def test_a_batch_of_the_previous_text_column_never_lands_on_the_new_one(qtbot, tiny_window):
    window = tiny_window(20)
    batches = Relay(window.worker.batch_done)
    changed = []

    def change_column(batch):
        if not changed:
            changed.append(batch)
            window.columns.text.setCurrentText("subject")   # the rows are other texts from now on

    batches.received.connect(change_column)
    run_and_wait(qtbot, window, fresh=True)
    QApplication.processEvents()
    assert changed and window.columns.text_column == "subject"
    assert window.model.rows_answered == 0, "a batch of the old column landed on the new one"
    # nothing is said of the old column's run: "0 labeled rows kept" counted the new one's
    assert window.run_panel.bar.format() == "No run yet"
    assert window.statusBar().currentMessage() == "The ticket text changed: Run to label it."
    assert run_and_wait(qtbot, window, fresh=True) == "done" and window.model.rows_answered == 20


def test_a_batch_of_the_previous_file_never_lands_on_the_new_one(qtbot, tiny_window, tmp_path):
    window = tiny_window(30)
    smaller = write_slice(tmp_path, 3, start=500, name="smaller.csv")
    batches, loaded = Relay(window.worker.batch_done), []
    window.file_loaded.connect(loaded.append)

    def open_another(batch):
        if len(batches.seen) == 1:
            window.open_file(smaller)

    batches.received.connect(open_another)
    run_and_wait(qtbot, window, fresh=True)
    qtbot.waitUntil(lambda: bool(loaded), timeout=20_000)
    QApplication.processEvents()
    assert window.model.rowCount() == 3
    assert window.model.rows_answered == 0, "a batch of the old file landed on the new one"
    assert window.run_panel.bar.format() == "No run yet"      # nothing said of the old file's run
    assert window.statusBar().currentMessage() == "smaller.csv: 3 tickets"
    assert window.actions.run.isEnabled()


def test_an_unusable_results_database_is_one_line_and_the_window_keeps_working(qtbot, tiny_window, tmp_path):
    db = tmp_path / "broken.sqlite3"
    db.write_bytes(b"this is not a database, whatever its name says\n" * 200)
    window = tiny_window(6, store_path=db)
    assert window.db.problem and str(db) in window.db.problem
    assert "\n" not in window.db.problem and "Traceback" not in window.banner_text.text()
    assert window.banner.isVisible() and window.fresh_store_button.isVisible()
    open_file(qtbot, window, write_slice(tmp_path, 6, start=40))        # files still open; the way out stays
    assert window.fresh_store_button.isVisible() and str(db) in window.banner_text.text()
    # said as the window says it, not the command line's --db, and that nothing is saved, under any other line
    assert "--db" not in window.banner_text.text() and "nothing is resumed or saved" in window.banner_text.text()
    window.open_file(tmp_path / "nowhere.csv")
    qtbot.waitUntil(lambda: "nowhere.csv" in window.banner_text.text())
    assert "nothing is resumed or saved" in window.banner_text.text() and window.fresh_store_button.isVisible()
    assert run_and_wait(qtbot, window) == "done" and window.model.rows_answered == 6
    window.model.set_person_label(1, "account")       # kept in memory while there is no database
    assert window.model.label_of(1) == "account"
    moved = window.use_fresh_store()
    assert moved is not None and moved.read_bytes().startswith(b"this is not a database")
    assert window.db.problem is None and not window.fresh_store_button.isVisible()
    # the fresh database has what was labeled meanwhile, and the next run saves into it

    def labels():
        with sqlite3.connect(db) as fresh:
            return fresh.execute("SELECT label FROM person_labels").fetchall()
    qtbot.waitUntil(lambda: labels() == [("account",)])       # written off the UI thread
    assert run_and_wait(qtbot, window) == "done"
    with sqlite3.connect(db) as fresh:
        assert fresh.execute("SELECT COUNT(*) FROM results").fetchone()[0] > 0


def test_a_failed_run_carries_its_id_and_a_stale_failure_is_ignored(qtbot, tiny_window):
    window = tiny_window(4)
    failed = Relay(window.worker.failed)        # the relay sees the first argument: the run id
    plain = window.label_set
    # an example longer than the tiny model's context: building the run fails on the worker's thread
    window.labels_panel.add_example("a very long ticket " * 200, plain.names[0])
    with qtbot.waitSignal(window.run_ended, timeout=60_000) as ended:
        first = window.run()
    assert ended.args == ["failed"] and failed.seen == [first]
    assert "no room for a ticket" in window.banner_text.text() and "stopped" in window.run_panel.bar.format()
    window.labels_panel.set_label_set(plain)
    with qtbot.waitSignal(window.run_ended, timeout=60_000) as ended:
        assert window.run() != first
        window.worker.failed.emit(first, "a late word from the first run")    # stale: not this run's end
    assert ended.args == ["done"] and window.model.rows_answered == 4
    assert "late word" not in window.banner_text.text()
