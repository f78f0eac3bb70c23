"""Per-user folders for data (results database) and caches (converted models)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_path, user_data_path

APP = "triage"


def user_data_dir() -> Path:
    return Path(os.environ.get("TRIAGE_DATA_DIR") or user_data_path(APP, appauthor=False))


def user_cache_dir() -> Path:
    return Path(os.environ.get("TRIAGE_CACHE_DIR") or user_cache_path(APP, appauthor=False))
