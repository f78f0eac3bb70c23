"""How the window words numbers a person reads at a glance."""

from __future__ import annotations


def duration(seconds: float) -> str:
    """A time left as a person reads it: "40 s", "12 min", "1.5 h"."""
    seconds = int(round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
