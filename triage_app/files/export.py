"""Results out: every input column and row in order, plus the predictions, written atomically."""

from __future__ import annotations

import errno
import glob
import itertools
import math
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Sequence
from pathlib import Path

try:
    import fcntl
except ImportError:      # Windows
    fcntl = None

import pandas as pd

FORMATS = ("csv", "xlsx", "json", "jsonl")
# Below this confidence a label is marked for a person to review. With calibrated confidences
# (see `triage-app eval`), about this share of the labels above it are right.
REVIEW_BELOW = 0.7
# OWASP CSV injection: a cell starting with one of these is a formula to a spreadsheet
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# a signed number: a spreadsheet reads it as a number and runs nothing
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# characters XML 1.0 cannot hold (openpyxl's ILLEGAL_CHARACTERS_RE); Word's line and page breaks become newlines
_XML_ILLEGAL = re.compile(r"[\000-\010\013\014\016-\037]")
_AS_NEWLINE = {"\x0b": "\n", "\x0c": "\n"}
EXCEL_MAX_ROWS = 1_048_576
EXCEL_MAX_COLUMNS = 16_384   # column XFD: openpyxl writes more, which Excel repairs away or will not open
# one cell's text, counted as Excel counts it (UTF-16 units: an emoji is two); openpyxl cuts longer
# text without a word, so the export cuts it itself and says where
EXCEL_MAX_CHARS = 32_767
# a partial file younger than this may be a writer's that has not taken its lock yet
ABANDONED_AFTER_S = 60


class ExportFailed(ValueError):
    """The results could not be written; the message is one line naming the file."""


def renamed_input_columns(columns: Sequence, label_names: list[str]) -> dict[str, str]:
    """Input columns named like one Triage adds (label, p_billing...) and the names they keep in the output."""
    return renamed_columns(columns, _result_columns(label_names))


def renamed_columns(columns: Sequence, ours: Sequence[str]) -> dict[str, str]:
    """Input columns named like one of ours and the names they keep in the output (name_input, ...)."""
    ours = set(ours)
    taken = set(map(str, columns)) | ours
    renames = {}
    for column in columns:
        if column in ours:
            new, k = f"{column}_input", 2
            while new in taken:
                new, k = f"{column}_input_{k}", k + 1
            taken.add(new)
            renames[column] = new
    return renames


READ_COLUMN = "read_by_model"   # labels first: whether the language model read the ticket (window and command line)


def _result_columns(label_names: list[str]) -> list[str]:
    """Every column a run may add, READ_COLUMN too (written after a labels-first run only)."""
    return ["label", "confidence", "margin", *(f"p_{name}" for name in label_names), "person", "needs_review",
            "truncated", "source", READ_COLUMN]


def results_frame(frame: pd.DataFrame, predictions: Sequence, label_names: list[str],
                  person_labels: dict[int, str] | None = None, review_below: float = REVIEW_BELOW,
                  sources: Sequence[str] | None = None) -> pd.DataFrame:
    """The input frame plus label, confidence, margin, p_<label>, person, needs_review, truncated and source.

    An input column with one of those names keeps its values under another (renamed_input_columns).

    predictions: objects with index, label, confidence, margin, probabilities, truncated.
    truncated: the model read only the ticket's head because a limit a person set, or the model's
    context, cut it (Prediction.truncated). Channel reading a ticket's first 128 tokens, its own
    measured choice, is how it reads every ticket, not a cut (docs/quality/channel_tokens.md).
    person_labels: row -> label a person chose; it wins over the model's.
    review_below: a model label less confident than this needs review (a person's never does).
    sources: each row's source (person, learned or model: triage_app.learn); by default person where
    a person labelled the row, model elsewhere.
    """
    person_labels = person_labels or {}
    by_row = {p.index: p for p in predictions}
    rows = [by_row.get(i) for i in range(len(frame))]
    out = frame.rename(columns=renamed_input_columns(frame.columns, label_names))
    out["label"] = [person_labels.get(i) or (p.label if p else None) for i, p in enumerate(rows)]
    out["confidence"] = [p.confidence if p else None for p in rows]
    out["margin"] = [p.margin if p else None for p in rows]
    for k, name in enumerate(label_names):
        out[f"p_{name}"] = [p.probabilities[k] if p and p.probabilities else None for p in rows]
    out["person"] = [i in person_labels for i in range(len(frame))]
    out["needs_review"] = [i not in person_labels and (p is None or p.confidence is None or p.confidence < review_below)
                           for i, p in enumerate(rows)]
    out["truncated"] = [bool(p and p.truncated) for p in rows]
    out["source"] = list(sources) if sources is not None else ["person" if i in person_labels else "model"
                                                               for i in range(len(frame))]
    return out


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells and column names that a spreadsheet would run as formulas with a quote (OWASP)."""
    text = lambda column: pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)
    out = frame.apply(lambda column: column.map(_neutral) if text(column) else column)
    return out.set_axis(_guarded_names(list(frame.columns)), axis=1)


def _guarded_names(columns: list) -> list:
    """Column names guarded, none taking another's: `=x` next to a `'=x` is `'=x_2`, its values never
    read as the other's."""
    taken = {name for name in columns if _neutral(name) == name}
    out = []
    for name in columns:
        new = guarded = _neutral(name)
        k = 1
        while new != name and new in taken:
            k += 1
            new = f"{guarded}_{k}"
        taken.add(new)
        out.append(new)
    return out


def _neutral(value):
    return "'" + value if isinstance(value, str) and value.startswith(_FORMULA_START) else value


def runs_as_formula(value) -> bool:
    """Whether a spreadsheet opening a CSV would run this text as a formula (a signed number it would not)."""
    return isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value)


def export(frame: pd.DataFrame, path: str | Path, fmt: str | None = None, excel_bom: bool = False,
           notes: list[str] | None = None) -> Path:
    """Write results in the format the suffix (or fmt) names; raw text is kept in JSON.

    notes: gets one line for what the file could not hold as given (XLSX: text longer than a cell holds).
    Raises ExportFailed (a ValueError) with one line naming the file; the old file, if any, is left whole.
    """
    path = Path(path)
    fmt = fmt or path.suffix.lower().lstrip(".") or "csv"
    if fmt not in FORMATS:
        raise ValueError(f"cannot export to {fmt!r}: use {', '.join(FORMATS)}")
    if fmt == "xlsx" and len(frame) >= EXCEL_MAX_ROWS:
        raise ExportFailed(f"{path.name}: an Excel sheet holds {EXCEL_MAX_ROWS - 1:,} rows below its header, "
                           f"the results have {len(frame):,}; export CSV")
    if fmt == "xlsx" and len(frame.columns) > EXCEL_MAX_COLUMNS:
        raise ExportFailed(f"{path.name}: an Excel sheet holds {EXCEL_MAX_COLUMNS:,} columns, the results have "
                           f"{len(frame.columns):,}; export CSV")
    if fmt == "csv":
        encoding = "utf-8-sig" if excel_bom else "utf-8"
        write = lambda f: neutralise_formulas(frame).to_csv(f, index=False, encoding=encoding)
    elif fmt == "xlsx":
        cut: list[tuple[int, str]] = []
        write = lambda f: cut.extend(_write_xlsx(neutralise_formulas(frame), f))
    elif fmt == "json":
        write = lambda f: frame.to_json(f, orient="records", force_ascii=False, indent=2)
    else:
        write = lambda f: frame.to_json(f, orient="records", force_ascii=False, lines=True)
    write_or_fail(path, write)
    if fmt == "xlsx" and cut and notes is not None:
        notes.append(_cut_note(path, cut))
    return path


def write_or_fail(path: Path, write: Callable[[str], None]) -> Path:
    """write_atomic, or ExportFailed: one line naming the file, the old file left whole."""
    try:
        write_atomic(path, write)
    except Exception as exc:  # disk full, permission denied, a value a writer refuses: one line, old file kept
        raise ExportFailed(f"cannot write {path.name}: {_reason(exc)}") from exc
    return path


def write_text(path: str | Path, text: str) -> Path:
    """A text file (statistics, results as JSON) written whole or not at all, as the export is: a Ctrl-C
    halfway leaves the old file, and a new folder is made."""
    return write_or_fail(Path(path), lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror + (f" ({exc.filename})" if exc.filename else "")
    return " ".join(str(exc).split()) or exc.__class__.__name__


def _write_xlsx(frame: pd.DataFrame, path: str) -> list[tuple[int, str]]:
    """Every text, headers included, as a text cell: a spreadsheet never runs it, whatever it starts with.
    Returns the (sheet row, column) of each text cut to EXCEL_MAX_CHARS, the header being row 1."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("Sheet1")
    columns, cut = [str(name) for name in frame.columns], []
    rows = enumerate(frame.itertuples(index=False, name=None), 2)
    for number, row in itertools.chain([(1, columns)], rows):
        values = [_xlsx_value(value) for value in row]
        cut += [(number, column) for column, v in zip(columns, values) if isinstance(v, str) and _too_long(v)]
        sheet.append([_xlsx_cell(sheet, v) for v in values])
    book.save(path)
    return cut


def _xlsx_value(value):
    if isinstance(value, str):
        return _XML_ILLEGAL.sub(lambda m: _AS_NEWLINE.get(m.group(), ""), value)
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def _xlsx_cell(sheet, value):
    from openpyxl.cell import WriteOnlyCell

    if not isinstance(value, str):
        return value
    cell = WriteOnlyCell(sheet, _excel_cut(value) if _too_long(value) else value)
    cell.data_type = "s"
    return cell


def _too_long(text: str) -> bool:
    # a code point is one or two UTF-16 units: only text over half the limit needs counting
    return len(text) > EXCEL_MAX_CHARS // 2 and len(text.encode("utf-16-le")) > 2 * EXCEL_MAX_CHARS


def _excel_cut(text: str) -> str:
    return text.encode("utf-16-le")[:2 * EXCEL_MAX_CHARS].decode("utf-16-le", errors="ignore")  # no half emoji


def _cut_note(path: Path, cut: list[tuple[int, str]]) -> str:
    rows = sorted({row for row, _ in cut})
    shown = ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
    # a header is cut too where it is that long: named by its start, or the note is as long as the header
    columns = list(dict.fromkeys(column if len(column) <= 40 else f"{column[:39]}…" for _, column in cut))
    return (f"{path.name}: {len(cut):,} cell(s) longer than Excel holds ({EXCEL_MAX_CHARS:,} characters) were cut "
            f"to it, in sheet {'row' if len(rows) == 1 else 'rows'} {shown} ({'column' if len(columns) == 1 else 'columns'} {', '.join(columns)}); "
            f"export CSV or JSON to keep them whole")


def same_file(a: str | Path, b: str | Path) -> bool:
    """The same file by another spelling: relative, through a symlink, or a hard link. An export
    written there would replace the tickets it was made from."""
    try:
        return Path(a).resolve() == Path(b).resolve() or (os.path.exists(b) and os.path.samefile(a, b))
    except (OSError, RuntimeError):     # RuntimeError: a symlink loop, before Python 3.13
        return False


def write_atomic(path: Path, write: Callable[[str], None]) -> None:
    """Write a sibling temporary file, then rename it over the target: never half a file.

    A new file gets the mode the umask gives any new file; a replaced one keeps its own, and one its owner
    made read-only is refused (PermissionError), as the person would be refused writing it. A symlink
    stays a link: the file it names is replaced. A writer killed mid-write leaves its hidden partial
    file; the next write to the same target removes it once no writer holds it.
    """
    path = Path(os.path.realpath(path))
    refuse_read_only(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(path)
    tmp, held = _new_sibling(path)
    try:
        if path.exists():
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        write(str(tmp))
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(held)


def refuse_read_only(path: Path) -> None:
    """PermissionError, naming path, where that file is there and its owner made it read-only."""
    if path.is_file() and not path.stat().st_mode & stat.S_IWUSR:
        raise PermissionError(errno.EACCES, "it is read-only; make it writable or choose another name", str(path))


def _partial_name(path: Path, token: str) -> str:
    return f".{path.stem}.{token}.partial{path.suffix}"


def _new_sibling(path: Path) -> tuple[Path, int]:
    """A new partial file and a descriptor holding its lock until the write ends (or the process does)."""
    # not tempfile.mkstemp: it creates the file 0600 whatever the umask
    while True:
        tmp = path.parent / _partial_name(path, secrets.token_hex(4))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        return tmp, fd


def _remove_abandoned(path: Path) -> None:
    """Partial files of this target that no writer holds: a writer killed mid-write (kill -9, power cut).

    The kernel drops a dead process's lock. A file this young may be a writer's that has not locked it
    yet, so it waits for a later write. Windows has no flock: partial files stay there.
    """
    if fcntl is None:
        return
    start, end = _partial_name(path, "TOKEN").split("TOKEN")
    pattern = re.compile(re.escape(start) + "[0-9a-f]{8}" + re.escape(end))
    for tmp in path.parent.glob(glob.escape(start) + "*" + glob.escape(end)):
        if not pattern.fullmatch(tmp.name):
            continue
        try:
            fd = os.open(tmp, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if time.time() - os.fstat(fd).st_mtime > ABANDONED_AFTER_S:
                tmp.unlink(missing_ok=True)
        except OSError:         # held: another writer is at work
            pass
        finally:
            os.close(fd)
