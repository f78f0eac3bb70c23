"""The helpdesk's way back: per ticket id, the fields Triage is sure enough to set (docs/helpdesk_updates.md).

An axis's value goes into the updates where a person set it in the window, or where the model (or
the learned layer) is at least that axis's --apply-above sure; otherwise the field is left alone and
the helpdesk keeps what it has. A person's label read from the file's own column (--person-labels) is
the helpdesk's value already, so it is never sent back. A ticket with no field to set is left out.

One record per id, whatever rows repeat it (an export with one row per message does): rows that
agree are one update; where they disagree a person's label beats a model's answer, and a field still
in dispute is left out, counted, never guessed (a bulk update would apply whichever came last).

The id goes back exactly as the file spells it, spaces included: the helpdesk matches it to a ticket.

CSV: id, then one column per axis, blank where not set. JSON: a list of
{"id": "...", "fields": {"queue": "...", "priority": "..."}}, the id as the file spells it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from triage_app.files.axes_export import AxisAnswers
from triage_app.files.export import runs_as_formula, write_or_fail, write_text

APPLY_ABOVE = 0.7
FORMATS = ("csv", "json")
# a helpdesk export's ticket id, spelled as Zendesk, Freshdesk, Jira and plain spreadsheets spell it
ID_COLUMNS = ("id", "ticket_id", "ticketid", "ticket_number", "ticket_no", "number", "case_id", "case_number",
              "issue_key", "key")
NAMED = 5    # ids a note names before it says how many more


@dataclass(slots=True)
class Updates:
    records: list[dict]      # {"id": ..., "fields": {axis: value}}, one per ticket id with a field to set
    without_id: int = 0      # rows with a field to set but a blank id: nothing to send them to
    conflicts: dict[str, list[str]] = field(default_factory=dict)  # id -> axes its rows disagree on, left out
    settled: list[str] = field(default_factory=list)   # ids whose rows disagreed, decided by a person's label
    kept: list[str] = field(default_factory=list)      # ...decided by the file's own value: nothing to send
    refused: list[str] = field(default_factory=list)   # ids left out of the file written last (write says why)

    @property
    def fields(self) -> int:
        return sum(len(r["fields"]) for r in self.records)

    @property
    def written(self) -> list[dict]:
        """The records the file written last holds (a CSV leaves the refused ids out)."""
        refused = set(self.refused)
        return [r for r in self.records if r["id"] not in refused]

    @property
    def notes(self) -> list[str]:
        """One line each for what a person must know about the file: ids repeated with different
        values, and ids the file written last could not hold."""
        out = []
        if self.conflicts:
            named = [f"{i!r} ({', '.join(axes)})" for i, axes in self.conflicts.items()]
            out.append(f"{len(named)} ticket id(s) are on several rows with different values that nothing decides "
                       f"(the model's answers, or your labels, disagree); those fields are left out: {_first(named)}")
        if self.settled:
            out.append(f"{len(self.settled)} ticket id(s) are on several rows with different values; "
                       f"a person's label decided: {_first(list(map(repr, self.settled)))}")
        if self.kept:
            out.append(f"{len(self.kept)} ticket id(s) are on several rows with different values; the file's "
                       f"own value decided, so nothing is sent: {_first(list(map(repr, self.kept)))}")
        if self.refused:
            out.append(f"{len(self.refused)} ticket(s) left out of the CSV: a spreadsheet would run their id or "
                       f"value as a formula, and the helpdesk must get them unchanged; write the updates as .json "
                       f"to keep them: {_first(list(map(repr, self.refused)))}")
        return out


class Answer(NamedTuple):
    value: str
    who: str     # "file": the helpdesk's own value (--person-labels); "person": set in the window; "model"


def _first(named: list[str]) -> str:
    return ", ".join(named[:NAMED]) + (f" and {len(named) - NAMED} more" if len(named) > NAMED else "")


def detect_id_column(columns: Sequence[str]) -> str | None:
    """The first column named like a ticket id ("Ticket ID" reads as ticket_id)."""
    plain = {re.sub(r"[^a-z0-9]+", "_", str(c).strip().lower()).strip("_"): c for c in reversed(columns)}
    return next((plain[name] for name in ID_COLUMNS if name in plain), None)


def check_path(path: str, axis_names: list[str]) -> None:
    """Said before the model loads, not after the run."""
    if Path(path).suffix.lower().lstrip(".") not in FORMATS:
        raise ValueError(f"{path}: the updates are .csv or .json")
    # "ID" next to "id": a tool that reads headers without case (Excel's Power Query, PowerShell) takes either
    named = [name for name in axis_names if name.strip().casefold() == "id"]
    if named:
        raise ValueError(f"an axis named {named[0]} cannot be written next to the ticket id; rename the axis")


def answered(answers: AxisAnswers, rows: int, above: float) -> list[Answer | None]:
    """Per row, this axis's answer that counts for the helpdesk, or None: nothing sure enough."""
    by_row = {p.index: p for p in answers.predictions}
    out = []
    for row in range(rows):
        if row in answers.person_labels:
            out.append(Answer(answers.person_labels[row], "file" if row in answers.from_file else "person"))
            continue
        p = by_row.get(row)
        sure = p is not None and p.confidence is not None and p.confidence >= above
        out.append(Answer(p.label, "model") if sure else None)
    return out


def updates(ids: Sequence[str], answers: list[AxisAnswers], above: dict[str, float]) -> Updates:
    """ids: each row's ticket id as the file holds it; above: axis name -> its --apply-above."""
    per_axis = {a.axis.name: answered(a, len(ids), above[a.axis.name]) for a in answers}
    out = Updates([])
    rows_of: dict[str, list[int]] = {}    # id -> its rows, ids in the order they first appear
    for row, ticket in enumerate(ids):
        sends = any(v[row] is not None and v[row].who != "file" for v in per_axis.values())
        if ticket is not None and str(ticket).strip():
            rows_of.setdefault(str(ticket), []).append(row)
        else:
            out.without_id += sends
    for ticket, rows in rows_of.items():
        fields = {}
        for name, per_row in per_axis.items():
            value = _one_value(ticket, name, [per_row[r] for r in rows if per_row[r] is not None], out)
            if value is not None:
                fields[name] = value
        if fields:
            out.records.append({"id": ticket, "fields": fields})
    return out


def _one_value(ticket: str, axis: str, given: list[Answer], out: Updates) -> str | None:
    """The value an id's rows give this axis, or None: none to send, or rows that disagree (noted in out)."""
    deciding = [a for a in given if a.who != "model"] or given
    values = {a.value for a in deciding}
    if len(values) > 1:
        out.conflicts.setdefault(ticket, []).append(axis)
        return None
    decided = out.kept if deciding and all(a.who == "file" for a in deciding) else out.settled
    if len({a.value for a in given}) > 1 and ticket not in decided:
        decided.append(ticket)
    if not deciding or all(a.who == "file" for a in deciding):
        return None    # nothing given, or the helpdesk holds this value already
    return values.pop()


def write(found: Updates, axis_names: list[str], path: str | Path) -> Path:
    """Atomically, as CSV or JSON by the suffix. found.refused: the tickets the CSV cannot hold unchanged."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        found.refused = [r["id"] for r in found.records if any(map(runs_as_formula, [r["id"], *r["fields"].values()]))]
        rows = [{"id": r["id"], **{name: r["fields"].get(name) for name in axis_names}} for r in found.written]
        frame = pd.DataFrame(rows, columns=["id", *axis_names], dtype=object)
        # not export(): its formula guard would change an id; what it guards against is refused above
        return write_or_fail(path, lambda tmp: frame.to_csv(tmp, index=False, encoding="utf-8"))
    found.refused = []
    return write_text(path, json.dumps(found.records, indent=2, ensure_ascii=False) + "\n")
