"""Results out: every input column and row in order, plus the predictions, written atomically."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

FORMATS = ("csv", "xlsx", "json", "jsonl")
# Below this confidence a label is marked for a person to review. With calibrated confidences
# (see `triage-app eval`), about this share of the labels above it are right.
REVIEW_BELOW = 0.7
# OWASP CSV injection: a cell starting with one of these is a formula to a spreadsheet
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def results_frame(frame: pd.DataFrame, predictions: Sequence, label_names: list[str],
                  manual: dict[int, str] | None = None, review_below: float = REVIEW_BELOW) -> pd.DataFrame:
    """The input frame plus label, confidence, margin, p_<label>, manual, needs_review and truncated.

    predictions: objects with index, label, confidence, margin, probabilities, truncated.
    manual: row -> label a person chose; it wins over the model's.
    review_below: a model label less confident than this needs review (a manual one never does).
    """
    manual = manual or {}
    by_row = {p.index: p for p in predictions}
    rows = [by_row.get(i) for i in range(len(frame))]
    out = frame.copy()
    out["label"] = [manual.get(i) or (p.label if p else None) for i, p in enumerate(rows)]
    out["confidence"] = [p.confidence if p else None for p in rows]
    out["margin"] = [p.margin if p else None for p in rows]
    for k, name in enumerate(label_names):
        out[f"p_{name}"] = [p.probabilities[k] if p and p.probabilities else None for p in rows]
    out["manual"] = [i in manual for i in range(len(frame))]
    out["needs_review"] = [i not in manual and (p is None or p.confidence is None or p.confidence < review_below)
                           for i, p in enumerate(rows)]
    out["truncated"] = [bool(p and p.truncated) for p in rows]
    return out


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells that a spreadsheet would run as formulas with a quote (OWASP)."""
    def fix(value):
        return "'" + value if isinstance(value, str) and value.startswith(_FORMULA_START) else value
    text = lambda column: pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)
    return frame.apply(lambda column: column.map(fix) if text(column) else column)


def export(frame: pd.DataFrame, path: str | Path, fmt: str | None = None, excel_bom: bool = False) -> Path:
    """Write results in the format the suffix (or fmt) names; raw text is kept in JSON."""
    path = Path(path)
    fmt = fmt or path.suffix.lower().lstrip(".") or "csv"
    if fmt not in FORMATS:
        raise ValueError(f"cannot export to {fmt!r}: use {', '.join(FORMATS)}")
    if fmt == "csv":
        encoding = "utf-8-sig" if excel_bom else "utf-8"
        write = lambda f: neutralise_formulas(frame).to_csv(f, index=False, encoding=encoding)
    elif fmt == "xlsx":
        write = lambda f: neutralise_formulas(frame).to_excel(f, index=False, engine="openpyxl")
    elif fmt == "json":
        write = lambda f: frame.to_json(f, orient="records", force_ascii=False, indent=2)
    else:
        write = lambda f: frame.to_json(f, orient="records", force_ascii=False, lines=True)
    write_atomic(path, write)
    return path


def write_atomic(path: Path, write: Callable[[str], None]) -> None:
    """Write a sibling temporary file, then rename it over the target: never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".partial{path.suffix}", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
