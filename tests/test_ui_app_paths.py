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


def test_a_size_not_written_wxh_is_one_line_of_usage_not_a_traceback(capsys):
    import pytest

    from triage_app.ui.app import main

    for size in ("1440", "0x880", "wide", "1440x880x2"):
        with pytest.raises(SystemExit) as ended:
            main(["--screenshot", "out.png", "--size", size])
        assert ended.value.code == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "use WxH, e.g. 1440x880" in err.strip().splitlines()[-1]
