"""Export from the window: where to (a save dialog whose chosen type names the format) and the
file written, or one line on why not. A plain label set writes today's columns; several fields
write each field's columns, named after it, as the command line does (files/axes_export.py)."""

from __future__ import annotations

import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

WRITTEN_HERE_UP_TO = 2_000      # rows an export writes on the UI thread, briefly; more go to a thread of their own
EXPORT_FILTERS = {"csv": "CSV (*.csv)", "xlsx": "Excel workbook (*.xlsx)", "json": "JSON (*.json)"}


class Exporting(QObject):
    """The window's Export: a file's rows with the labels the table shows."""

    failed = Signal(str)          # one line for the message bar
    message = Signal(str, int)    # one line for the status bar, and how long it stays (ms)

    def __init__(self, model, parent: QWidget, set_aside=lambda: 0, axes=lambda: None):
        """model: the ticket table's TicketTableModel; parent: the window the save dialog belongs to;
        set_aside: how many of the person's labels are set aside now (their label is not in the set);
        axes: the fields the table shows (engine.axes Axes; None: one plain label set)."""
        super().__init__(parent)
        self.model, self.set_aside, self.axes = model, set_aside, axes

    def ask(self, table, folder: str) -> None:
        """Ask where to, suggesting folder (the file's own name, labeled), then export there."""
        if self._nothing(table):
            return
        path = ask_export_path(self.parent(), str(Path(folder or ".") / f"{table.path.stem}-labeled.csv"))
        if path:
            self.write(table, path)

    def write(self, table, path: str | Path) -> Path | None:
        """table: the open TicketTable, or None; returns the file written."""
        if self._nothing(table):
            return None
        from triage_app.files.export import same_file

        if same_file(table.path, path):
            self.failed.emit(f"Not exported: “{Path(table.path).name}” is the file open here, and the export "
                             f"would replace it. Choose another name.")
            return None
        try:
            written, rows, cut = export_results(table, self.model, path, self.axes(), self._off_the_ui_thread)
        except ExportFailed as exc:
            self.failed.emit(str(exc))
            return None
        from triage_app.files.axes_export import renamed_note

        aside, unsettled = self.set_aside(), self._unsettled()
        # kept, and back with their label, but not in this file: said, so nobody thinks them lost
        notes = [f"{aside:,} of your labels are set aside (their label was removed) and not in it"] * bool(aside) + cut
        renamed = renamed_note(table.frame.columns, self.axes(), self.model.label_names)
        notes += [renamed] * bool(renamed)
        # a checked low precision's answers that learning found close: right once settled, said till then
        notes += [f"{unsettled:,} learned answers wait to be scored again in float32 (a short run does it after "
                  f"each run that finishes); export again after it"] * bool(unsettled)
        self.message.emit(f"Exported {rows:,} rows to {written}" + "".join(f"; {n}" for n in notes),
                          15_000 if notes else 10_000)
        return written

    def _off_the_ui_thread(self, write, rows: int):
        """write() on a thread of its own past a few thousand rows, the window painted and saying so, modal (no
        second export, no closing, under it): a big workbook is seconds of openpyxl (docs/window.md)."""
        if rows < WRITTEN_HERE_UP_TO:
            return write()
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="triage-export") as pool:
            done, loop = pool.submit(write), QEventLoop()
            waiting = _Waiting(f"Exporting {rows:,} rows…", None, 0, 0, self.parent())
            waiting.setWindowModality(Qt.WindowModality.WindowModal)
            waiting.show()          # at once: QProgressDialog's own timer would show it after seconds
            poll = QTimer(interval=20, timeout=lambda: done.done() and loop.quit())
            poll.start()
            loop.exec()
            poll.stop()
            waiting.hide()
            waiting.deleteLater()
            return done.result()

    def _unsettled(self) -> int:
        """Rows whose learned answer rests on low-precision scores too close to call (Learned.unsettled)."""
        axes = self.axes()
        learned = [self.model.answers_of(name).learned for name in ([None] if axes is None else axes.names)]
        return sum(len(one.unsettled) for one in learned if one is not None)

    def _nothing(self, table) -> bool:
        if table is None:
            self.failed.emit("Nothing to export yet: open a ticket file first.")
        return table is None


class _Waiting(QProgressDialog):
    """Modal until the file is written: Esc or the title bar's close would let the window go on under it."""

    def reject(self) -> None:
        pass

    def closeEvent(self, event) -> None:
        event.ignore()


class ExportFailed(Exception):
    """One line for the user."""


def ask_export_path(parent: QWidget, suggested: str) -> str | None:
    """A path with a suffix: typed without one, it takes the type chosen in the dialog."""
    path, chosen = QFileDialog.getSaveFileName(parent, "Export results", suggested, ";;".join(EXPORT_FILTERS.values()))
    if not path:
        return None
    fmt = next((f for f, text in EXPORT_FILTERS.items() if text == chosen), None)
    if Path(path).suffix.lower().lstrip(".") not in EXPORT_FILTERS and fmt:
        path = f"{path}.{fmt}"
        # the dialog asked about the name as typed, never about this one
        if Path(path).exists() and not _replace(parent, path):
            return None
    return path


def _replace(parent: QWidget, path: str) -> bool:
    yes, no = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No
    box = QMessageBox(QMessageBox.Icon.Warning, "Export results", f"“{Path(path).name}” already exists. Replace it?",
                      yes | no, parent)
    box.setDefaultButton(no)
    box.exec()
    return box.clickedButton() is box.button(yes)


def export_results(table, model, path: str | Path, axes=None,
                   run=lambda write, rows: write()) -> tuple[Path, int, list[str]]:
    """Every row and column of table (a TicketTable) with model's (a TicketTableModel) labels, each
    field's (axes, engine.axes Axes) under its name; returns the file written, its rows, and what the
    file could not hold as shown (files.export's notes). run: how the writing runs (off the UI thread).
    Raises ExportFailed."""
    from triage_app.files.export import export    # its writers load when first used

    notes: list[str] = []
    try:
        frame = results(table, model, axes)
        return run(lambda: export(frame, path, notes=notes), len(frame)), len(table.frame), notes
    except (OSError, ValueError) as exc:
        raise ExportFailed(f"Export failed: {_first_line(exc)}") from exc
    except Exception as exc:   # a writer's own error on content nobody foresaw: the table stays, say why
        traceback.print_exception(exc, file=sys.stderr)
        raise ExportFailed(f"Export failed: {type(exc).__name__}: {_first_line(exc)}") from exc


def results(table, model, axes=None):
    """What the table shows, as the export's frame: learned answers where learning answered, and who
    gave each label; a plain set (or axes None) in today's columns."""
    from triage_app.files.axes_export import AxisAnswers, axes_frame
    from triage_app.files.export import READ_COLUMN, results_frame

    if axes is None or axes.is_plain:
        frame = results_frame(table.frame, model.answers, model.label_names, model.person_labels, sources=model.sources)
        return _with_read(frame, READ_COLUMN, model.answers_of(None))
    answers = []
    for axis in axes:
        shown = model.answers_of(axis.name)
        answers.append(AxisAnswers(axis, shown.answers, shown.person_labels, shown.sources))
    frame = axes_frame(table.frame, answers)
    for axis in axes:
        frame = _with_read(frame, f"{axis.name}_{READ_COLUMN}", model.answers_of(axis.name))
    return frame


def _with_read(frame, column: str, answers):
    """After a labels-first run, which tickets the language model read, as classify --labels-first writes it."""
    read = answers.read_by_model()
    if read is not None:
        frame[column] = read.tolist()
    return frame


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
