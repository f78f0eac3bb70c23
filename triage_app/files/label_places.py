"""Where a person's stored labels fall in a file as it is now: each at its row while the row's cells are
the same, at the nearest row with the same cells when rows were added or removed above it, at the nearest
row of its ticket (its id and text: files.ticket_keys.RowHashes) when other cells of it changed, counted as
not found when its ticket is gone (files.store keeps it for when it is back)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from triage_app.files.ticket_keys import holds

TAKEN_BACK = ""     # no label's name is empty (LabelSet refuses one): the row a person cleared
PERSON, FILE = "person", "file"     # a label's origin: typed by a person, or taken from the file's own column


@dataclass(frozen=True, slots=True)
class FileLabels:
    """A file's labels as a person gave them: {row: label name}, how many of its stored labels name a
    ticket the file no longer holds, and the rows whose label was taken from the file's own column (the
    helpdesk's value already: never sent back, files.updates), and the field's label renames on the file."""

    labels: dict[int, str]
    not_found: int = 0
    from_file: frozenset[int] = frozenset()
    renamed: dict[str, str] = field(default_factory=dict)  # a label's old name -> its name now (field_renames)


def place(stored: list[tuple], row_hashes: list[str]) -> tuple[dict[int, str], list[tuple[int, int, str, str]], int]:
    """stored: (row, row_hash, label) or (row, row_hash, label, ticket or None). Returns {row: label} for the file
    as it is now, the moves (old row, new row, hash stored, hash now) of labels whose ticket is now at another
    row (the nearest free row with the same cells, else with the same ticket) or was stored under the hash
    earlier versions gave its row (ticket_keys.holds), and the count of labels whose ticket is nowhere in the
    file. A row the person cleared (TAKEN_BACK) holds its place like a label: nothing moves onto it."""
    stored = [(*entry, None)[:4] for entry in stored]
    in_place = {(row, h) for row, h, _, _ in stored if row < len(row_hashes) and h == row_hashes[row]}
    found = {row: label for row, h, label, _ in stored if (row, h) in in_place}
    astray, moves = [], []
    for row, h, label, ticket in stored:   # the hash earlier versions gave the row, where none is stored under its own
        if (row, h) in in_place:
            continue
        if row < len(row_hashes) and row not in found and holds(row_hashes[row], h):
            found[row] = label
            moves.append((row, row, h, str(row_hashes[row])))
        else:
            astray.append((row, h, label, ticket))
    if astray:
        free: dict[str, list[int]] = {}
        for row, h in enumerate(row_hashes):
            if row not in found:
                for key in dict.fromkeys((h, getattr(h, "earlier", h))):
                    free.setdefault(key, []).append(row)
        # by their cells first, all of them: a ticket whose other cells changed never takes a row that another
        # label's unchanged cells name
        astray = _take(astray, lambda entry: free.get(entry[1], ()), found, moves, row_hashes)
        if any(ticket for *_, ticket in astray):
            tickets = _ticket_rows(row_hashes, found)
            astray = _take(astray, lambda entry: tickets.get(entry[3], ()), found, moves, row_hashes)
    return found, moves, sum(label != TAKEN_BACK for _, _, label, _ in astray)


def replayed(given: list[tuple[int, str, str | None]], row_hashes: list[str]
             ) -> tuple[dict[int, str | None], list[tuple[int, str]]]:
    """Labels given on a file's rows as they were read before (row, its hash with its ticket, label or None: taken
    back), the last word on each, placed at once on the file as it is now: {row now: label or None}, and the
    (row, hash) of each one that moved: its entry there is stale, to be taken back."""
    latest = {(row, str(h)): (h, label) for row, h, label in given}
    stored = [(row, key, label or TAKEN_BACK, getattr(h, "ticket", None)) for (row, key), (h, label) in latest.items()]
    found, moves, _ = place(stored, row_hashes)
    return {row: label or None for row, label in found.items()}, [(old, h) for old, _, h, _ in moves]


def _take(entries: list[tuple], rows_of, found: dict[int, str], moves: list, row_hashes: list[str]) -> list[tuple]:
    """Each entry (row, hash, label, ticket) at the nearest free row of those rows_of(entry) names; returns
    the entries with none."""
    left = []
    for entry in entries:
        old, h, label, _ = entry
        rows = [r for r in rows_of(entry) if r not in found]
        if not rows:
            left.append(entry)
            continue
        new = min(rows, key=lambda r: abs(r - old))
        found[new] = label
        moves.append((old, new, h, str(row_hashes[new])))
    return left


def _ticket_rows(row_hashes: list[str], found: dict[int, str]) -> dict[str, list[int]]:
    """{ticket: its free rows} where the hashes know the rows' tickets (ticket_keys.RowHashes)."""
    ticket = getattr(row_hashes, "ticket", None)
    rows: dict[str, list[int]] = {}
    for row in range(len(row_hashes) if ticket else 0):
        key = None if row in found else ticket(row)
        if key:
            rows.setdefault(key, []).append(row)
    return rows


def untold_tickets(stored: list[tuple], moves: list[tuple[int, int, str, str]], row_hashes: list[str], file: str,
                   axis: str) -> list[tuple]:
    """(ticket, file, axis, row, row hash): the labels stored without their ticket (given before tickets were
    kept) whose row is known now, its ticket with them, for files.store to fill in; a label that moved is
    keyed by its row and hash now."""
    ticket = getattr(row_hashes, "ticket", None)
    if ticket is None:
        return []
    now = {(old, h): (new, at) for old, new, h, at in moves}
    placed = [now.get((row, h), (row, h)) for row, h, _, known, *_ in stored if known is None]
    return [(key, file, axis, row, h) for row, h in placed
            if row < len(row_hashes) and row_hashes[row] == h and (key := ticket(row))]


def out_of_reach(moves: list[tuple[int, int, str, str]], rows_read: int, stored: list[tuple] = (),
                 row_hashes: list[str] = ()) -> set[int]:
    """The rows place() moved a label to that the whole file might not have: where only the first rows_read
    rows are read (--limit), a row past them could hold the same cells nearer the label's old row. A label
    that knows its ticket (stored: (row, hash, label, ticket)) on the one row of the rows read that holds that
    ticket is its own there: a row past them with the same id and text is the same ticket (a helpdesk's
    duplicate), and the label is sent to it alike."""
    tickets = {(row, h): ticket for row, h, _, ticket in stored if ticket}
    ticket = getattr(row_hashes, "ticket", None)
    read = Counter(ticket(row) for row in range(len(row_hashes))) if ticket and tickets else Counter()

    def its_own(old: int, new: int, h: str) -> bool:
        found = tickets.get((old, h))
        return found is not None and ticket(new) == found and read[found] == 1
    return {new for old, new, h, _ in moves if abs(new - old) > rows_read - old and not its_own(old, new, h)}


def labels_as_read(store, file: str, row_hashes: list[str], texts: list[str] | None, axis: str,
                   limited: bool) -> FileLabels:
    """The labels a person gave these rows on this axis (its name in the database), read as the window reads
    them (an older database's adopted, a moved ticket found at its row), with how many name no ticket of the
    file and which rows' were taken from the file's own column. limited: only the file's first rows were read
    (--limit): the labels are placed as the window places them where the rows read show it would
    (out_of_reach), and nothing is adopted, moved in the database or counted as not found (its ticket may be
    in the rows not read)."""
    if not limited:
        return store.person_labels(file, row_hashes, texts, axis)
    stored = store.stored_person_labels(file, True, axis, tickets=True)
    found, moves, _ = place(stored, row_hashes)
    reach = out_of_reach(moves, len(row_hashes), stored, row_hashes)
    found = {row: label for row, label in found.items() if row not in reach and label != TAKEN_BACK}
    origins = dict.fromkeys(store.from_file_rows(file, axis), FILE)
    return FileLabels(found, 0, placed_from_file(origins, found, moves, row_hashes))


def placed_from_file(origins: dict[tuple[int, str], str], found: dict[int, str],
                     moves: list[tuple[int, int, str, str]], row_hashes: list[str]) -> frozenset[int]:
    """The rows of found whose stored label came from the file (origins: (stored row, hash) -> origin)."""
    came_from = {new: (old, h) for old, new, h, _ in moves}
    return frozenset(row for row in found
                     if origins.get(came_from.get(row, (row, row_hashes[row]))) == FILE)
