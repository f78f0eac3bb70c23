"""The input's row index: fixed once per row, carried through every block, checked on the way out.

Ray retries a failed block; a retry must replace the lost attempt, never add to it. Rather than
trust that, the driver checks every row index as it streams (0, 1, 2, ... with no gap and no
repeat) and fails before the output is renamed into place.

Only pyarrow here: Ray runs the index helpers as small tasks, which should not import torch.
"""

from __future__ import annotations

from collections.abc import Iterable

ROW = "_triage_row"          # the input's row index
SCORES = "_triage_scores"    # log-probability per label, None for a blank ticket
TRUNCATED = "_triage_truncated"
FALLBACK = "_triage_fallback"
CARRIED = (ROW, SCORES, TRUNCATED, FALLBACK)


class RowsNotExactlyOnce(RuntimeError):
    """The blocks did not hold every input row exactly once: the output is not written."""


def num_rows(table) -> int:
    return table.num_rows


def add_row_index(table, offset: int):
    """A block with its rows numbered from offset (the rows of every block before it)."""
    import pyarrow as pa

    return table.append_column(ROW, pa.array(range(offset, offset + table.num_rows), pa.int64()))


def in_order(blocks: Iterable, total: int) -> Iterable:
    """Pass blocks (DataFrames) through, raising unless their rows are exactly 0 .. total-1 in order."""
    expected = 0
    for block in blocks:
        rows = block[ROW].tolist()
        if rows != list(range(expected, expected + len(rows))):
            seen = f"{rows[0]}..{rows[-1]}" if rows else "nothing"
            raise RowsNotExactlyOnce(f"expected row {expected} next, a block held {seen}")
        expected += len(rows)
        yield block
    if expected != total:
        raise RowsNotExactlyOnce(f"{expected} rows came back of {total}")
