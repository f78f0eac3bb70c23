"""What the reader says about a file reaches the person in the window: a repeated header name, a
file refused past a limit (files/limits.py), each in one line above the table."""

from triage_app.files import limits
from ui_helpers import make_window, settings_file  # noqa: F401


def test_the_window_says_a_header_repeats_a_name(qtbot, make_window, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,text,id\n1,hello,2\n2,bye,3\n")
    window = make_window()
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as shown:
        window.open_file(path)
    assert shown.args[0].startswith("the header repeats a name: “id” names columns 1, 3")
    assert window.model.rowCount() == 2 and window.banner.isVisible()


def test_the_window_refuses_a_file_over_the_row_limit_in_one_line(qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ROWS", 50)
    path = tmp_path / "many.csv"
    path.write_text("id,text\n" + "".join(f"{k},ticket {k}\n" for k in range(51)))
    window = make_window()
    with qtbot.waitSignal(window.error_shown, timeout=20_000) as shown:
        window.open_file(path)
    assert shown.args[0] == ("many.csv: more than 50 tickets, more than Triage reads at once; "
                             "split the file, or read its first rows only (triage-app classify --limit N)")
    assert window.model.rowCount() == 0
