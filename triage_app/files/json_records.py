"""JSON read as json.loads reads it, a ticket at a time.

json.loads parses a whole document in one call that holds the GIL: a JSON export of a few hundred
thousand tickets kept the window's event loop waiting the whole time (docs/files.md). Here a list,
at the top of the document or as a value of the object at its top ({"tickets": [...]}), is parsed
one element at a time with the same decoder, so the reader's thread lets the UI thread in between
elements. The values, their order and the errors (message and position) are json.loads's.
"""

from __future__ import annotations

import json
import re
from collections import Counter


class Number(str):
    """A JSON number as the file spells it: 0.30000000000000004, 1e5 and 1.10 stay as written."""


class Repeats(dict):
    """An object that gave a key more than once: json.loads keeps the last value, and so do we (a row's
    cells stay what they were), but the reader says which keys lost a value."""

    repeated: tuple[str, ...] = ()


def record(pairs: list[tuple[str, object]]) -> dict:
    """json's object_pairs_hook: the object json.loads makes, marked where it repeats a key."""
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    marked = Repeats(out)
    marked.repeated = tuple(key for key, n in Counter(key for key, _ in pairs).items() if n > 1)
    return marked


def repeats_note(records: list[dict], file_name: str) -> list[str]:
    """One line naming the keys the records repeat and how many records do (none when none does)."""
    counts: dict[str, int] = {}
    for item in records:
        for key in getattr(item, "repeated", ()):
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return []
    said = ", ".join(f"“{key}” in {n} record(s)" for key, n in counts.items())
    return [f"{file_name}: a record gives a key twice ({said}): read as its last value, as JSON readers do; "
            "the earlier value is not read"]


DECODER = json.JSONDecoder(parse_float=Number, parse_int=Number, object_pairs_hook=record)
_SPACE = re.compile(r"[ \t\n\r]*")


def loads(text: str):
    """json.loads(text, parse_float=Number, parse_int=Number), a list's elements one call each."""
    if text.startswith("\ufeff"):       # json.loads's own refusal, as it words it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    at = _skip(text, 0)
    if text.startswith("{", at):
        value, at = _object(text, at)
    else:
        value, at = _value(text, at)
    at = _skip(text, at)
    if at != len(text):
        raise json.JSONDecodeError("Extra data", text, at)
    return value


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()


def _value(text: str, at: int):
    """(value, end): a list element by element, anything else in one call."""
    if text.startswith("[", at):
        return _list(text, at)
    return DECODER.raw_decode(text, at)


def _list(text: str, at: int) -> tuple[list, int]:
    items: list = []
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return items, at + 1
    while True:
        item, at = DECODER.raw_decode(text, at)
        items.append(item)
        closed, at = _after_member(text, at, "]")
        if closed:
            return items, at


def _object(text: str, at: int) -> tuple[dict, int]:
    """The document's top object, its list values element by element."""
    out: dict = {}
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        return out, at + 1
    while True:
        if not text.startswith('"', at):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
        key, at = DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
        out[key], at = _value(text, _skip(text, at + 1))
        closed, at = _after_member(text, at, "}")
        if closed:
            return out, at


def _after_member(text: str, at: int, close: str) -> tuple[bool, int]:
    """After a list's or an object's member: (True, past its closing bracket) or (False, the next member)."""
    at = _skip(text, at)
    if text.startswith(close, at):
        return True, at + 1
    if not text.startswith(",", at):
        raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
    return False, _skip(text, at + 1)
