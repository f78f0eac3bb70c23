"""The helpdesk's way back: per ticket id, the fields Triage is sure enough to set (docs/helpdesk_updates.md).

An axis's value goes into the updates where a person set it in the window, or where the model (or
the learned layer) is at least that axis's --apply-above sure; otherwise the field is left alone and
the helpdesk keeps what it has. A person's label read from the file's own column (--learn-from) is
the helpdesk's value already, so it is never sent back. A ticket with no field to set is left out.

CSV: id, then one column per axis, blank where not set. JSON: a list of
{"id": "...", "fields": {"queue": "...", "priority": "..."}}, the id as the file spells it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from triage_app.files.axes_export import AxisAnswers
from triage_app.files.export import export, write_atomic

APPLY_ABOVE = 0.7
FORMATS = ("csv", "json")
# a helpdesk export's ticket id, spelled as Zendesk, Freshdesk, Jira and plain spreadsheets spell it
ID_COLUMNS = ("id", "ticket_id", "ticketid", "ticket_number", "ticket_no", "number", "case_id", "case_number",
              "issue_key", "key")


@dataclass(slots=True)
class Updates:
    records: list[dict]      # {"id": ..., "fields": {axis: value}}, one per ticket with a field to set
    without_id: int = 0      # rows with a field to set but a blank id: nothing to send them to

    @property
    def fields(self) -> int:
        return sum(len(r["fields"]) for r in self.records)


def detect_id_column(columns: Sequence[str]) -> str | None:
    """The first column named like a ticket id ("Ticket ID" reads as ticket_id)."""
    plain = {re.sub(r"[^a-z0-9]+", "_", str(c).strip().lower()).strip("_"): c for c in reversed(columns)}
    return next((plain[name] for name in ID_COLUMNS if name in plain), None)


def check_path(path: str, axis_names: list[str]) -> None:
    """Said before the model loads, not after the run."""
    if Path(path).suffix.lower().lstrip(".") not in FORMATS:
        raise ValueError(f"{path}: the updates are .csv or .json")
    if "id" in axis_names:
        raise ValueError("an axis named id cannot be written next to the ticket id; rename the axis")


def applied(answers: AxisAnswers, rows: int, above: float) -> list[str | None]:
    """Per row, the value to set on this axis, or None to leave the helpdesk's as it is."""
    by_row = {p.index: p for p in answers.predictions}
    out = []
    for row in range(rows):
        if row in answers.manual:
            out.append(None if row in answers.from_file else answers.manual[row])
            continue
        p = by_row.get(row)
        sure = p is not None and p.confidence is not None and p.confidence >= above
        out.append(p.label if sure else None)
    return out


def updates(ids: Sequence[str], answers: list[AxisAnswers], above: dict[str, float]) -> Updates:
    """ids: each row's ticket id as the file holds it; above: axis name -> its --apply-above."""
    values = {a.axis.name: applied(a, len(ids), above[a.axis.name]) for a in answers}
    out = Updates([])
    for row, ticket in enumerate(ids):
        fields = {name: v[row] for name, v in values.items() if v[row] is not None}
        if not fields:
            continue
        if str(ticket or "").strip():
            out.records.append({"id": str(ticket).strip(), "fields": fields})
        else:
            out.without_id += 1
    return out


def write(found: Updates, axis_names: list[str], path: str | Path) -> Path:
    """Atomically, as CSV or JSON by the suffix."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        rows = [{"id": r["id"], **{name: r["fields"].get(name) for name in axis_names}} for r in found.records]
        return export(pd.DataFrame(rows, columns=["id", *axis_names]), path, "csv")
    text = json.dumps(found.records, indent=2, ensure_ascii=False) + "\n"
    write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return path
