"""Column names: one per header cell, in order, never two alike, whatever the header repeats."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from triage_app.files.table import unique_names

# names that collide once suffixed: a repeat of "a" must not take the real "a_2"
NAMES = st.one_of(st.sampled_from(["a", "a_2", "a_3", "a_2_2", "", " ", " a", "column_1", "column_2", "text"]),
                  st.text(max_size=4))


def test_a_repeat_skips_a_name_the_header_already_has():
    assert unique_names(["text", "a", "a_2", "a"]) == ["text", "a", "a_2", "a_3"]
    assert unique_names(["a", "a", "a_2"]) == ["a", "a_3", "a_2"]


def test_blank_names_are_named_by_their_place_and_names_are_stripped():
    assert unique_names(["", " text ", "  ", "text"]) == ["column_1", "text", "column_3", "text_2"]


def test_a_blank_never_takes_the_name_of_a_column_the_header_names():
    # a hunt's finding: pandas' index column (a blank header cell) took column_1, and --id-column column_1 sent
    # the index's numbers to the helpdesk as ids
    assert unique_names(["", "column_1", "text"]) == ["column_1_2", "column_1", "text"]


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(NAMES, max_size=12))
def test_every_header_gets_unique_names_of_its_own_count_and_order(header):
    names = unique_names(header)
    assert len(names) == len(header) and len(set(names)) == len(names)
    for k, (given_name, name) in enumerate(zip(header, names)):
        base = given_name.strip() or f"column_{k + 1}"
        assert name == base or name.startswith(f"{base}_")
    first = {}
    for k, given_name in enumerate(header):
        if given_name.strip():
            first.setdefault(given_name.strip(), k)
    # only repeats are renamed: the first cell of each name keeps it, and a blank keeps its place's name
    # unless the header gives that name to a column
    assert all(names[k] == base for base, k in first.items())
    assert all(names[k] == f"column_{k + 1}" for k, given_name in enumerate(header)
               if not given_name.strip() and f"column_{k + 1}" not in first)
