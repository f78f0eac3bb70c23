"""What an unusable results database says: a file that is no database at all is not called one to move
aside, as a database gone bad is (issue 32 item 10)."""

from __future__ import annotations

import pytest

from triage_app.files.store import ResultStore, StoreUnavailable


def test_a_file_that_does_not_start_as_a_database_is_not_told_to_be_moved_aside(tmp_path):
    notes = tmp_path / "notes.csv"
    notes.write_text("id,text\n1,my invoice is wrong\n" * 200)
    with pytest.raises(StoreUnavailable) as exc:
        ResultStore(notes)
    assert exc.value.fix == "if it is a results database, move it aside (a new one is made in its place)"
    assert str(exc.value) == (f"results database {notes} is damaged or not a SQLite database (it does not start "
                              "as one): if it is a results database, move it aside (a new one is made in its "
                              "place), or choose another with --db PATH")


def test_a_database_gone_bad_is_told_to_be_moved_aside(tmp_path):
    db = tmp_path / "results.sqlite3"
    db.write_bytes(b"SQLite format 3\x00" + b"\xa5" * 8192)
    with pytest.raises(StoreUnavailable) as exc:
        ResultStore(db)
    assert (exc.value.problem, exc.value.fix) == ("is damaged or not a SQLite database",
                                                  "move it aside (a new one is made in its place)")


def test_a_database_a_newer_triage_changed_is_refused_before_anything_is_written(tmp_path):
    """Its rows may need columns this Triage does not fill: refused in one line at opening, not a traceback at
    the first batch's save after the model has run."""
    import sqlite3

    from triage_app.files.embeddings import EmbeddingCache

    db = tmp_path / "r.db"
    with ResultStore(db):
        pass
    with sqlite3.connect(db) as older:
        assert older.execute("PRAGMA user_version").fetchone()[0] >= 1      # this version's mark
        older.execute("PRAGMA user_version=999")
    with pytest.raises(StoreUnavailable, match=r"was made by a newer Triage \(its version 999"):
        ResultStore(db)
    with pytest.raises(StoreUnavailable, match=r"was made by a newer Triage"):    # its embeddings' table too
        EmbeddingCache(db)
    with sqlite3.connect(db) as after:
        assert after.execute("PRAGMA user_version").fetchone()[0] == 999
