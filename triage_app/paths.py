"""Per-user folders for data (results database) and caches (converted models); the files Triage ships."""

from __future__ import annotations

import os
import sys
from importlib.resources import files
from pathlib import Path

from platformdirs import user_cache_path, user_data_path

APP = "triage"


def user_data_dir() -> Path:
    return Path(os.environ.get("TRIAGE_DATA_DIR") or user_data_path(APP, appauthor=False))


def user_cache_dir() -> Path:
    return Path(os.environ.get("TRIAGE_CACHE_DIR") or user_cache_path(APP, appauthor=False))


def resource(name: str) -> Path:
    """A file Triage ships (sample tickets, workloads, the icon): resources/ beside the package in a checkout
    or an editable install, triage_app/resources in an installed wheel (pyproject.toml maps it there), and
    resources/ in the app bundle (packaging/triage_common.py puts it there)."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources" / name
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file():
        return checkout / "resources" / name
    return Path(files("triage_app.resources") / name)
