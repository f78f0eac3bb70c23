"""The results database is made the user's alone (0600), but a file named by mistake as the database that is
not one keeps its mode: it is a person's own file (issue 32 item 10)."""

from __future__ import annotations

import os
import stat

import pytest

from triage_app.files.store import ResultStore
from triage_app.files.store_errors import StoreUnavailable


def test_a_file_that_is_no_database_keeps_its_mode_and_bytes(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my own notes, not a database\n" * 20)
    os.chmod(notes, 0o644)
    with pytest.raises(StoreUnavailable):
        ResultStore(notes)
    assert stat.S_IMODE(notes.stat().st_mode) == 0o644
    assert notes.read_text() == "my own notes, not a database\n" * 20


def test_a_database_and_an_empty_file_are_made_private(tmp_path):
    for name in ("new.db", "empty.db"):
        path = tmp_path / name
        if name == "empty.db":
            path.touch(mode=0o644)
            os.chmod(path, 0o644)
        ResultStore(path).close()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(tmp_path / "new.db", 0o644)   # an older version's readable database is tightened
    ResultStore(tmp_path / "new.db").close()
    assert stat.S_IMODE((tmp_path / "new.db").stat().st_mode) == 0o600


def test_the_embedding_cache_makes_a_new_database_private_too(tmp_path):
    from triage_app.files.embeddings import EmbeddingCache

    EmbeddingCache(tmp_path / "fresh.db").close()     # opened first by the cache, before any ResultStore
    assert stat.S_IMODE((tmp_path / "fresh.db").stat().st_mode) == 0o600

