"""The label set: names, one-line descriptions and few-shot examples.

A label-set file is checked here, every field, whoever reads it (the command line, Labels ▸ Load…,
the set the window remembers): what it cannot use is refused as a BadLabelSet, one line naming the
file, then the field, then what is wrong ("labels.json: label 3: name: must be text, not the number 5").
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

LABEL_KEYS = ("name", "description", "alias")
EXAMPLE_KEYS = ("text", "label")
SET_KEYS = ("labels", "examples")


class BadLabelSet(ValueError):
    """A label set that cannot be used, in one line: where (the file, the field) and what is wrong."""


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    description: str = ""
    alias: str = ""   # the surface form the model reads and is scored on, if not the name

    @property
    def surface(self) -> str:
        return self.alias or self.name

    def __post_init__(self):
        for key in LABEL_KEYS:
            with within(key):
                _check_text(getattr(self, key))
        if not self.name.strip():
            raise ValueError("a label needs a name")
        if self.name != self.name.strip():
            raise ValueError(f"label {_shown(self.name)} has leading or trailing spaces")
        # the name and alias are column names and the model's answers; the description, one prompt line
        for key, what in (("name", "the name"), ("description", "the description"), ("alias", "the alias")):
            if not _one_line(getattr(self, key)):
                raise ValueError(f"{what} of {_shown(self.name)} must be one line")
        if self.alias != self.alias.strip():
            raise ValueError(f"the alias of {_shown(self.name)} has leading or trailing spaces")


def folded(name: str) -> str:
    """A name as a person reads it: case and Unicode's two spellings of an accented letter (NFC, NFD) aside."""
    return unicodedata.normalize("NFC", name).lower()


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    label: str

    def __post_init__(self):
        for key in EXAMPLE_KEYS:
            with within(key):
                _check_text(getattr(self, key))


@dataclass(frozen=True, slots=True)
class LabelSet:
    labels: tuple[Label, ...]
    examples: tuple[Example, ...] = field(default=())

    def __post_init__(self):
        if len(self.labels) < 2:
            raise ValueError("a label set needs at least two labels")
        names = [label.name for label in self.labels]
        if len(set(map(folded, names))) != len(names):   # "ä" typed two ways is one name to a person
            raise ValueError(f"label names must be distinct: {names}")
        surfaces = [folded(label.surface) for label in self.labels]
        if len(set(surfaces)) != len(surfaces):
            raise ValueError(f"label aliases must be distinct: {[label.surface for label in self.labels]}")
        for example in self.examples:
            if example.label not in names:
                raise ValueError(f"example labeled {_shown(example.label)}, which is not one of {names}")

    @property
    def names(self) -> list[str]:
        return [label.name for label in self.labels]

    @property
    def surfaces(self) -> list[str]:
        return [label.surface for label in self.labels]

    def surface_of(self, name: str) -> str:
        return next(label.surface for label in self.labels if label.name == name)

    def with_examples(self, examples: list[Example] | tuple[Example, ...]) -> LabelSet:
        return LabelSet(self.labels, tuple(examples))

    @property
    def fingerprint(self) -> str:
        """Changes whenever anything the model sees changes."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]

    @classmethod
    def default(cls) -> LabelSet:
        # No examples: measured with the bundled model, which examples help depends on the ticket
        # file, under either scoring method, so none is right for every file (docs/quality/README.md).
        return cls(
            labels=(
                Label("billing", "payments, invoices, charges, refunds, subscriptions and pricing"),
                Label("technical", "bugs, errors, crashes, outages, integrations and how the product works"),
                Label("account", "login, passwords, profile, users, permissions and account settings"),
            ),
        )

    @classmethod
    def from_names(cls, names: list[str]) -> LabelSet:
        return cls(labels=tuple(Label(n.strip()) for n in names if n.strip()))

    def for_names(self, names: list[str]) -> LabelSet:
        """A label set of these names, spelled so, in this order: a name this set has (told apart folded, as
        here: "Billing" in a helpdesk's column is our "billing") keeps its description, alias and examples
        (what a person typed is not lost to a column's values); where an alias would clash with a new name,
        the names alone."""
        mine = {folded(label.name): label for label in self.labels}
        names = [n.strip() for n in names if n.strip()]
        labels = tuple(replace(mine[folded(n)], name=n) if folded(n) in mine else Label(n) for n in names)
        spelled = {mine[folded(n)].name: n for n in names if folded(n) in mine}
        try:
            examples = tuple(replace(e, label=spelled[e.label]) for e in self.examples if e.label in spelled)
            return LabelSet(labels, examples)
        except ValueError:
            return LabelSet.from_names(names)

    @classmethod
    def from_dict(cls, data) -> LabelSet:
        """A label set as its file holds it ({"labels": [...], "examples": [...]}), every field checked;
        a label may be written as its name alone. Raises BadLabelSet naming the field at fault."""
        if not isinstance(data, dict):
            raise BadLabelSet(f"not a label set: expected an object with \"labels\", not {_kind(data)}")
        if "labels" not in data:
            raise BadLabelSet("not a label set: no \"labels\"" + (f", only {_shown(next(iter(data)))}" if data else ""))
        _known_keys(data, SET_KEYS)
        return cls(labels=_each(data, "labels", "label", _label),
                   examples=_each(data, "examples", "example", _example))

    @classmethod
    def load(cls, path: str | Path) -> LabelSet:
        data = read_json(path)
        with within(str(path)):
            return cls.from_dict(data)

    def to_dict(self) -> dict:
        return {
            "labels": [{k: v for k, v in asdict(label).items() if v or k != "alias"} for label in self.labels],
            "examples": [asdict(example) for example in self.examples],
        }

    def file_text(self) -> str:
        """The label-set file's text; the window writes it whole or not at all (files/export.write_text)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.file_text(), encoding="utf-8")


# a label set of 80 labels with descriptions and examples is kilobytes; a ticket file given by mistake
# is refused before its bytes are read and parsed
MAX_LABEL_SET_BYTES = 16 << 20


def read_json(path: str | Path):
    """A label-set file's JSON: UTF-8, with or without the byte-order mark Notepad writes. Raises
    BadLabelSet naming the file where it is not; OSError where it cannot be read at all. A file far
    bigger than any label set (a ticket file named by mistake) is refused before it is read."""
    with within(str(path)):
        size = Path(path).stat().st_size
        if size > MAX_LABEL_SET_BYTES:
            raise ValueError(f"{size / 2**20:.0f} MiB is too big for a label set (at most "
                             f"{MAX_LABEL_SET_BYTES >> 20} MiB): is it a ticket file?")
        raw = Path(path).read_bytes()
        try:
            return parse_json(raw.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-8 text (byte {exc.start + 1} is 0x{raw[exc.start]:02x}); "
                             "save it as UTF-8") from None


def parse_json(text: str):
    """A label set's JSON text; a key given twice in one object is refused, not silently dropped."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise ValueError("not valid JSON (nested too deeply)") from None


@contextmanager
def within(where: str):
    """A ValueError raised inside is said of this place first: nested, "file: field: field: what"."""
    try:
        yield
    except ValueError as exc:
        raise BadLabelSet(f"{where}: {exc}") from None


def checked_entries(data, keys: tuple[str, ...], *required: str) -> dict:
    """data as an object of these keys, the required ones present: an unknown key is refused, as it
    would be lost (a misspelt "descripton" silently left out of the prompt)."""
    if not isinstance(data, dict):
        raise ValueError(f"must be an object with {', '.join(keys)}, not {_kind(data)}")
    _known_keys(data, keys)
    missing = [key for key in required if key not in data]
    if missing:
        raise ValueError(f"needs a {missing[0]}")
    return data


def checked_list(data: dict, key: str) -> list:
    with within(key):
        if not isinstance(data[key], list):
            raise ValueError(f"must be a list, not {_kind(data[key])}")
    return data[key]


def _each(data: dict, key: str, one: str, make) -> tuple:
    """make(item) of each item of the list under key, a failure said of "<one> <k>", counted from 1 as a
    person counts them."""
    made = []
    for k, item in enumerate(checked_list(data, key) if key in data else []):
        with within(f"{one} {k + 1}"):
            made.append(make(item))
    return tuple(made)


def _label(item) -> Label:
    if isinstance(item, str):
        return Label(item)
    return Label(**checked_entries(item, LABEL_KEYS, "name"))


def _example(item) -> Example:
    return Example(**checked_entries(item, EXAMPLE_KEYS, *EXAMPLE_KEYS))


def _known_keys(data: dict, keys: tuple[str, ...]) -> None:
    unknown = [key for key in data if key not in keys]
    if unknown:
        raise ValueError(f"unknown key {_shown(unknown[0])} (it takes {', '.join(keys)})")


def _unique_keys(pairs: list[tuple]) -> dict:
    data = dict(pairs)
    if len(data) < len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {_shown(twice)} is given twice in one object")
    return data


def _check_text(value) -> None:
    if not isinstance(value, str):
        raise ValueError(f"must be text, not {_kind(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:   # a lone surrogate ("\\ud800" in JSON): no tokenizer reads it
        raise ValueError(f"holds {_shown(value[exc.start])}, half of a character, not text") from None


def _one_line(text: str) -> bool:
    return text.splitlines() in ([], [text])


def _kind(value) -> str:
    """A JSON value as a person reads it in a message: its kind, and the value where it is short."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return f"the number {_shown(value)}"
    if isinstance(value, str):
        return f"the text {_shown(value)}"
    return "a list" if isinstance(value, list) else "an object"


def _shown(value, limit: int = 40) -> str:
    text = repr(value)   # escapes line breaks and lone surrogates: the message stays one line
    return text if len(text) <= limit else text[:limit - 1] + "…"
