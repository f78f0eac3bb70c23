"""Running the command line in-process, and reading what it wrote: shared by the CLI tests."""

from __future__ import annotations

import csv


def write_rows(path, rows: list[dict]):
    """rows as a CSV with a header of the first row's keys; returns path."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def read_rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def run_main(capsys, *args):
    """cli.main's exit code, stdout and stderr's lines."""
    from triage_app import cli

    code = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.splitlines()
