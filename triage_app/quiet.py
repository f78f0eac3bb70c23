"""Library warnings silenced where they are expected, from any thread.

warnings.catch_warnings swaps the process's one list of filters in and out: two threads inside it at
once (two fields learning, a file read beside them) each put back the list they found, so one's filter
leaks into the whole process or the other's warning escapes. Ours take turns on one lock, and a long
read takes it a step at a time (in_steps), so a retrain never waits for a whole file.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

_TURN = threading.RLock()


@contextmanager
def silenced(category: type[Warning] = Warning, message: str = "") -> Iterator[None]:
    """Within the block, warnings of `category` whose text starts with `message` are not shown."""
    with _TURN, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=message, category=category)
        yield


def in_steps(items: Iterable[T], step: int | Callable[[], int] = 64) -> Iterator[T]:
    """items, drawn a step at a time inside silenced(): another thread's turn comes between steps.
    step: a count, or a function giving the next step's (for a reader that must draw no item past the
    one it may stop at)."""
    items = iter(items)
    while True:
        count = step() if callable(step) else step
        with silenced():
            drawn = list(itertools.islice(items, max(count, 1)))
        if not drawn:
            return
        yield from drawn
