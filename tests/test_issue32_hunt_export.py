"""Issue 32, the hunt: an XLSX export wider than an Excel sheet is refused in one line, as a longer one is,
never written for Excel to cut or refuse on opening."""

from __future__ import annotations

import pandas as pd
import pytest

from triage_app.files.export import EXCEL_MAX_COLUMNS, ExportFailed, export


def test_an_export_wider_than_a_sheet_is_refused(tmp_path):
    frame = pd.DataFrame([[""] * (EXCEL_MAX_COLUMNS + 1)], columns=[f"c{k}" for k in range(EXCEL_MAX_COLUMNS + 1)])
    with pytest.raises(ExportFailed) as refused:
        export(frame, tmp_path / "wide.xlsx")
    assert "wide.xlsx" in str(refused.value) and f"{EXCEL_MAX_COLUMNS + 1:,}" in str(refused.value)
    assert list(tmp_path.iterdir()) == []



def test_the_cut_note_names_a_long_column_by_its_start(tmp_path):
    """A header longer than a cell holds is itself cut, and named: by its first characters, not all 40,000."""
    name = "subject " + "x" * 40_000
    notes: list[str] = []
    export(pd.DataFrame({name: ["a"], "text": ["b" * 40_000]}), tmp_path / "long.xlsx", notes=notes)
    assert len(notes) == 1 and len(notes[0]) < 1_000
    assert "subject xx" in notes[0] and "text" in notes[0] and "2 cell(s)" in notes[0]
