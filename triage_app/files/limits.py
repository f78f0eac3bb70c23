"""What one ticket file may cost to read, in one place, and the one-line refusals past it.

Each bound is checked before the work it bounds: a file's size before its bytes are read, a
workbook's unpacked size (the sizes its zip declares) before a sheet is parsed, the rows as they
are read. Past one, the file is refused with a line naming it, the limit and the way out. How
long and how much memory a file at the limits costs is measured in docs/files.md.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from triage_app.files.table import BadInput

MAX_FILE_BYTES = 256 << 20       # a CSV, TSV, JSON or JSONL file read whole
MAX_ROWS = 500_000               # tickets in one file
MAX_UNPACKED_BYTES = 256 << 20   # a workbook's parts, unpacked: a few kilobytes can claim gigabytes
MAX_CELL_CHARS = 8 << 20         # one field: long tickets are truncated and flagged by the engine, not refused here
WAY_OUT = "split the file, or read its first rows only (triage-app classify --limit N)"


def check_file_bytes(path: Path) -> None:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise BadInput(f"{path.name}: {_mib(size)} MiB, more than Triage reads at once ({_mib(MAX_FILE_BYTES)} MiB); "
                       f"{WAY_OUT}")


def check_unpacked_bytes(path: Path) -> None:
    """The sizes the workbook's zip declares, read from its directory before anything is unpacked."""
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise BadInput(f"{path.name}: not a readable Excel workbook ({exc.__class__.__name__})") from None
    if unpacked > MAX_UNPACKED_BYTES:
        raise BadInput(f"{path.name}: unpacks to {_mib(unpacked)} MiB, more than Triage reads at once "
                       f"({_mib(MAX_UNPACKED_BYTES)} MiB); save the tickets as CSV and {WAY_OUT}")


def check_rows(path: Path, rows: int) -> None:
    if rows > MAX_ROWS:
        raise BadInput(f"{path.name}: more than {MAX_ROWS:,} tickets, more than Triage reads at once; {WAY_OUT}")


def _mib(size: int) -> str:
    return f"{size / 2**20:,.0f}"
