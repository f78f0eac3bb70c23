"""Issue 32, the hunt: a command ended by kill (SIGTERM, as a terminal closing or a scheduler's timeout
sends it) leaves what Ctrl-C leaves: no half-written file, not even the hidden one the export renames
into place."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

COMMAND = textwrap.dedent("""
    import sys, time
    from triage_app import cli
    from triage_app.cli import classify
    from triage_app.files.export import write_or_fail
    from pathlib import Path

    def blocked(tmp):
        Path(tmp).write_text("half of an export")
        print("writing", flush=True)
        time.sleep(60)

    classify.run = lambda args: write_or_fail(Path(args.output), blocked)
    sys.exit(cli.main(["classify", "t.csv", "-o", "out.csv", "--db", "r.db"]))
""")


def test_a_command_killed_while_it_writes_leaves_no_file(tmp_path):
    (tmp_path / "t.csv").write_text("text\nhello\n")
    with subprocess.Popen([sys.executable, "-c", COMMAND], cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as run:
        try:
            assert run.stdout.readline().strip() == "writing", run.stderr.read()
            run.send_signal(signal.SIGTERM)
            run.wait(timeout=30)
        finally:
            run.kill()
    assert run.returncode != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]
