"""The results database's tables (files.store), and the changes that bring a file an older Triage made up to date,
every row kept: each is made once, when its column is missing (ResultStore._once)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    text_hash TEXT NOT NULL, prompt_hash TEXT NOT NULL, model TEXT NOT NULL, dtype TEXT NOT NULL,
    labels TEXT NOT NULL, scores TEXT NOT NULL, truncated INTEGER NOT NULL, fallback INTEGER NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')), drift REAL,
    PRIMARY KEY (text_hash, prompt_hash, model, dtype)
);
CREATE TABLE IF NOT EXISTS manual_labels (
    text_hash TEXT NOT NULL, label_set TEXT NOT NULL, label TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (text_hash, label_set)
);
CREATE TABLE IF NOT EXISTS person_labels (
    file TEXT NOT NULL, row INTEGER NOT NULL, row_hash TEXT NOT NULL, label TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')), axis TEXT NOT NULL DEFAULT 'label',
    origin TEXT NOT NULL DEFAULT 'person', ticket TEXT,
    PRIMARY KEY (file, axis, row, row_hash)
);
CREATE TABLE IF NOT EXISTS migrated_files (
    file TEXT PRIMARY KEY, created REAL NOT NULL DEFAULT (julianday('now'))
);
"""
# person_labels before axes, rebuilt with the axis in its key (one statement at a time: executescript
# would commit half-way)
_WITH_AXES = (
    """CREATE TABLE person_labels_axes (
        file TEXT NOT NULL, row INTEGER NOT NULL, row_hash TEXT NOT NULL, label TEXT NOT NULL,
        created REAL NOT NULL DEFAULT (julianday('now')), axis TEXT NOT NULL DEFAULT 'label',
        PRIMARY KEY (file, axis, row, row_hash))""",
    "INSERT INTO person_labels_axes (file, row, row_hash, label, created) "
    "SELECT file, row, row_hash, label, created FROM person_labels",
    "DROP TABLE person_labels",
    "ALTER TABLE person_labels_axes RENAME TO person_labels",
)
# results before a checked answer's drift was kept: NULL, read as unknown (store._drift)
_WITH_DRIFT = ("ALTER TABLE results ADD COLUMN drift REAL",)
# a person's labels before their origin was kept: every one typed by a person, as it was then read
_WITH_ORIGIN = ("ALTER TABLE person_labels ADD COLUMN origin TEXT NOT NULL DEFAULT 'person'",)
# a person's labels before their ticket (id and text, files.ticket_keys.RowHashes) was kept: NULL, found by the
# row's cells alone until a read fills it in
_WITH_TICKET = ("ALTER TABLE person_labels ADD COLUMN ticket TEXT",)


# (table, the column a change adds, its statements), in the order they were made
CHANGES = (
    ("person_labels", "axis", _WITH_AXES),
    ("results", "drift", _WITH_DRIFT),
    ("person_labels", "origin", _WITH_ORIGIN),
    ("person_labels", "ticket", _WITH_TICKET),
)
