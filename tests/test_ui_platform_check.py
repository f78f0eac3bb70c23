"""Before the window on Linux: which libraries Qt's xcb plugin lacks, said in one line with the
command that installs them (Qt's own message named a package that was already there)."""

from __future__ import annotations

import pytest

from triage_app.ui import platform_check

LDD = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibxkbcommon-x11.so.0 => not found
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f74)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibfoo-unknown.so.3 => not found
\tlibX11.so.6 => /lib/x86_64-linux-gnu/libX11.so.6 (0x00007f74)
"""


def test_the_missing_libraries_are_read_from_ldd():
    assert platform_check.missing_libraries(LDD) == ["libxkbcommon-x11.so.0", "libxcb-icccm.so.4",
                                                     "libxcb-keysyms.so.1", "libfoo-unknown.so.3"]


def test_the_line_names_the_packages_and_the_command():
    line = platform_check.install_line(["libxkbcommon-x11.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"],
                                       apt=True)
    assert "\n" not in line
    assert line.endswith("sudo apt-get install libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1")
    assert "xcb-cursor" not in line
    other = platform_check.install_line(["libxcb-icccm.so.4", "libfoo-unknown.so.3"], apt=False)
    assert "libxcb-icccm.so.4" in other and "libfoo-unknown.so.3" in other and "apt-get" not in other


@pytest.fixture(autouse=True)
def xcb_plugin(monkeypatch, tmp_path):
    """A plugin file to read, on any system the tests run on."""
    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"")
    monkeypatch.setattr(platform_check, "_xcb_plugin", lambda: plugin)


def test_a_missing_library_is_said_before_the_window(monkeypatch):
    monkeypatch.setattr(platform_check, "_ldd", lambda plugin: LDD)
    monkeypatch.setattr(platform_check.shutil, "which", lambda name: "/usr/bin/" + name)
    problem = platform_check.xcb_problem(environ={"DISPLAY": ":0"}, system="linux")
    assert problem and "libxcb-icccm4" in problem and "libfoo-unknown.so.3" in problem


def test_nothing_is_said_offscreen_on_wayland_or_off_linux(monkeypatch):
    asked = []
    monkeypatch.setattr(platform_check, "_ldd", lambda plugin: asked.append(plugin) or LDD)
    assert platform_check.xcb_problem(environ={"QT_QPA_PLATFORM": "offscreen"}, system="linux") is None
    assert platform_check.xcb_problem(environ={"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"},
                                      system="linux") is None
    assert platform_check.xcb_problem(environ={}, system="darwin") is None
    assert asked == []
    assert platform_check.xcb_problem(environ={"QT_QPA_PLATFORM": "xcb"}, system="linux")
    assert asked


def test_nothing_is_said_when_every_library_is_there(monkeypatch):
    monkeypatch.setattr(platform_check, "_ldd", lambda plugin: "\tlibxcb.so.1 => /lib/libxcb.so.1 (0x1)\n")
    assert platform_check.xcb_problem(environ={}, system="linux") is None


def test_the_app_stops_with_that_line_before_qt(monkeypatch, capsys):
    from triage_app.ui import app

    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(platform_check, "xcb_problem", lambda: "the window needs libxcb-icccm4")
    monkeypatch.setattr(app, "_import_engine", lambda: (_ for _ in ()).throw(AssertionError("went on")))
    assert app.main([]) == 1
    assert capsys.readouterr().err == "triage-app: the window needs libxcb-icccm4\n"
