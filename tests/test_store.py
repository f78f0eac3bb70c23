"""The results database's edges: damaged, read-only, full, locked or shared files give one line, never a traceback."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path

import pytest

from triage_app.files.store import ResultStore, RunKey, StoredResult, StoreUnavailable

KEY = RunKey("prompt", "model", "float32", "cpu")
NOBODY = 65534


def results(prefix: str, n: int) -> dict[str, StoredResult]:
    return {f"{prefix}{i}": StoredResult(["billing", "technical"], [-0.1, -2.4], False, False) for i in range(n)}


def one_line(exc: pytest.ExceptionInfo, path: Path, problem: str) -> str:
    line = str(exc.value)
    assert "\n" not in line and str(path) in line and problem in line and "--db PATH" in line
    assert exc.value.path.absolute() == path and problem in exc.value.problem
    return line


def test_a_file_that_is_not_a_database_is_named_and_left_alone(tmp_path, monkeypatch):
    db = tmp_path / "results.sqlite3"
    db.write_bytes(b"id,text\n1,my invoice is wrong\n" * 200)
    before = db.read_bytes()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreUnavailable) as exc:
        ResultStore("results.sqlite3")          # as typed after --db; the line says where it is
    one_line(exc, db, "is damaged or not a SQLite database")
    assert db.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite3"]


def test_a_database_damaged_inside_fails_on_lookup_with_one_line(tmp_path):
    db = tmp_path / "results.sqlite3"
    with ResultStore(db) as store:
        store.save(KEY, results("h", 3000))
    size = db.stat().st_size
    with open(db, "r+b") as f:    # the results table's last leaf pages, past the header and schema
        f.seek(size - 6 * 4096)
        f.write(b"\xa5" * 4 * 4096)
    with ResultStore(db) as store, pytest.raises(StoreUnavailable) as exc:
        store.lookup(KEY, results("h", 3000))
    one_line(exc, db, "is damaged")


def test_a_folder_in_place_of_the_database(tmp_path):
    db = tmp_path / "results.sqlite3"
    db.mkdir()
    with pytest.raises(StoreUnavailable) as exc:
        ResultStore(db)
    one_line(exc, db, "is a folder, not a file")
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(StoreUnavailable) as exc:
        ResultStore(tmp_path / "a-file" / "results.sqlite3")
    assert f"cannot be created (a file stands where a folder should be: {tmp_path / 'a-file'})" in str(exc.value)


def test_a_device_or_a_pipe_in_place_of_the_database_is_refused_and_left_as_it_is(tmp_path):
    # a hunt's finding: --db naming a device (/dev/null, as root) took its mode to 0600 and left a journal beside it
    from triage_app.files.embeddings import EmbeddingCache

    pipe = tmp_path / "results.sqlite3"
    os.mkfifo(pipe, 0o644)
    os.chmod(pipe, 0o644)
    for store in (ResultStore, EmbeddingCache):     # both open the results database
        with pytest.raises(StoreUnavailable) as exc:
            store(pipe)
        one_line(exc, pipe, "is not a file (a device, a pipe or a socket)")
    assert oct(pipe.stat().st_mode & 0o777) == oct(0o644) and [p.name for p in tmp_path.iterdir()] == [pipe.name]


def open_as_reader_only(path: Path) -> str:
    """Open the store as a user who may read path but not write it; the error line, or '' if it opened.

    Root writes through any file mode, so as root the store is opened by a forked child that has
    become the unprivileged user 'nobody' (the database of someone who once ran Triage with sudo).
    """
    if os.geteuid() != 0:
        try:
            ResultStore(path).close()
            return ""
        except StoreUnavailable as exc:
            return str(exc)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: no pytest machinery from here on, only the store and os._exit
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            try:
                ResultStore(path).close()
                line = ""
            except StoreUnavailable as exc:
                line = str(exc)
            except BaseException as exc:  # anything else fails the test, with its name
                line = repr(exc)
            os.write(write, line.encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        line = f.read().decode()
    os.waitpid(pid, 0)
    return line


def test_a_read_only_database_or_folder_is_named_at_open():
    root = os.geteuid() == 0
    folder = Path(tempfile.mkdtemp())        # under /tmp: 'nobody' must be able to reach it
    try:
        folder.chmod(0o755)
        theirs = folder / "theirs.sqlite3"
        ResultStore(theirs).close()
        theirs.chmod(0o444)
        if root:
            os.chown(folder, NOBODY, NOBODY)     # the folder is the user's; the file is not
        line = open_as_reader_only(theirs)
        assert str(theirs) in line and "is read-only: make it, its folder and the -wal and -shm files" in line, line
        if root:                                 # a new database in a folder the user cannot write
            os.chown(folder, 0, 0)
        else:
            folder.chmod(0o555)
        line = open_as_reader_only(folder / "new.sqlite3")
        assert str(folder / "new.sqlite3") in line and "is read-only" in line, line
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def test_a_full_disk_fails_the_batch_whole_and_says_so(tmp_path):
    db = tmp_path / "results.sqlite3"
    with ResultStore(db) as store:
        store.save(KEY, results("early", 32))
        # SQLite's own cap on the file's size gives the same SQLITE_FULL a full disk gives
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count={pages + 1}")
        with pytest.raises(StoreUnavailable) as exc:
            store.save(KEY, results("late", 500))
        line = one_line(exc, db, "cannot be written (the disk is full)")
        assert "free some space" in line
        with pytest.raises(StoreUnavailable, match="disk is full"):
            store.set_person_labels("f.csv", {0: ("h", "billing " * 20_000)})  # more than the page left
        assert store.count(KEY) == 32       # the batch went in whole or not at all: not at all
        assert len(store.lookup(KEY, results("early", 32))) == 32


def test_a_second_writer_waits_for_the_lock_and_gives_up_with_one_line(tmp_path):
    db = tmp_path / "results.sqlite3"
    ResultStore(db).close()
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")                    # another Triage, in the middle of a batch
    try:
        with pytest.raises(StoreUnavailable) as exc:
            ResultStore(db, timeout=0.2)
        one_line(exc, db, "is locked by another Triage run (waited 0.2 s)")
        threading.Timer(0.3, other.execute, ["COMMIT"]).start()
        with ResultStore(db, timeout=10) as store:          # waits for the other batch, then goes on
            store.save(KEY, results("h", 32))
            assert store.count(KEY) == 32
    finally:
        other.close()


def test_two_instances_writing_at_once_lose_nothing(tmp_path):
    db = tmp_path / "results.sqlite3"
    stores = [ResultStore(db), ResultStore(db)]
    failures = []

    def write(store, name):
        try:
            for batch in range(40):
                store.save(KEY, results(f"{name}-{batch}-", 32))
                store.set_person_labels(f"{name}.csv", {batch: ("h", "billing")})
        except StoreUnavailable as exc:   # pragma: no cover - the assertion below reports it
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(s, n)) for s, n in zip(stores, "ab")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for s in stores:
        s.close()
    assert failures == []
    with ResultStore(db) as store:
        assert store.count(KEY) == 2 * 40 * 32
        assert [len(store.person_labels(f"{n}.csv", ["h"] * 40).labels) for n in "ab"] == [40, 40]
        assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_person_labels_survive_reopening_and_new_results(tmp_path):
    db = tmp_path / "results.sqlite3"
    with ResultStore(db) as store:
        store.set_person_labels("tickets.csv", {1: ("h1", "billing")})
    with ResultStore(db) as store:
        store.save(KEY, results("h", 32))
        assert store.person_labels("tickets.csv", ["h0", "h1"]).labels == {1: "billing"}


def test_a_saved_batch_is_synced_to_disk_before_save_returns(tmp_path):
    # WAL with synchronous=NORMAL syncs only at checkpoints: a power cut could take the last
    # batches with it. FULL (2) syncs the log on every commit; fullfsync does it for real on macOS.
    with ResultStore(tmp_path / "results.sqlite3") as store:
        pragma = {name: store._db.execute(f"PRAGMA {name}").fetchone()[0]
                  for name in ("journal_mode", "synchronous", "fullfsync")}
    assert pragma == {"journal_mode": "wal", "synchronous": 2, "fullfsync": 1}
