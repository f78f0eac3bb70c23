"""Read ticket tables, find the text column, write results."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd

TEXT_COLUMNS = ("text", "body", "description", "message", "ticket", "comment", "content")


class BadInput(ValueError):
    """The file cannot be used; the message is one line the user can act on."""


def read_table(path: str | Path) -> pd.DataFrame:
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such file")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        raise BadInput(f"{path}: the file is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not a readable CSV file ({str(exc).splitlines()[0]})") from None
    if frame.empty:
        raise BadInput(f"{path}: the file has a header but no tickets")
    return frame


def text_column(frame: pd.DataFrame, wanted: str | None = None) -> str:
    if wanted:
        if wanted not in frame.columns:
            raise BadInput(f"no column {wanted!r}; the columns are: {', '.join(map(str, frame.columns))}")
        return wanted
    lower = {str(c).strip().lower(): c for c in frame.columns}
    for name in TEXT_COLUMNS:
        if name in lower:
            return lower[name]
    raise BadInput(f"no ticket text column found (looked for {', '.join(TEXT_COLUMNS)}); "
                   f"name one with --text-column")


def results_frame(frame: pd.DataFrame, predictions, label_names: list[str]) -> pd.DataFrame:
    """Every input column and row in order, plus the prediction columns."""
    out = frame.copy()
    by_index = {p.index: p for p in predictions}
    rows = [by_index.get(i) for i in range(len(frame))]
    out["label"] = [p.label if p else None for p in rows]
    out["confidence"] = [p.confidence if p else None for p in rows]
    out["margin"] = [p.margin if p else None for p in rows]
    for k, name in enumerate(label_names):
        out[f"p_{name}"] = [p.probabilities[k] if p and not p.is_blank else None for p in rows]
    out["truncated"] = [bool(p.truncated) if p else False for p in rows]
    return out


def write_csv_atomic(frame: pd.DataFrame, path: str | Path) -> None:
    """Write next to the target and rename, so a crash never leaves half a file where the user expects one."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            frame.to_csv(f, index=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
