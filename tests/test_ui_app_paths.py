"""triage-app gui FILE --screenshot PNG never writes the screenshot over the ticket file (issue 32 item 1)."""

from __future__ import annotations

import os


def test_a_screenshot_named_as_the_ticket_file_is_refused_before_anything_is_written(tmp_path, capsys):
    from triage_app.ui.app import main

    tickets = tmp_path / "tickets.csv"
    tickets.write_text("text\nmy card has not come\n")
    os.symlink(tickets, tmp_path / "link.csv")
    for shot in (tickets, tmp_path / "." / "link.csv"):
        assert main([str(tickets), "--screenshot", str(shot)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"triage-app: {shot}: that is the ticket file; write the screenshot to another"]
        assert tickets.read_text() == "text\nmy card has not come\n"
