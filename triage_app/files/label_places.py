"""Where a person's stored labels fall in a file as it is now: each at its row while the row's cells are
the same, at the nearest row with the same cells when rows were added or removed above it, counted as
not found when its ticket is gone (files.store keeps it for when it is back)."""

from __future__ import annotations

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


def place(stored: list[tuple[int, str, str]], row_hashes: list[str]
          ) -> tuple[dict[int, str], list[tuple[int, int, str, str]], int]:
    """stored: (row, row_hash, label). Returns {row: label} for the file as it is now, the moves
    (old row, new row, hash stored, hash now) of labels whose ticket is now at another row (the nearest
    free row with the same cells) or was stored under the hash earlier versions gave its row (ticket_keys.
    holds), and the count of labels whose ticket is nowhere in the file. A row the person cleared
    (TAKEN_BACK) holds its place like a label: nothing moves onto it."""
    in_place = {(row, h) for row, h, _ in stored if row < len(row_hashes) and h == row_hashes[row]}
    found = {row: label for row, h, label in stored if (row, h) in in_place}
    astray, moves = [], []
    for row, h, label in stored:      # the hash earlier versions gave the row, where none is stored under its own
        if (row, h) in in_place:
            continue
        if row < len(row_hashes) and row not in found and holds(row_hashes[row], h):
            found[row] = label
            moves.append((row, row, h, str(row_hashes[row])))
        else:
            astray.append((row, h, label))
    lost = 0
    if astray:
        free: dict[str, list[int]] = {}
        for row, h in enumerate(row_hashes):
            if row not in found:
                for key in dict.fromkeys((h, getattr(h, "earlier", h))):
                    free.setdefault(key, []).append(row)
        for old, h, label in astray:
            rows = [r for r in free.get(h, ()) if r not in found]
            if not rows:
                lost += label != TAKEN_BACK
                continue
            new = min(rows, key=lambda r: abs(r - old))
            found[new] = label
            moves.append((old, new, h, str(row_hashes[new])))
    return found, moves, lost


def out_of_reach(moves: list[tuple[int, int, str, str]], rows_read: int) -> set[int]:
    """The rows place() moved a label to that the whole file might not have: where only the first rows_read
    rows are read (--limit), a row past them could hold the same cells nearer the label's old row."""
    return {new for old, new, _, _ in moves if abs(new - old) > rows_read - old}


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
    stored = [entry for entry in store.stored_person_labels(file, True, axis) if entry[0] < len(row_hashes)]
    found, moves, _ = place(stored, row_hashes)
    reach = out_of_reach(moves, len(row_hashes))
    found = {row: label for row, label in found.items() if row not in reach and label != TAKEN_BACK}
    origins = dict.fromkeys(store.from_file_rows(file, axis), FILE)
    return FileLabels(found, 0, placed_from_file(origins, found, moves, row_hashes))


def placed_from_file(origins: dict[tuple[int, str], str], found: dict[int, str],
                     moves: list[tuple[int, int, str, str]], row_hashes: list[str]) -> frozenset[int]:
    """The rows of found whose stored label came from the file (origins: (stored row, hash) -> origin)."""
    came_from = {new: (old, h) for old, new, h, _ in moves}
    return frozenset(row for row in found
                     if origins.get(came_from.get(row, (row, row_hashes[row]))) == FILE)
