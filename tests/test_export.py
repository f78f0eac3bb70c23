"""Results out: columns, formats, formula injection, atomic writes."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from triage_app.engine.classifier import Prediction
from triage_app.files import export as export_module
from triage_app.files.export import (ExportFailed, export, neutralise_formulas, renamed_input_columns,
                                     results_frame)
from triage_app.files.reader import read_tickets

NAMES = ["billing", "technical"]


@pytest.fixture
def results():
    frame = pd.DataFrame({"id": ["1", "2", "3"], "text": ["=HYPERLINK(\"http://x\")", "", "@SUM(A1) -2 +3"]},
                         dtype=object)
    predictions = [Prediction(2, NAMES, [math.log(0.9), math.log(0.1)], truncated=True),
                   Prediction(0, NAMES, [math.log(0.05), math.log(0.95)])]
    return results_frame(frame, predictions, NAMES, person_labels={2: "technical"})


def test_results_frame_keeps_rows_and_adds_columns(results):
    assert results.columns.tolist() == ["id", "text", "label", "confidence", "margin", "p_billing",
                                        "p_technical", "person", "needs_review", "truncated", "source"]
    assert results["id"].tolist() == ["1", "2", "3"]
    assert results["label"].tolist()[::2] == ["technical", "technical"]  # row 3: the person's label wins
    assert pd.isna(results.loc[1, "label"])                             # a blank ticket: no label
    assert results["person"].tolist() == [False, False, True]
    assert results["truncated"].tolist() == [False, False, True]
    assert results["source"].tolist() == ["model", "model", "person"]  # without learning: the person's or the model's
    # row 1: 0.95 sure; row 2: blank, so a person must look; row 3: a person already did
    assert results["needs_review"].tolist() == [False, True, False]
    assert results.loc[0, "p_billing"] + results.loc[0, "p_technical"] == pytest.approx(1)


def test_review_threshold_marks_unsure_model_labels():
    frame = pd.DataFrame({"text": ["a", "b"]}, dtype=object)
    predictions = [Prediction(0, NAMES, [math.log(0.69), math.log(0.31)]),
                   Prediction(1, NAMES, [math.log(0.71), math.log(0.29)])]
    assert results_frame(frame, predictions, NAMES)["needs_review"].tolist() == [True, False]
    assert results_frame(frame, predictions, NAMES, review_below=0.6)["needs_review"].tolist() == [False, False]


def test_formulas_are_neutralised_in_spreadsheets_but_raw_in_json(results, tmp_path):
    for name in ("r.csv", "r.xlsx"):
        back = read_tickets(export(results, tmp_path / name)).frame
        assert back["text"].tolist() == ["'=HYPERLINK(\"http://x\")", "", "'@SUM(A1) -2 +3"]
    back = json.loads((export(results, tmp_path / "r.json")).read_text(encoding="utf-8"))
    assert back[0]["text"] == "=HYPERLINK(\"http://x\")"
    lines = (export(results, tmp_path / "r.jsonl")).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[2])["text"] == "@SUM(A1) -2 +3" and json.loads(lines[2])["person"] is True


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-1", "@x", "\tx", "\rx"])
def test_every_formula_start_is_neutralised(cell):
    frame = pd.DataFrame({"a": [cell, "safe"]}, dtype=object)
    assert neutralise_formulas(frame)["a"].tolist() == ["'" + cell, "safe"]


def test_excel_bom_option(results, tmp_path):
    assert not export(results, tmp_path / "plain.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert export(results, tmp_path / "excel.csv", excel_bom=True).read_bytes().startswith(b"\xef\xbb\xbf")


def test_round_trip_every_format(results, tmp_path):
    for name in ("r.csv", "r.xlsx", "r.json", "r.jsonl"):
        back = read_tickets(export(results, tmp_path / name)).frame
        assert back["id"].tolist() == ["1", "2", "3"], name
        assert back["label"].tolist()[0] == "technical", name


def test_a_crash_mid_export_leaves_the_old_file_whole(results, tmp_path, monkeypatch):
    target = tmp_path / "results.csv"
    target.write_text("the user's earlier export\n")

    def crash_half_way(self, f, **kwargs):
        with open(f, "w") as out:
            out.write("id,text\n1,half")
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", crash_half_way)
    with pytest.raises(ExportFailed, match="^cannot write results.csv: disk full$"):
        export(results, target)
    assert target.read_text() == "the user's earlier export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.csv"]  # no partial file left behind


def test_unknown_export_format(results, tmp_path):
    with pytest.raises(ValueError, match="cannot export to 'txt'"):
        export(results, tmp_path / "r.txt")
    assert export_module.FORMATS == ("csv", "xlsx", "json", "jsonl")


def test_headers_are_neutralised_and_xlsx_holds_text_cells_only(tmp_path):
    """A header =HYPERLINK(...) was written to XLSX as a live formula, and to CSV as it was."""
    import openpyxl

    frame = pd.DataFrame({"=HYPERLINK(\"http://x\",\"y\")": ["=1+1", "@SUM(A1)"], "text": ["a", "b"]}, dtype=object)
    out = results_frame(frame, [Prediction(0, ["@cmd", "b"], [math.log(0.9), math.log(0.1)])], ["@cmd", "b"])
    header = "'=HYPERLINK(\"http://x\",\"y\")"
    assert read_tickets(export(out, tmp_path / "r.csv")).columns[0] == header
    sheet = openpyxl.load_workbook(export(out, tmp_path / "r.xlsx")).active
    cells = [cell for row in sheet.iter_rows() for cell in row if isinstance(cell.value, str)]
    assert cells and {cell.data_type for cell in cells} == {"s"}          # no formula anywhere
    assert [c.value for c in sheet[1]][:2] == [header, "text"]
    assert [c.value for c in sheet["A"]][1:] == ["'=1+1", "'@SUM(A1)"]
    assert sheet["C2"].value == "'@cmd" and sheet["D1"].value == "confidence"
    assert isinstance(sheet["D2"].value, float) and sheet["C3"].value is None   # numbers stay numbers, blanks blank


def test_input_columns_named_like_ours_are_kept_under_another_name():
    """An input column called label (often the right answers) was silently replaced by the model's labels."""
    frame = pd.DataFrame({"text": ["a", "b"], "label": ["gold1", "gold2"], "p_billing": ["x", "y"],
                          "label_input": ["taken", "too"], "confidence": ["high", "low"]}, dtype=object)
    renames = renamed_input_columns(frame.columns, NAMES)
    assert renames == {"label": "label_input_2", "p_billing": "p_billing_input", "confidence": "confidence_input"}
    out = results_frame(frame, [Prediction(0, NAMES, [0.0, -1.0])], NAMES)
    assert out.columns.tolist()[:5] == ["text", "label_input_2", "p_billing_input", "label_input", "confidence_input"]
    assert out["label_input_2"].tolist() == ["gold1", "gold2"] and out["label_input"].tolist() == ["taken", "too"]
    assert out["label"].tolist()[0] == "billing" and out["p_billing"].notna().tolist() == [True, False]


def test_control_characters_reach_xlsx_as_newlines_or_not_at_all(tmp_path):
    """A \\x0b from Word, or a NUL past the first 8 KiB, made openpyxl raise IllegalCharacterError."""
    frame = pd.DataFrame({"text": ["line\x0bbreak", "x" * 9000 + "\x00nul\x1bescape", "page\x0cend"]}, dtype=object)
    back = read_tickets(export(results_frame(frame, [], NAMES), tmp_path / "r.xlsx")).frame
    assert back["text"].tolist() == ["line\nbreak", "x" * 9000 + "nulescape", "page\nend"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_exports_get_the_mode_the_umask_gives(results, tmp_path, umask, mode):
    """Every export was created 0600 (tempfile.mkstemp) whatever the umask."""
    import os

    old = os.umask(umask)
    try:
        for name in ("r.csv", "r.xlsx", "r.json"):
            assert export(results, tmp_path / name).stat().st_mode & 0o777 == mode, name
    finally:
        os.umask(old)


def test_a_replaced_export_keeps_its_mode(results, tmp_path):
    target = tmp_path / "r.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    export(results, target)
    assert target.stat().st_mode & 0o777 == 0o640 and "label" in target.read_text()


def test_a_failing_writer_is_one_line_and_leaves_nothing(results, tmp_path, monkeypatch):
    def refuse(frame, path):
        raise TypeError("a value the writer\ncannot take")
    monkeypatch.setattr(export_module, "_write_xlsx", refuse)
    with pytest.raises(ExportFailed, match="^cannot write r.xlsx: a value the writer cannot take$"):
        export(results, tmp_path / "r.xlsx")
    assert list(tmp_path.iterdir()) == []


def test_the_source_column_is_what_the_caller_says_and_survives_every_format(tmp_path):
    frame = pd.DataFrame({"text": ["a", "b", "c"]}, dtype=object)
    predictions = [Prediction(i, NAMES, [math.log(0.8), math.log(0.2)]) for i in range(3)]
    out = results_frame(frame, predictions, NAMES, person_labels={0: "technical"}, sources=["person", "learned", "model"])
    assert out["source"].tolist() == ["person", "learned", "model"]
    for name in ("r.csv", "r.xlsx", "r.jsonl"):
        assert read_tickets(export(out, tmp_path / name)).frame["source"].tolist() == ["person", "learned", "model"]
    # an input column called source is kept under another name, as label is
    renamed = results_frame(pd.DataFrame({"text": ["a"], "source": ["email"]}, dtype=object), predictions[:1], NAMES)
    assert renamed["source_input"].tolist() == ["email"] and renamed["source"].tolist() == ["model"]
