"""inspect: what Triage reads from a ticket file."""

from __future__ import annotations

import json


def run(args) -> int:
    from triage_app.files import reader

    table = reader.read_tickets(args.input, args.sheet)
    try:
        column = reader.detect_text_column(table)
    except reader.BadInput:
        column = None
    blank = int((table.frame[column].str.strip() == "").sum()) if column else 0
    info = {"file": str(table.path), "format": table.format, "rows": len(table.frame), "columns": table.columns,
            "text_column": column, "subject_column": reader.detect_subject_column(table),
            "encoding": table.encoding, "delimiter": table.delimiter, "sheet": table.sheet,
            "blank_texts": blank, "cleaning_keeps": cleaning_keeps(table.frame[column].tolist()) if column else None,
            "warnings": table.warnings + ([] if column else ["no ticket text column found"])}
    if args.json:
        print(json.dumps(info, indent=2, ensure_ascii=False))
    else:
        for key, value in info.items():
            print(f"{key:>14}: {value}")
    return 0


INSPECT_SAMPLE = 1000  # texts the cleaning share is measured on: inspect stays quick on a big export


def cleaning_keeps(texts: list[str]) -> float | None:
    """The share of characters the default cleaning keeps, over the first filled texts."""
    from triage_app.files.clean import clean_texts

    sample = [t.strip() for t in texts if t.strip()][:INSPECT_SAMPLE]
    before = sum(map(len, sample))
    return round(sum(map(len, clean_texts(sample))) / before, 3) if before else None
