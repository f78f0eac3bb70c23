"""A model that failed to load is said in the message bar; once a model loads, that line goes (it said
no model could be used), and a line about something else stays."""

from __future__ import annotations

from ui_helpers import make_window, save_shot, settings_file, with_model  # noqa: F401


def fail_a_load(qtbot, window, folder) -> str:
    folder.mkdir()
    with qtbot.waitSignal(window.session.failed, timeout=60_000):
        window.load_model(str(folder), remember=False)
    line = window.banner_text.text()
    assert line.startswith("The model could not be loaded: ") and window.banner.isVisible()
    return line


def test_a_model_that_loads_clears_the_line_of_the_one_that_failed(qtbot, make_window, smollm2, tmp_path):
    window = make_window(autoload=False)
    fail_a_load(qtbot, window, tmp_path / "R&D empty")
    with_model(qtbot, window, smollm2)
    qtbot.waitUntil(lambda: window.model_info is not None)
    assert not window.banner.isVisible()
    save_shot(window, "model_banner_cleared.png", tmp_path)


def test_a_line_about_something_else_stays_when_a_model_loads(qtbot, make_window, smollm2, tmp_path):
    window = make_window(autoload=False)
    fail_a_load(qtbot, window, tmp_path / "empty")
    window.show_error("Not exported: the folder cannot be written.")
    with_model(qtbot, window, smollm2)
    qtbot.waitUntil(lambda: window.model_info is not None)
    assert window.banner.isVisible() and window.banner_text.text() == "Not exported: the folder cannot be written."
