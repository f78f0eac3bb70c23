"""Direct scoring with the question after the ticket ("direct-after"): the label list follows the ticket.

Today's direct prompt puts the label list in the system text, before the ticket, so the cached
prefix differs per label set. Here the system text is the same for every label set, the ticket is
its own user turn, and the question (the label list, the answer's form, any examples) is a second
user turn after it, then the assistant's start and the label trie, scored as direct scores it
(engine/methods/direct.py: the same fast path, the same reference, on this prompt).

What that buys: every label set's prompt starts with the same prefix and the same ticket tokens,
so several axes can read one ticket pass and each ask its own question on the ticket's cached keys
and values (engine/axes_pass.py). The cut between the ticket and the question is at the special
token that ends the ticket's turn; it is checked per ticket (ticket_part), like the prefix's cut.
Whether the model answers as well with the label list after the ticket is measured, not assumed:
docs/quality/axes_after_ticket.md.
"""

from __future__ import annotations

from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS, Scoring
from triage_app.engine.methods.direct import DirectMethod
from triage_app.engine.labels import LabelSet
from triage_app.engine.models import LoadedModel
from triage_app.engine.prompt import DEFAULT_INSTRUCTION, EncodedTicket, PromptPrefix, PromptStyle, clean

AFTER_SYSTEM = ("You are a support triage assistant. The user sends a customer support ticket, then asks "
                "which category it belongs to. Answer with the category name only.")
AFTER_QUESTION = "Classify the ticket above into exactly one of the categories below."


def question_text(label_set: LabelSet, style: PromptStyle) -> str:
    """The turn after the ticket: the style's instruction (today's default becomes AFTER_QUESTION,
    which points back at the ticket), the label list as direct writes it, and the examples."""
    lead = AFTER_QUESTION if style.instruction == DEFAULT_INSTRUCTION else style.instruction
    text = PromptStyle(lead, style.describe_labels).system_text(label_set)
    examples = label_set.examples if style.use_examples else ()
    if examples:
        text += "\n\nEarlier tickets and their categories:\n" + "\n".join(
            f"- {clean(e.text)} -> {label_set.surface_of(e.label)}" for e in examples)
    return text


class TicketFirstPrompt(PromptPrefix):
    """A prompt whose axes all share the prefix and the ticket: what follows the ticket (question_ids: the
    end of its turn, then the axis's own tokens) is all that differs between axes. PromptPrefix's cut at
    the ticket (text, tail, ids, label_ids, encode), and a second cut, checked per ticket, after it."""

    def __init__(self, tokenizer, label_set: LabelSet, style: PromptStyle = PromptStyle(),
                 context_tokens: int = 8192, max_ticket_tokens: int | None = DEFAULT_MAX_TICKET_TOKENS):
        super().__init__(tokenizer, label_set, style, context_tokens, max_ticket_tokens)
        self.question_ids = self._encode(self.tail)

    def ticket_part(self, ticket: EncodedTicket) -> list[int] | None:
        """The ticket's own tokens between the prefix and the question, where both cuts are clean:
        prefix ids + these + question_ids == the full prompt's ids. None where they are not."""
        q = len(self.question_ids)
        suffix = ticket.suffix_ids
        if suffix is None or len(suffix) <= q or suffix[-q:] != self.question_ids:
            return None
        return suffix[:-q]


class AfterPrompt(TicketFirstPrompt):
    """The static system text, the ticket's turn, then the question's: the tail holds the question."""

    def __init__(self, tokenizer, label_set: LabelSet, style: PromptStyle = PromptStyle(),
                 context_tokens: int = 8192, max_ticket_tokens: int | None = DEFAULT_MAX_TICKET_TOKENS):
        self.question = question_text(label_set, style)
        super().__init__(tokenizer, label_set, style, context_tokens, max_ticket_tokens)

    def messages(self, ticket_text: str) -> list[dict]:
        return [{"role": "system", "content": AFTER_SYSTEM}, {"role": "user", "content": ticket_text},
                {"role": "user", "content": self.question}]


class TicketFirstMethod(DirectMethod):
    """Direct scoring on a TicketFirstPrompt (PROMPT, built from the label set and style of the direct
    prompt the Classifier passes): several axes of one such method share a pass over each ticket
    (engine/axes_pass.py). Its fast path and reference are direct's (score_batch, score_reference), so
    its rounding TOLERANCE is direct's too."""

    NAME: str
    PROMPT: type[TicketFirstPrompt]

    def __init__(self, loaded: LoadedModel, prompt: PromptPrefix, max_ticket_tokens: int | None, scoring: Scoring):
        own = self.PROMPT(loaded.tokenizer, prompt.label_set, prompt.style, loaded.context_tokens, max_ticket_tokens)
        super().__init__(loaded, own, max_ticket_tokens, scoring)

    def fingerprint_parts(self) -> list:
        p = self.prompt
        return [self.NAME, p.text, p.tail, p.label_ids, p.max_ticket_tokens]


class DirectAfterMethod(TicketFirstMethod):
    """Direct scoring on AfterPrompt: the label list after the ticket."""

    NAME, PROMPT = "direct-after", AfterPrompt
