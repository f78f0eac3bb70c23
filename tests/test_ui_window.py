"""The window without a model: opening files (drop, column picker, bad files), the label editor,
what is remembered between sessions."""

import json
import threading
import time

import pytest

from PySide6.QtWidgets import QApplication, QMessageBox

from triage_app.engine.labels import Example, LabelSet
from triage_app.files.clean import model_texts
from triage_app.ui.panels.prompt_preview import NO_MODEL
from triage_app.ui.settings import Remembered, open_settings
from ui_helpers import drop_files, make_window, open_file, sample_rows, settings_file, write_slice  # noqa: F401


def test_dropped_file_fills_the_table(qtbot, make_window, tmp_path):
    window = make_window()
    path = write_slice(tmp_path, 12)
    with qtbot.waitSignal(window.file_loaded, timeout=20_000):
        drop_files(window, path)
    rows = sample_rows()[:12]
    model = window.model
    assert model.rowCount() == 12
    assert model.columns == ["id", "subject", "text", "category"]
    shown = [[model.cell(r, c) for c in model.columns] for r in range(12)]
    assert shown == [[row[c] for c in model.columns] for row in rows]
    assert window.columns.text_column == "text"
    assert window.columns.gold_column == "category"
    assert window.texts == [row["text"] for row in rows]
    assert window.view.isVisible() and not window.tickets.empty_hint.isVisible()
    qtbot.waitUntil(lambda: "12 shown of 12" in window.tickets.counts.text())   # counts refresh a few times a second


def test_column_picker_changes_what_is_classified(qtbot, make_window, tmp_path):
    window = make_window()
    open_file(qtbot, window, write_slice(tmp_path, 5))
    rows = sample_rows()[:5]
    window.columns.with_subject.setChecked(True)
    assert window.columns.subject_column == "subject"
    assert window.texts == [f"{r['subject']}\n\n{r['text']}" for r in rows]
    window.columns.with_subject.setChecked(False)
    window.columns.text.setCurrentText("subject")
    assert window.texts == [r["subject"] for r in rows]
    window.columns.gold.setCurrentText("none")
    assert window.columns.gold_column is None


def test_bad_file_says_why_and_the_window_keeps_working(qtbot, make_window, tmp_path):
    window = make_window()
    bad = tmp_path / "broken.csv"
    bad.write_bytes(b"\x00\x01\x02 binary junk \x00")
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as blocker:
        window.open_file(bad)
    assert "binary" in blocker.args[0]
    assert window.banner.isVisible() and "broken.csv" in window.banner_text.text()
    assert "Traceback" not in window.banner_text.text()
    with qtbot.waitSignal(window.error_shown, timeout=20_000):
        window.open_file(tmp_path / "missing.csv")
    open_file(qtbot, window, write_slice(tmp_path, 3))
    assert window.model.rowCount() == 3 and not window.banner.isVisible()


def test_run_without_a_file_is_a_message_not_a_crash(qtbot, make_window):
    window = make_window()
    with qtbot.waitSignal(window.error_shown):
        assert window.run() is None
    assert "Open a ticket file" in window.banner_text.text()


def test_label_editor_add_rename_remove_and_examples(qtbot, make_window, tmp_path):
    window = make_window()
    open_file(qtbot, window, write_slice(tmp_path, 4))
    panel = window.labels_panel
    with qtbot.waitSignal(panel.changed):
        panel.add_label()
    assert len(window.label_set.labels) == 4
    new_row = panel.labels.rowCount() - 1
    with qtbot.waitSignal(panel.changed):
        panel.labels.item(new_row, 0).setText("sales")
    with qtbot.waitSignal(panel.changed):
        panel.labels.item(new_row, 1).setText("quotes and upgrades")
    assert window.label_set.labels[-1].name == "sales"
    assert window.label_set.labels[-1].description == "quotes and upgrades"
    assert window.model.label_names == ["billing", "technical", "account", "sales"]
    assert [window.tickets.label_filter.itemText(k) for k in range(5)][-1] == "sales"
    # an example from the table follows a rename of its label
    window.view.selectRow(2)
    panel.example_label.setCurrentText("sales")
    panel.use_button.click()
    assert window.label_set.examples[-1].text == model_texts([sample_rows()[2]["text"]], window.remembered.cleaning)[0]
    with qtbot.waitSignal(panel.changed):
        panel.labels.item(new_row, 0).setText("upsell")
    assert window.label_set.examples[-1].label == "upsell"
    # an invalid edit is shown, not applied
    panel.labels.item(0, 0).setText("technical")
    assert "distinct" in panel.error.text() and window.label_set.names[0] == "billing"
    panel.labels.item(0, 0).setText("billing")
    panel.labels.selectRow(new_row)
    with qtbot.waitSignal(panel.changed):
        panel.remove_button.click()
    assert window.label_set.names == ["billing", "technical", "account"]
    assert all(e.label != "upsell" for e in window.label_set.examples)


def test_corrections_become_examples(qtbot, make_window, tmp_path, monkeypatch):
    window = make_window()
    window.remembered.method = "direct"                 # where corrections helped: no question asked
    open_file(qtbot, window, write_slice(tmp_path, 6))
    window.actions.promote.trigger()                     # nothing corrected yet: a message, no change
    assert "No new corrections" in window.banner_text.text() and window.label_set.examples == LabelSet.default().examples
    window.model.set_person_label(1, "account")
    window.model.set_person_label(4, "technical")
    monkeypatch.setattr(QMessageBox, "exec", lambda box: pytest.fail("asked under direct scoring"))
    with qtbot.waitSignal(window.labels_panel.changed):
        window.actions.promote.trigger()
    rows = sample_rows()
    read = lambda row: model_texts([rows[row]["text"]], window.remembered.cleaning)[0]     # noqa: E731
    assert window.label_set.examples[-2:] == (Example(read(1), "account"), Example(read(4), "technical"))
    window.actions.promote.trigger()                     # already examples: not added twice
    assert len(window.label_set.examples) == len(LabelSet.default().examples) + 2


def test_under_channel_scoring_corrections_become_examples_only_if_confirmed(qtbot, make_window, tmp_path,
                                                                              monkeypatch):
    """Measured: under channel scoring corrections made worse examples, so the window asks first."""
    window = make_window()
    assert window.remembered.method == "channel"        # the default
    open_file(qtbot, window, write_slice(tmp_path, 6))
    window.model.set_person_label(2, "billing")
    asked, answer = [], [QMessageBox.StandardButton.No]

    def fake_exec(box):
        asked.append(box.text())
        assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
        box.button(answer[0]).click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    window.actions.promote.trigger()
    assert len(asked) == 1 and "made poor examples when measured" in asked[0] and "README" not in asked[0]
    assert window.label_set.examples == LabelSet.default().examples          # No: nothing added
    answer[0] = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(window.labels_panel.changed):
        window.actions.promote.trigger()
    assert window.label_set.examples[-1] == Example(model_texts([sample_rows()[2]["text"]],
                                                                window.remembered.cleaning)[0], "billing")


def test_label_set_saves_and_loads_as_json(qtbot, make_window, tmp_path):
    window = make_window()
    panel = window.labels_panel
    panel.add_label()
    path = tmp_path / "labels.json"
    assert panel.save(str(path))
    assert LabelSet.load(path) == window.label_set
    assert json.loads(path.read_text())["labels"][-1]["name"] == window.label_set.names[-1]
    panel.set_label_set(LabelSet.default())
    assert panel.load(str(path)) and window.label_set == LabelSet.load(path)
    (tmp_path / "bad.json").write_text("{not json")
    with qtbot.waitSignal(window.error_shown):
        assert not panel.load(str(tmp_path / "bad.json"))


def test_prompt_preview_says_a_model_is_needed(qtbot, make_window):
    window = make_window()
    window.actions.prompt.trigger()
    assert window.prompt_preview.isVisible()
    assert window.prompt_preview.summary.text() == NO_MODEL
    window.prompt_preview.close()


def test_settings_are_remembered(qtbot, make_window, tmp_path, settings_file):
    window = make_window()
    open_file(qtbot, window, write_slice(tmp_path, 3))
    window.labels_panel.add_label()
    window.model_panel.set_spec("smollm2-135m")
    window.remembered.model = "smollm2-135m"
    window.remembered.batch_size = 7
    window.resize(780, 560)   # inside the offscreen screen (800x600), which restoreGeometry clamps to
    QApplication.processEvents()
    label_set = window.label_set
    window.close()
    assert settings_file.is_file()
    remembered = Remembered.load(open_settings())
    assert (remembered.model, remembered.batch_size) == ("smollm2-135m", 7)
    assert remembered.last_folder == str(tmp_path.resolve())
    again = make_window(autoload=False)
    assert again.label_set == label_set
    assert again.model_panel.spec == "smollm2-135m"
    assert again.height() == 560        # the width is clamped by the window's minimum on the tiny screen
    QApplication.processEvents()


def test_the_settings_file_is_readable_by_its_user_only(qtbot, make_window, settings_file):
    """It holds the label set, whose examples are tickets: customers' own words."""
    import os
    import stat

    window = make_window(autoload=False)
    window.labels_panel.add_example("My card 4111 was charged twice, call me on 555-0100", "billing")
    window.close()
    assert stat.S_IMODE(settings_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings_file.parent.stat().st_mode) == 0o700      # the folder it made
    again = make_window(autoload=False)                                    # a later save keeps it so
    again.close()
    assert stat.S_IMODE(os.stat(settings_file).st_mode) == 0o600
    assert "555-0100" in settings_file.read_text(encoding="utf-8")


def test_an_export_that_fails_is_one_line(qtbot, make_window, tmp_path):
    """Cells a writer refuses (a vertical tab from Word, a NUL), or a folder that is not there."""
    path = tmp_path / "odd.csv"
    path.write_text('id,text\n1,"pasted from Word\x0bwith a vertical tab"\n2,plain\n', encoding="utf-8")
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    written = window.export_to(tmp_path / "out.xlsx")       # written cleanly, or refused in one line
    if written is None:
        assert window.banner.isVisible() and window.banner_text.text().startswith("Export failed")
        assert "\n" not in window.banner_text.text()
    else:
        assert written.stat().st_size > 0
    assert window.export_to(path / "out.csv") is None     # under a file, not a folder
    assert window.banner_text.text().startswith("Export failed") and "\n" not in window.banner_text.text()


def test_settings_ask_for_a_reload_when_the_placement_changes(qtbot):
    from triage_app.engine.config import ModelChoice, RunConfig
    from triage_app.ui.settings import SettingsDialog

    remembered = Remembered()
    dialog = SettingsDialog(remembered, "")
    qtbot.addWidget(dialog)
    assert dialog.apply_to(remembered) is False                     # nothing changed
    dialog.method.setCurrentText("direct")                          # the method does not decide the placement
    assert dialog.apply_to(remembered) is False and remembered.method == "direct"
    dialog.dtype.setCurrentText("float32")
    dialog.batch_size.setValue(7)
    assert dialog.apply_to(remembered) is True                      # the dtype changed
    # what is remembered becomes the engine's typed settings when a load or run is asked for
    assert remembered.model_choice("smollm2-135m") == ModelChoice("smollm2-135m", "auto", "float32", True)
    settings = remembered.run_settings()
    assert settings.scoring.method == "direct" and settings.run == RunConfig(batch_size=7)
    remembered.batch_size = 0
    with pytest.raises(ValueError, match="batch size"):             # a bad value fails where it is made
        remembered.run_settings()


def test_main_renders_a_screenshot_and_exits_with_its_start_up_objects_frozen(tmp_path):
    """Frozen: Python's full garbage collections no longer walk the modules' objects while the window runs;
    and the GIL's switch interval is short, so the table's paint does not wait on a busy thread."""
    import subprocess
    import sys

    from ui_helpers import SAMPLE

    png = tmp_path / "shot.png"
    env = {"QT_QPA_PLATFORM": "offscreen", "TRIAGE_SETTINGS_FILE": str(tmp_path / "t.ini"),
           "TRIAGE_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    run = ("import gc, sys; from triage_app.ui.app import main; rc = main(sys.argv[1:]); "
           "print('frozen', gc.get_freeze_count(), 'switch', sys.getswitchinterval()); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", run, str(SAMPLE), "--screenshot", str(png)],
                         capture_output=True, text=True, env=env, timeout=120, cwd=SAMPLE.parents[1])
    assert out.returncode == 0, out.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    assert int(out.stdout.split("frozen ")[1].split()[0]) > 100_000          # torch's and Qt's modules alone
    # a thread busy in Python hands the GIL to the table's paint within this, not Python's 5 ms per cell
    from triage_app.ui.app import UI_SWITCH_INTERVAL_S
    assert float(out.stdout.split("switch ")[1]) == pytest.approx(UI_SWITCH_INTERVAL_S) and UI_SWITCH_INTERVAL_S < 0.005


def test_labels_are_written_off_the_ui_thread_and_closing_writes_every_one(qtbot, make_window, tmp_path,
                                                                          monkeypatch):
    """A person's labels go to the database on its writer thread; closing waits for the ones queued."""
    from triage_app.files.store import ResultStore

    real, writers = ResultStore.set_person_labels, []

    def slow_set_person_labels(store, *args):
        writers.append(threading.current_thread())
        time.sleep(0.2)                             # still queued when the window closes
        real(store, *args)

    monkeypatch.setattr(ResultStore, "set_person_labels", slow_set_person_labels)
    window = make_window(autoload=False)
    open_file(qtbot, window, write_slice(tmp_path, 5))
    for row, label in ((0, "account"), (3, "billing"), (4, "technical"), (3, None)):
        window.model.set_person_label(row, label)         # None: back to the model's answer, deleted in order
    person = window.labelling.person
    window.close()
    assert len(writers) == 4 and threading.main_thread() not in writers
    with ResultStore(tmp_path / "results.sqlite3") as store:
        assert store.person_labels(person.file, person.row_hashes).labels == {0: "account", 4: "technical"}


def test_an_example_from_the_table_is_the_ticket_as_the_model_reads_it(qtbot, make_window, tmp_path):
    """A helpdesk export's HTML, escapes and signature are cleaned off a ticket before the model reads it: an
    example taken from the table is shown to the model the same way, not as the raw cell."""
    import csv

    raw = ("<div><p>Hi team,</p><p>I was charged twice for my subscription this month.</p></div>\\n--\\n"
           "Jane Doe\\nSenior Buyer | ACME Corp\\nPhone +1 555 0100")
    path = tmp_path / "tickets.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["id", "text"], ["1", raw], ["2", "the app crashes on start"]])
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    window.view.selectRow(0)
    window.labels_panel.example_label.setCurrentText("billing")
    window.labels_panel.use_button.click()
    example = window.label_set.examples[-1]
    assert example.text == model_texts([raw], window.remembered.cleaning)[0] != raw.strip()
    assert "<p>" not in example.text and example.label == "billing"
