"""The label set: names, one-line descriptions and few-shot examples."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    description: str = ""
    alias: str = ""   # the surface form the model reads and is scored on, if not the name

    @property
    def surface(self) -> str:
        return self.alias or self.name

    def __post_init__(self):
        if not self.name.strip():
            raise ValueError("a label needs a name")
        if self.name != self.name.strip():
            raise ValueError(f"label {self.name!r} has leading or trailing spaces")
        if "\n" in self.description:
            raise ValueError(f"the description of {self.name!r} must be one line")
        if self.alias != self.alias.strip():
            raise ValueError(f"the alias of {self.name!r} has leading or trailing spaces")


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    label: str


@dataclass(frozen=True, slots=True)
class LabelSet:
    labels: tuple[Label, ...]
    examples: tuple[Example, ...] = field(default=())

    def __post_init__(self):
        if len(self.labels) < 2:
            raise ValueError("a label set needs at least two labels")
        names = [label.name for label in self.labels]
        if len(set(n.lower() for n in names)) != len(names):
            raise ValueError(f"label names must be distinct: {names}")
        surfaces = [label.surface.lower() for label in self.labels]
        if len(set(surfaces)) != len(surfaces):
            raise ValueError(f"label aliases must be distinct: {[label.surface for label in self.labels]}")
        for example in self.examples:
            if example.label not in names:
                raise ValueError(f"example labeled {example.label!r}, which is not one of {names}")

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

    @classmethod
    def from_dict(cls, data: dict) -> LabelSet:
        try:
            labels = tuple(
                Label(item) if isinstance(item, str)
                else Label(item["name"], item.get("description", ""), item.get("alias", ""))
                for item in data["labels"]
            )
            examples = tuple(Example(e["text"], e["label"]) for e in data.get("examples", []))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a label set: missing {exc}") from None
        return cls(labels=labels, examples=examples)

    @classmethod
    def load(cls, path: str | Path) -> LabelSet:
        return cls.from_dict(read_json(path))

    def to_dict(self) -> dict:
        return {
            "labels": [{k: v for k, v in asdict(label).items() if v or k != "alias"} for label in self.labels],
            "examples": [asdict(example) for example in self.examples],
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def read_json(path: str | Path):
    """A label-set file's JSON; one line naming the file where it is not JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
