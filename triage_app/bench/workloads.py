"""Benchmark workloads mirroring the two published setups, plus the app's own prompt, and many labels."""

from __future__ import annotations

import csv
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path

from triage_app.engine.labels import LabelSet
from triage_app.engine.prompt import PromptStyle
from triage_app.paths import resource

SAMPLE_TICKETS = resource("sample_tickets.csv")
# BANKING77's training split (Casanueva et al., 2020, "Efficient Intent Detection with Dual Sentence
# Encoders"; PolyAI, CC BY 4.0): for measuring, never shipped. Found beside the checkout, as the
# project's machines and CI lay it out, or where TRIAGE_BANKING77 says.
BANKING77 = Path(os.environ.get("TRIAGE_BANKING77")
                 or Path(__file__).resolve().parents[3] / "shared" / "data" / "banking77_train.csv")
PER_INTENT = 4

SHORT_INSTRUCTION = ("Classify the customer support ticket as billing, technical or account. "
                     "Answer with the category name only.")

# ~145 tokens of static prompt, as in the published prefix-caching benchmark
LONG_INSTRUCTION = (
    "You are the triage assistant of a software company's customer support team. Every message you "
    "receive is one ticket written by a customer. Decide which team must handle it and answer with "
    "one word: the category name.\n"
    "billing: payments, invoices, receipts, charges, refunds, taxes, plans, upgrades, downgrades and "
    "cancellations of a subscription.\n"
    "technical: errors, bugs, crashes, slow pages, outages, integrations, the API, mobile apps, "
    "imports, exports and anything that does not work as documented.\n"
    "account: sign-in, passwords, two-factor codes, locked accounts, profile details, e-mail "
    "addresses, team members, roles and permissions."
)


@dataclass(frozen=True, slots=True)
class Workload:
    name: str
    style: PromptStyle
    label_set: LabelSet
    texts: list[str]
    gold: list[str]


def load_sample(path: Path = SAMPLE_TICKETS) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.?!])\s|\n", text.strip(), maxsplit=1)[0]


def workload(name: str, n: int | None = None) -> Workload:
    rows = load_sample()[:n]
    gold = [r["category"] for r in rows]
    if name == "short-prompt":
        style = PromptStyle(SHORT_INSTRUCTION, describe_labels=False, use_examples=False)
        return Workload(name, style, LabelSet.default(), [r["text"] for r in rows], gold)
    if name == "long-prefix":
        style = PromptStyle(LONG_INSTRUCTION, describe_labels=False, use_examples=False)
        return Workload(name, style, LabelSet.default(), [first_sentence(r["text"]) for r in rows], gold)
    if name == "app":
        return Workload(name, PromptStyle(), LabelSet.default(), [r["text"] for r in rows], gold)
    if name == "many-labels":
        return many_labels(n)
    raise ValueError(f"unknown workload {name!r}: use {', '.join(MODE_WORKLOADS)}")


def many_labels(n: int | None = None, labels: int = 77) -> Workload:
    """BANKING77 messages, with `labels` of its 77 intents (spread evenly over the alphabet) as plain
    names ("card arrival"), in the app's prompt: direct scoring's throughput as labels grow."""
    drawn = banking77(PER_INTENT)
    rows = drawn[:n]
    intents = sorted({r["category"] for r in drawn})
    picked = [intents[round(k * len(intents) / labels)] for k in range(labels)]
    names = [i.replace("_", " ") for i in picked]
    return Workload(f"many-labels-{labels}", PromptStyle(), LabelSet.from_names(names), [r["text"] for r in rows],
                    [r["category"].replace("_", " ") for r in rows])


HELPDESK_EXPORT = resource("helpdesk_export.csv")
HELPDESK_AXES = resource("helpdesk_axes.json")
# a third axis for the several-axes bench (the export has no column of it: timed, not judged)
TICKET_TYPE = {"name": "type", "labels": [
    {"name": "Question", "description": "the customer asks how something works or what is possible"},
    {"name": "Incident", "description": "something went wrong with one order, payment or account"},
    {"name": "Problem", "description": "a fault that keeps happening or affects many orders"},
    {"name": "Task", "description": "the customer asks for something to be done: a change, a cancellation"}]}


def axes_workload(n: int | None = None):
    """The helpdesk export's tickets (body) with three axes: its queue and priority, and a ticket type."""
    import json

    from triage_app.engine.axes import Axes

    data = json.loads(HELPDESK_AXES.read_text(encoding="utf-8"))
    axes = Axes.from_dict({"axes": data["axes"] + [TICKET_TYPE]})
    return axes, [r["body"] for r in load_sample(HELPDESK_EXPORT)[:n]]


def banking77(per_intent: int) -> list[dict]:
    """per_intent messages of each intent, drawn with a fixed seed, in a shuffled order."""
    if not BANKING77.is_file():
        raise ValueError(f"the many-labels workload reads BANKING77's training split, not found at {BANKING77} "
                         "(set TRIAGE_BANKING77 to its banking77_train.csv)")
    rng, by_intent = random.Random(0), {}
    for row in load_sample(BANKING77):
        by_intent.setdefault(row["category"], []).append(row)
    drawn = [row for intent in sorted(by_intent) for row in rng.sample(by_intent[intent], per_intent)]
    rng.shuffle(drawn)
    return drawn


# the workloads workload() builds, and every one bench --workload takes: the others are benches of their own
MODE_WORKLOADS = ("short-prompt", "long-prefix", "app", "many-labels")
WORKLOADS = MODE_WORKLOADS + ("export", "taught", "axes")
