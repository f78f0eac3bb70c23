"""Direct scoring of one field among several ("direct-fields"): every field's labels before the ticket,
the field asked in a short cue after it.

The system text names every field of the run scored with this method, with its labels (and descriptions), the ticket is the
user's turn, and the assistant's turn starts with the field asked ("queue:"); the label tokens after
that cue are scored as direct scores them (engine/methods/direct.py: the same fast path and reference). So
every field's prompt is the same up to the end of the ticket: the static prefix (every field's labels,
cached once) and the ticket's tokens are shared, and a field costs only its cue and its label trie.
Several fields of a run share one pass over each ticket (engine/axes_pass.py, the cue as the
"question" after the ticket), the cut between ticket and cue checked per ticket (TicketFirstPrompt).

The fields are the run's axes scored with this method (PromptStyle.fields, filled by engine/build.py's
axes_classifiers: an axis of another method is not asked here, so it is not named);
without them a label set is one field, named like a plain set's axis. A field's prompt names every
such field, so its fingerprint changes when any of their labels do: such an edit re-scores every one.
Its accuracy against direct: docs/quality/axes_after_ticket.md.
"""

from __future__ import annotations

from triage_app.engine.methods.direct_after import TicketFirstMethod, TicketFirstPrompt
from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS
from triage_app.engine.labels import LabelSet
from triage_app.engine.prompt import DEFAULT_INSTRUCTION, PromptStyle, clean

FIELDS_INSTRUCTION = ("You are a support triage assistant. Read the customer support ticket and set these fields "
                      "of the ticket. Asked for a field, answer with one of its values only.")
PLAIN_FIELD = "label"   # a label set with no fields around it: engine/axes.py's PLAIN axis


def fields_of(label_set: LabelSet, style: PromptStyle) -> tuple[list[tuple[str, LabelSet]], str]:
    """Every field as (name, label set), the asked one holding the classifier's own label set (examples
    drawn for a run included), and the asked field's name."""
    if not style.fields:
        return [(PLAIN_FIELD, label_set)], PLAIN_FIELD
    names = [name for name, _ in style.fields]
    if style.field not in names:
        raise ValueError(f"direct-fields: the field asked, {style.field!r}, is not one of {names}")
    return [(name, label_set if name == style.field else labels) for name, labels in style.fields], style.field


def system_text(fields: list[tuple[str, LabelSet]], style: PromptStyle) -> str:
    """The instruction (the style's own where it has one), then each field: its labels, described."""
    lead = FIELDS_INSTRUCTION if style.instruction == DEFAULT_INSTRUCTION else style.instruction
    blocks = []
    for name, labels in fields:
        lines = [f"{name}: one of {', '.join(labels.surfaces)}"]
        if style.describe_labels:
            lines += [f"- {l.surface}: {l.description}" if l.description else f"- {l.surface}" for l in labels.labels]
        blocks.append("\n".join(lines))
    return lead + "\n\n" + "\n\n".join(blocks)


class FieldsPrompt(TicketFirstPrompt):
    """Every field in the system text, few-shot turns answered "field: label", the ticket's turn, then
    the assistant's start and the cue; labels are scored after the cue and a space."""

    LABEL_LEAD = " "

    def __init__(self, tokenizer, label_set: LabelSet, style: PromptStyle = PromptStyle(),
                 context_tokens: int = 8192, max_ticket_tokens: int | None = DEFAULT_MAX_TICKET_TOKENS):
        self.fields, self.field = fields_of(label_set, style)
        self.cue = f"{self.field}:"
        super().__init__(tokenizer, label_set, style, context_tokens, max_ticket_tokens)

    def messages(self, ticket_text: str) -> list[dict]:
        turns = [{"role": "system", "content": system_text(self.fields, self.style)}]
        if self.style.use_examples:
            for name, labels in self.fields:
                for example in labels.examples:
                    turns += [{"role": "user", "content": clean(example.text)},
                              {"role": "assistant", "content": f"{name}: {labels.surface_of(example.label)}"}]
        return turns + [{"role": "user", "content": ticket_text}]

    def render(self, ticket_text: str) -> str:
        """The chat template's prompt, the assistant's turn begun with the cue."""
        return super().render(ticket_text) + self.cue


class DirectFieldsMethod(TicketFirstMethod):
    """Direct scoring on FieldsPrompt: every field before the ticket, the one asked after it."""

    NAME, PROMPT = "direct-fields", FieldsPrompt
