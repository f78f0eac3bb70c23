"""Library warnings silenced where they are expected, from any thread.

warnings.catch_warnings swaps the process's one list of filters in and out: two threads inside it at
once (two fields learning, a file read beside them) each put back the list they found, so one's filter
leaks into the whole process or the other's warning escapes. Ours take turns on one lock.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

_TURN = threading.RLock()


@contextmanager
def silenced(category: type[Warning] = Warning, message: str = "") -> Iterator[None]:
    """Within the block, warnings of `category` whose text starts with `message` are not shown."""
    with _TURN, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=message, category=category)
        yield
