"""Before the window on a Linux desktop: the libraries Qt's xcb plugin needs and this system lacks.

Without them Qt ends the process with its own message, which names one library (xcb-cursor)
whatever is missing. The dynamic loader knows exactly which: `ldd` on the plugin lists every
library it would load, transitively, and "not found" beside the missing ones. Those are said in
one line, with the command that installs them where apt-get is the package manager.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# soname -> the Debian/Ubuntu package that ships it
PACKAGES = {
    "libxcb.so.1": "libxcb1", "libX11-xcb.so.1": "libx11-xcb1", "libX11.so.6": "libx11-6",
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0", "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0", "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0", "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0", "libxcb-sync.so.1": "libxcb-sync1", "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0", "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xinput.so.0": "libxcb-xinput0", "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxkbcommon.so.0": "libxkbcommon0", "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libGL.so.1": "libgl1", "libEGL.so.1": "libegl1", "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1", "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0", "libdbus-1.so.3": "libdbus-1-3",
    "libSM.so.6": "libsm6", "libICE.so.6": "libice6",
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$", re.MULTILINE)


def xcb_problem(environ=os.environ, system: str = sys.platform) -> str | None:
    """One line naming what the xcb plugin lacks and how to install it; None when Qt will not use
    xcb (another platform, offscreen, a Wayland session, not Linux) or nothing is missing."""
    if not system.startswith("linux") or not _uses_xcb(environ):
        return None
    plugin = _xcb_plugin()
    output = _ldd(plugin) if plugin is not None else ""
    missing = missing_libraries(output)
    return install_line(missing, apt=shutil.which("apt-get") is not None) if missing else None


def missing_libraries(ldd_output: str) -> list[str]:
    """The sonames ldd reports "not found", each once, in its order."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def install_line(missing: list[str], apt: bool) -> str:
    """missing: sonames. Where apt-get is there, the command that installs their packages."""
    line = f"the window needs libraries this system lacks: {', '.join(missing)}"
    packages = list(dict.fromkeys(PACKAGES[name] for name in missing if name in PACKAGES))
    if not (apt and packages):
        return line + "; install the packages that provide them"
    unknown = [name for name in missing if name not in PACKAGES]
    return (line + f"; install them with: sudo apt-get install {' '.join(packages)}"
            + (f" (and whatever provides {', '.join(unknown)})" if unknown else ""))


def _uses_xcb(environ) -> bool:
    """Whether Qt's first choice of platform is xcb, as Qt picks it."""
    chosen = environ.get("QT_QPA_PLATFORM")
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    wayland = environ.get("XDG_SESSION_TYPE") == "wayland" and environ.get("WAYLAND_DISPLAY")
    return not wayland


def _xcb_plugin() -> Path | None:
    from PySide6.QtCore import QLibraryInfo     # QtCore loads no display library

    plugin = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms" / "libqxcb.so"
    return plugin if plugin.exists() else None


def _ldd(plugin: Path) -> str:
    """ldd's report on plugin; empty where ldd is not there or fails (then nothing is said)."""
    if shutil.which("ldd") is None:
        return ""
    try:
        return subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
