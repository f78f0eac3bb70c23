"""An export's file is replaced whole or not at all, through a symlink too, and a writer killed
mid-write (kill -9) leaves nothing the next export does not clear away."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from triage_app.files.export import ABANDONED_AFTER_S, write_atomic

# a writer that writes half a file, says so, and waits to be killed
_HALF_WRITER = """
import sys, time
from pathlib import Path
from triage_app.files.export import write_atomic

def half(tmp):
    Path(tmp).write_text("id,label\\n1,half")
    print("writing", flush=True)
    time.sleep(120)

write_atomic(Path(sys.argv[1]), half)
"""

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="partial files are cleared where flock exists")


def _write(path: Path, text: str) -> None:
    write_atomic(path, lambda tmp: Path(tmp).write_text(text))


def _partials(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if ".partial" in p.name)


def _start_half_writer(target: Path) -> subprocess.Popen:
    writer = subprocess.Popen([sys.executable, "-c", _HALF_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline() == "writing\n"
    return writer


def _kill(writer: subprocess.Popen) -> None:
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_symlinked_export_stays_a_link_and_its_file_is_replaced(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "results.csv").write_text("last week's export\n")
    link = tmp_path / "results.csv"
    link.symlink_to(shared / "results.csv")

    _write(link, "id,label\n1,billing\n")

    assert link.is_symlink()
    assert (shared / "results.csv").read_text() == "id,label\n1,billing\n"
    assert _partials(tmp_path) == [] and _partials(shared) == []


def test_a_dangling_symlink_gets_its_file(tmp_path):
    link = tmp_path / "results.csv"
    link.symlink_to(tmp_path / "elsewhere.csv")
    _write(link, "id\n1\n")
    assert link.is_symlink() and (tmp_path / "elsewhere.csv").read_text() == "id\n1\n"


@posix_only
def test_a_killed_writers_partial_file_is_cleared_by_the_next_export_never_a_live_ones(tmp_path):
    target = tmp_path / "results.csv"
    target.write_text("the export before\n")
    writer = _start_half_writer(target)
    try:
        [partial] = _partials(tmp_path)
        _age(partial, ABANDONED_AFTER_S + 60)
        _write(target, "a second export\n")
        assert _partials(tmp_path) == [partial], "a writer at work lost its partial file"
    finally:
        _kill(writer)

    assert target.read_text() == "a second export\n"
    _write(target, "a third export\n")
    assert _partials(tmp_path) == []
    assert target.read_text() == "a third export\n"


@posix_only
def test_a_partial_file_too_young_to_judge_is_left_for_a_later_export(tmp_path):
    target = tmp_path / "results.csv"
    _kill(_start_half_writer(target))
    [partial] = _partials(tmp_path)
    _write(target, "now\n")
    assert _partials(tmp_path) == [partial]      # it may be a writer's that has not locked it yet
    _age(partial, ABANDONED_AFTER_S + 1)
    _write(target, "later\n")
    assert _partials(tmp_path) == []


def test_partial_files_of_other_targets_are_not_touched(tmp_path):
    other = tmp_path / ".results.0123abcd.partial.json"     # another export's, same stem
    odd = tmp_path / ".results.notatoken.partial.csv"       # not a name a writer makes
    for path in (other, odd):
        path.write_text("x")
        _age(path, ABANDONED_AFTER_S + 60)
    _write(tmp_path / "results.csv", "id\n")
    assert _partials(tmp_path) == [other, odd]


def test_a_file_its_owner_made_read_only_is_refused_in_one_line_and_kept(tmp_path):
    """Not replaced behind the person's back (root may write anything; the mode still says no), and the line
    names the file, not a hidden temporary one."""
    from triage_app.files.export import ExportFailed, write_text

    target = tmp_path / "results.csv"
    target.write_text("kept\n")
    os.chmod(target, 0o444)
    with pytest.raises(ExportFailed, match=r"^cannot write results.csv: it is read-only; make it writable"):
        write_text(target, "new\n")
    with pytest.raises(PermissionError) as raised:      # as a writer that calls it directly says it (Ray's)
        write_atomic(target, lambda tmp: None)
    assert (raised.value.filename, raised.value.strerror) == (str(target), "it is read-only; make it writable or "
                                                                          "choose another name")
    assert target.read_text() == "kept\n" and sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]
