"""Excel workbooks: one sheet's used range read cell by cell as text, bounded against crafted files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from triage_app.files import limits
from triage_app.files.delimiters import TITLE_CHECK_ROWS, TITLE_ROWS, title_note, title_rows
from triage_app.files.table import (ABSENT, MAX_CELLS, BadInput, TicketTable, cell_text, filled, repeated_names_note,
                                    unique_names)
from triage_app.quiet import in_steps, silenced


def read_xlsx(path: Path, sheet: str | int | None, limit: int | None = None) -> TicketTable:
    """The sheet's used range as text, read cell by cell: the sheet's own claim of its size is not trusted.
    Read no further than `limit` tickets, or one past limits.MAX_ROWS (for the reader to refuse)."""
    limits.check_unpacked_bytes(path)
    book = _workbook(path, data_only=True)
    try:
        sheets = [worksheet.title for worksheet in book.worksheets]      # a chart sheet holds no cells
        if not sheets:
            raise BadInput(f"{path.name}: no sheet of cells, only charts")
        tickets = min(limit or limits.MAX_ROWS + 1, limits.MAX_ROWS + 1)
        if sheet is None:
            name, cells, blanks = _first_sheet(book, path.name, tickets)
        else:
            name = _sheet_name(book.sheetnames, sheets, sheet, path.name)
            cells, blanks = _sheet_cells(book[name], path.name, tickets)
    finally:
        book.close()
    uncached = _uncached_formulas(path, name, cells) if blanks else []
    frame, header, titles = _sheet_frame(cells)
    notes = [f"read sheet {name!r} of {len(sheets)}"] if len(sheets) > 1 else []
    notes += title_note(titles) + repeated_names_note(header)
    if uncached:
        notes.append(_uncached_note(uncached, cells, frame, len(titles)))
    return TicketTable(path, frame, "xlsx", sheet=name, warnings=notes)


def _workbook(path: Path, data_only: bool):
    """The workbook, opened read-only; its rows are read through in_steps. openpyxl's notes on styles and
    dates are not the user's concern."""
    import openpyxl

    with silenced():
        try:
            return openpyxl.load_workbook(path, read_only=True, data_only=data_only)
        except Exception as exc:
            raise BadInput(f"{path.name}: not a readable Excel workbook ({exc.__class__.__name__})") from None


def _first_sheet(book, file_name: str, tickets: int) -> tuple[str, dict[tuple[int, int], str], bool]:
    """The first visible sheet that holds cells, and its cells. Not the active one: a summary or pivot saved
    active after the tickets would be read in their place, by the window too, which offers no other sheet; and
    not a hidden one, a lookup table in front of the tickets."""
    visible = [w for w in book.worksheets if w.sheet_state == "visible"] or book.worksheets[:1]
    for worksheet in visible:
        cells, blanks = _sheet_cells(worksheet, file_name, tickets)
        if cells:
            return worksheet.title, cells, blanks
    return visible[0].title, {}, False


def _sheet_name(every: list[str], sheets: list[str], sheet: str | int, file_name: str) -> str:
    """every: the workbook's tabs, by name (a number counts them); sheets: those that hold cells."""
    if isinstance(sheet, int):
        if not 0 <= sheet < len(every):
            raise BadInput(f"{file_name}: no sheet number {sheet + 1}; it has {len(every)}")
        sheet = every[sheet]
    if sheet not in every:
        raise BadInput(f"{file_name}: no sheet {sheet!r}; the sheets are {', '.join(sheets)}")
    if sheet not in sheets:
        raise BadInput(f"{file_name}: sheet {sheet!r} is a chart, not cells; the sheets are {', '.join(sheets)}")
    return sheet


def _sheet_cells(worksheet, file_name: str, tickets: int) -> tuple[dict[tuple[int, int], str], bool]:
    """(row, column) -> text of every cell with a value, up to the header and this many rows of tickets,
    and whether any cell was present but blank."""
    from openpyxl.utils import get_column_letter

    worksheet.reset_dimensions()  # rows then come as written, not padded to the <dimension> the file claims
    cells, blanks = {}, False
    top = left = bottom = right = None
    filled_rows = ones = 0   # ones: the first rows of one cell each, which may be a title above the header

    def rows_wanted() -> int:   # the rows that tell a title from the header are read even past the tickets asked for
        return max(tickets, TITLE_CHECK_ROWS) + min(ones, TITLE_ROWS)

    # a step never draws a row past the one that may end the read: the rest of a long sheet is never parsed
    for row in in_steps(worksheet.iter_rows(), step=lambda: min(64, rows_wanted() + 1 - filled_rows)):
        texts = []
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
            texts.append(cells.setdefault((r, c), cell_text(cell.value, cell.number_format)))
        filled_rows += filled(texts)
        ones += ones == filled_rows - 1 and sum(1 for text in texts if text.strip()) == 1
        if filled_rows > rows_wanted():  # the header and the tickets asked for are in: the rest is never parsed
            break
    return cells, blanks


def _sheet_frame(cells: dict[tuple[int, int], str]) -> tuple[pd.DataFrame, list[str], list[list[str]]]:
    """The used range, its header (its first non-blank row below a title, if any) and the title's rows; blank
    rows are not tickets."""
    if not cells:
        return pd.DataFrame(), [], []
    left = min(c for _, c in cells)
    width = max(c for _, c in cells) - left + 1
    rows: dict[int, list[str]] = {}
    for (r, c), text in cells.items():
        rows.setdefault(r, [""] * width)[c - left] = text
    grid = [rows[r] for r in sorted(rows) if filled(rows[r])]
    if not grid:
        return pd.DataFrame(), [], []
    title = title_rows(grid[:TITLE_ROWS + 1 + TITLE_CHECK_ROWS])
    titles, header, grid = grid[:title], grid[title], grid[title + 1:]
    named = [c for c, name in enumerate(header) if name.strip()]
    for row in grid:    # a stray cell's column: the rows without one do not have it
        for c in [*range(named[0]), *range(named[-1] + 1, width)]:
            row[c] = row[c] or ABSENT
    return pd.DataFrame(grid, columns=unique_names(header), dtype=object), header, titles


def _uncached_formulas(path: Path, name: str, cells: dict) -> list[tuple[int, int]]:
    """Formula cells the file holds no computed value for (written by a program, never opened in Excel)."""
    book = _workbook(path, data_only=False)
    try:
        worksheet = book[name]
        worksheet.reset_dimensions()
        # no further than the rows read: the rest of a long sheet is never parsed
        rows = in_steps(worksheet.iter_rows(max_row=max((r for r, _ in cells), default=1)))
        return [(cell.row, cell.column) for row in rows for cell in row
                if cell.data_type == "f" and (cell.row, cell.column) not in cells]
    finally:
        book.close()


def _uncached_note(uncached: list[tuple[int, int]], cells: dict, frame: pd.DataFrame, titles: int) -> str:
    header_row = sorted({r for r, _ in cells})[titles]
    left = min(c for _, c in cells)
    names = list(frame.columns)
    per_column: dict[str, int] = {}
    for r, c in uncached:
        if r > header_row and 0 <= c - left < len(names):
            per_column[names[c - left]] = per_column.get(names[c - left], 0) + 1
    counts = ", ".join(f"{n} in {column!r}" for column, n in per_column.items())
    return (f"{len(uncached)} formula cell(s) have no computed value and were read as blank ({counts or 'outside the table'}); "
            "open and save the file in Excel to compute them")
