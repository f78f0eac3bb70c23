"""Scored blocks in, one output file out, with the local command's columns, written atomically."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from triage_app.engine.classifier import Prediction
from triage_app.files.export import REVIEW_BELOW, neutralise_formulas, results_frame, write_atomic
from triage_app.scale.rows import CARRIED, FALLBACK, ROW, SCORES, TRUNCATED

OUTPUT_FORMATS = ("parquet", "csv")


def output_format(path: str | Path) -> str:
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in OUTPUT_FORMATS:
        raise ValueError(f"{path}: a Ray run writes .{' or .'.join(OUTPUT_FORMATS)}")
    return fmt


def block_results(block: pd.DataFrame, label_names: list[str], person_labels=None,
                  review_below: float = REVIEW_BELOW) -> pd.DataFrame:
    """One scored block as the local command's columns (the same results_frame builds both)."""
    frame = block.drop(columns=list(CARRIED)).reset_index(drop=True)
    predictions = [Prediction(i, label_names, _scores(s), bool(t), bool(f))
                   for i, (s, t, f) in enumerate(zip(block[SCORES], block[TRUNCATED], block[FALLBACK]))]
    labels = person_labels(frame, block[ROW].tolist()) if person_labels else None
    return results_frame(frame, predictions, label_names, labels, review_below)


def _scores(cell) -> list[float] | None:
    # a blank ticket's scores arrive as None, NaN or pd.NA depending on pandas and Arrow versions
    return [float(x) for x in cell] if hasattr(cell, "__len__") else None


def write_results(frames: Iterable[pd.DataFrame], path: str | Path, label_names: list[str],
                  input_types: dict | None = None, excel_bom: bool = False) -> Path:
    """Stream result frames into one file, atomically (a failure leaves no file, not half of one).

    input_types: Arrow type per input column (Parquet only); otherwise read off the first frame.
    """
    path = Path(path)
    if output_format(path) == "csv":
        write_atomic(path, lambda tmp: _write_csv(frames, tmp, excel_bom))
    else:
        write_atomic(path, lambda tmp: _write_parquet(frames, tmp, label_names, input_types or {}))
    return path


def _write_csv(frames, tmp, excel_bom):
    with open(tmp, "w", encoding="utf-8-sig" if excel_bom else "utf-8", newline="") as f:
        for k, frame in enumerate(frames):
            neutralise_formulas(frame).to_csv(f, header=k == 0, index=False)


def _write_parquet(frames, tmp, label_names, input_types):
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = schema = None
    try:
        for frame in frames:
            if writer is None:
                schema = _result_schema(frame, label_names, input_types)
                writer = pq.ParquetWriter(tmp, schema)
            writer.write_table(pa.Table.from_pandas(frame, schema=schema, preserve_index=False))
    finally:
        if writer is not None:
            writer.close()


def _result_schema(frame: pd.DataFrame, label_names: list[str], input_types: dict):
    # Every column gets a type fixed up front: a first block of blank tickets (or of empty
    # JSONL fields) would otherwise type its column as null and every later block would not fit.
    import pyarrow as pa

    fixed = dict(input_types, label=pa.string(), confidence=pa.float64(), margin=pa.float64(),
                 person=pa.bool_(), needs_review=pa.bool_(), truncated=pa.bool_())
    fixed |= {f"p_{name}": pa.float64() for name in label_names}
    inferred = pa.Schema.from_pandas(frame, preserve_index=False)
    return pa.schema([pa.field(f.name, fixed.get(f.name, f.type)) for f in inferred])
