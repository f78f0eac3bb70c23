"""Excel workbooks: one sheet's used range read cell by cell as text, bounded against crafted files."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from triage_app.files.table import MAX_CELLS, BadInput, TicketTable, filled, unique_names

# A few kilobytes of workbook must not unpack into gigabytes.
MAX_UNPACKED_BYTES = 1 << 30


def read_xlsx(path: Path, sheet: str | int | None) -> TicketTable:
    """The sheet's used range as text, read cell by cell: the sheet's own claim of its size is not trusted."""
    import openpyxl

    _check_unpacked_size(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # openpyxl's notes on styles and dates are not the user's concern
        try:
            book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        except Exception as exc:
            raise BadInput(f"{path.name}: not a readable Excel workbook ({exc.__class__.__name__})") from None
        try:
            sheets = book.sheetnames
            name = _sheet_name(sheets, sheet, path.name)
            cells, blanks = _sheet_cells(book[name], path.name)
        finally:
            book.close()
        uncached = _uncached_formulas(path, name, cells) if blanks else []
    frame = _sheet_frame(cells)
    notes = [f"read sheet {name!r} of {len(sheets)}"] if len(sheets) > 1 else []
    if uncached:
        notes.append(_uncached_note(uncached, cells, frame))
    return TicketTable(path, frame, "xlsx", sheet=name, warnings=notes)


def _check_unpacked_size(path: Path) -> None:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise BadInput(f"{path.name}: not a readable Excel workbook ({exc.__class__.__name__})") from None
    if unpacked > MAX_UNPACKED_BYTES:
        raise BadInput(f"{path.name}: unpacks to {unpacked / 2**30:.1f} GiB, more than Triage reads "
                       f"({MAX_UNPACKED_BYTES >> 30} GiB); save the tickets as CSV")


def _sheet_name(sheets: list[str], sheet: str | int | None, file_name: str) -> str:
    if sheet is None:
        return sheets[0]
    if isinstance(sheet, int):
        if not 0 <= sheet < len(sheets):
            raise BadInput(f"{file_name}: no sheet number {sheet + 1}; it has {len(sheets)}")
        return sheets[sheet]
    if sheet not in sheets:
        raise BadInput(f"{file_name}: no sheet {sheet!r}; the sheets are {', '.join(sheets)}")
    return sheet


def _sheet_cells(worksheet, file_name: str) -> tuple[dict[tuple[int, int], str], bool]:
    """(row, column) -> text of every cell with a value, and whether any cell was present but blank."""
    from openpyxl.utils import get_column_letter

    worksheet.reset_dimensions()  # rows then come as written, not padded to the <dimension> the file claims
    cells, blanks = {}, False
    top = left = bottom = right = None
    for row in worksheet.iter_rows():
        for cell in row:
            if cell.value is None:
                blanks = blanks or hasattr(cell, "row")  # a real cell (a formula not yet computed, or styling)
                continue
            r, c = cell.row, cell.column
            top, bottom = min(top or r, r), max(bottom or r, r)
            left, right = min(left or c, c), max(right or c, c)
            if (bottom - top + 1) * (right - left + 1) > MAX_CELLS:
                raise BadInput(f"{file_name}: the sheet reaches cell {get_column_letter(c)}{r}, a range of "
                               f"{(bottom - top + 1) * (right - left + 1):,} cells, more than Triage reads "
                               f"({MAX_CELLS:,}); delete the stray cells or save the tickets as CSV")
            cells[r, c] = _cell_text(cell.value)
    return cells, blanks


def _cell_text(value) -> str:
    # as pandas' read_excel(dtype=str) writes them: 2.0 -> "2", a date -> "2026-11-30 00:00:00"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def _sheet_frame(cells: dict[tuple[int, int], str]) -> pd.DataFrame:
    """The used range: its first non-blank row is the header; blank rows are not tickets."""
    if not cells:
        return pd.DataFrame()
    left = min(c for _, c in cells)
    width = max(c for _, c in cells) - left + 1
    rows: dict[int, list[str]] = {}
    for (r, c), text in cells.items():
        rows.setdefault(r, [""] * width)[c - left] = text
    grid = [rows[r] for r in sorted(rows) if filled(rows[r])]
    if not grid:
        return pd.DataFrame()
    return pd.DataFrame(grid[1:], columns=unique_names(grid[0]), dtype=object)


def _uncached_formulas(path: Path, name: str, cells: dict) -> list[tuple[int, int]]:
    """Formula cells the file holds no computed value for (written by a program, never opened in Excel)."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        worksheet = book[name]
        worksheet.reset_dimensions()
        return [(cell.row, cell.column) for row in worksheet.iter_rows() for cell in row
                if cell.data_type == "f" and (cell.row, cell.column) not in cells]
    finally:
        book.close()


def _uncached_note(uncached: list[tuple[int, int]], cells: dict, frame: pd.DataFrame) -> str:
    header_row = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    names = list(frame.columns)
    per_column: dict[str, int] = {}
    for r, c in uncached:
        if r > header_row and 0 <= c - left < len(names):
            per_column[names[c - left]] = per_column.get(names[c - left], 0) + 1
    counts = ", ".join(f"{n} in {column!r}" for column, n in per_column.items())
    return (f"{len(uncached)} formula cell(s) have no computed value and were read as blank ({counts or 'outside the table'}); "
            "open and save the file in Excel to compute them")
