"""run/settling.py: which rows go back to float32 next, the one rule the command line and the window follow."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from triage_app.run.settling import Settling


def test_a_settling_run_takes_every_row_settled_before_and_rows_settled_already_are_not_run_again():
    s = Settling()
    s.ask("queue", [3, 1])
    assert s.next(["queue"]) == ("queue", [1, 3])
    s.ran({"queue": [1, 3]})
    s.ask("queue", [3])                       # settled already: nothing to run
    assert s.next(["queue"]) is None
    s.ask("queue", [5])
    assert s.next(["queue"]) == ("queue", [1, 3, 5])   # without a database, 1 and 3 would come back low


def test_a_field_removed_meanwhile_is_passed_over_and_a_low_precision_run_unsettles():
    s = Settling()
    s.ask("gone", [1])
    s.ask("queue", [2])
    assert s.next(["queue"]) == ("queue", [2]) and s.next(["queue"]) is None
    s.ran({"queue": [2]})
    s.scored_again(["queue"])
    s.ask("queue", [2])
    assert s.next(["queue"]) == ("queue", [2])
    s.ask("queue", [4])
    s.forget(["queue"])                       # asked on scores a run has replaced: the next retrain asks again
    assert s.next(["queue"]) is None


@given(st.lists(st.lists(st.integers(0, 30), max_size=8), max_size=12))
def test_the_rows_settled_only_grow_and_asking_for_settled_rows_ends_the_loop(asks):
    s, before = Settling(), set()
    for rows in asks:
        s.ask("f", rows)
        found = s.next(["f"])
        if found is None:
            assert set(rows) <= before
            continue
        assert set(found[1]) >= before | set(rows)
        s.ran({found[0]: found[1]})
        before = s.settled["f"]
        s.ask("f", rows)
        assert s.next(["f"]) is None
