"""The prompt, and its token-clean cut into a static prefix and a per-ticket suffix.

The prefix (system text, label definitions, few-shot turns, up to the start of the ticket) is
the same for every ticket, so its KV cache is computed once. That is only exact if
tokens(prefix) + tokens(suffix) == tokens(prefix + suffix); a BPE merge across the cut would
break it, so it is checked for every ticket and a ticket that fails runs on its full prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS
from triage_app.engine.labels import LabelSet

DEFAULT_INSTRUCTION = (
    "You are a support triage assistant. Read the customer support ticket and classify it "
    "into exactly one of the categories below. Answer with the category name only."
)
_SENTINEL = "TRIAGE-TICKET-SENTINEL-7f3a"


@dataclass(frozen=True, slots=True)
class PromptStyle:
    instruction: str = DEFAULT_INSTRUCTION
    describe_labels: bool = True
    use_examples: bool = True
    # direct-fields (engine/methods/direct_fields.py) only: every field of the run, (name, LabelSet) in order, and the one
    # this classifier asks; every other method's prompt is its own label set's alone
    fields: tuple = ()
    field: str = ""

    def system_text(self, label_set: LabelSet) -> str:
        if not self.describe_labels:
            return self.instruction
        lines = [f"- {l.surface}: {l.description}" if l.description else f"- {l.surface}" for l in label_set.labels]
        answer = ", ".join(label_set.surfaces)
        return f"{self.instruction}\n\nCategories:\n" + "\n".join(lines) + f"\n\nAnswer with one of: {answer}."


@dataclass(frozen=True, slots=True)
class EncodedTicket:
    """One ticket's token ids; suffix_ids is None when the cut is not token-clean."""

    index: int
    full_ids: list[int] | list[list[int]]   # the whole prompt; channel: each label's whole prompt
    suffix_ids: list[int] | None            # the ticket's tokens after the prefix (channel: after every prefix)
    truncated: bool

    @property
    def uses_prefix(self) -> bool:
        return self.suffix_ids is not None


class PromptPrefix:
    """The static part of the prompt for one label set, its token ids and the label continuations."""

    LABEL_LEAD = ""   # what the prompt's end and a label are written apart by (engine/methods/direct_fields.py: a space)

    def __init__(self, tokenizer, label_set: LabelSet, style: PromptStyle = PromptStyle(),
                 context_tokens: int = 8192, max_ticket_tokens: int | None = DEFAULT_MAX_TICKET_TOKENS):
        self.tokenizer = tokenizer
        self.label_set = label_set
        self.style = style
        self.text, self.tail = split_at_ticket(self.render)
        self.ids = self._encode(self.text)
        self.label_ids, self.label_warnings = self._label_continuations()
        used = len(self.ids) + len(self._encode(self.tail)) + max(map(len, self.label_ids))
        self.max_ticket_tokens = ticket_limit(context_tokens, used, max_ticket_tokens,
                                              f"the prompt prefix ({len(self.ids)} tokens)")

    # the chat template, rendered once
    def messages(self, ticket_text: str) -> list[dict]:
        system = self.style.system_text(self.label_set)
        turns = [{"role": "system", "content": system}]
        if self.style.use_examples:
            for example in self.label_set.examples:
                turns += [{"role": "user", "content": clean(example.text)},
                          {"role": "assistant", "content": self.label_set.surface_of(example.label)}]
        return turns + [{"role": "user", "content": ticket_text}]

    def render(self, ticket_text: str) -> str:
        """The whole prompt as the chat template writes it (the reference's definition)."""
        return self.tokenizer.apply_chat_template(self.messages(ticket_text), tokenize=False,
                                                  add_generation_prompt=True)

    def _encode(self, text: str) -> list[int]:
        # the template already holds every special token the model expects
        return self.tokenizer(text, add_special_tokens=False).input_ids

    def _label_continuations(self) -> tuple[list[list[int]], list[str]]:
        """Label token ids as the model would write them after the assistant prompt."""
        probe = self.text + "Example ticket" + self.tail
        probe_ids = self._encode(probe)
        ids, warnings = [], []
        for name in self.label_set.surfaces:
            alone = self._encode(self.LABEL_LEAD + name)
            in_context = self._encode(probe + self.LABEL_LEAD + name)
            if in_context[: len(probe_ids)] == probe_ids:
                ids.append(in_context[len(probe_ids):])
            else:
                ids.append(alone)
                warnings.append(f"label {name!r} merges with the end of the prompt; scored as its own tokens")
        return ids, warnings

    # per ticket
    def encode(self, texts: list[str]) -> list[EncodedTicket]:
        """Tokenize tickets, truncating overlong ones, and check the cut for each.

        The suffix is the full prompt's own tokens after the prefix, so the fast path feeds
        exactly the reference's tokens; the check is that those begin with the prefix's tokens.
        """
        if not texts:
            return []
        texts, truncated = truncate(self.tokenizer, [clean(t) for t in texts], self.max_ticket_tokens)
        full = self.tokenizer([self.text + t + self.tail for t in texts], add_special_tokens=False).input_ids
        n = len(self.ids)
        return [EncodedTicket(i, f, f[n:] if f[:n] == self.ids and len(f) > n else None, cut)
                for i, (f, cut) in enumerate(zip(full, truncated))]


def ticket_limit(context_tokens: int, used: int, max_ticket_tokens: int | None, what: str) -> int:
    """The most tokens a ticket keeps: max_ticket_tokens (None or 0: all the room there is), or less
    where the prompt around it (used tokens, named by what) leaves less of the model's context."""
    room = context_tokens - used - 8
    if room < 16:
        raise ValueError(f"{what} leaves no room for a ticket in the model's {context_tokens}-token context")
    return min(room, max_ticket_tokens or room)


def split_at_ticket(render) -> tuple[str, str]:
    """render(ticket_text) -> the whole prompt; the text before and after the ticket, checked verbatim."""
    # a sentinel the prompt itself does not hold (a label or an example could, by chance or on purpose)
    sentinel = next(s for k in range(1000) if (s := f"{_SENTINEL}-{k}") not in render(""))
    rendered = render(sentinel)
    if rendered.count(sentinel) != 1:
        raise ValueError("the chat template does not place the ticket text verbatim")
    prefix, tail = rendered.split(sentinel)
    for probe in ("Where is my invoice?", "x"):
        if render(probe) != prefix + probe + tail:
            raise ValueError("the chat template rewrites the ticket text; cannot cut the prompt")
    return prefix, tail


def may_exceed(text: str, limit: int) -> bool:
    """Whether the text can be more than limit tokens: a token is at least one byte of its UTF-8 (a CJK character
    is three, an emoji four, each often a token of its own), and a SentencePiece tokenizer may add one before it.
    Only such texts are tokenized to find out."""
    return len(text) > limit or len(text.encode("utf-8", "surrogatepass")) + 1 > limit


def clean(text: str) -> str:
    # leading/trailing whitespace would merge with the template's newlines and break the cut
    return str(text).strip()


def truncate(tokenizer, texts: list[str], limit: int) -> tuple[list[str], list[bool]]:
    """Policy: keep the head of a ticket, up to limit tokens."""
    long = [i for i, t in enumerate(texts) if may_exceed(t, limit)]
    truncated = [False] * len(texts)
    if not long:
        return texts, truncated
    enc = tokenizer([texts[i] for i in long], add_special_tokens=False, return_offsets_mapping=True)
    for i, offsets in zip(long, enc["offset_mapping"]):
        if len(offsets) > limit:
            texts[i] = texts[i][: offsets[limit][0]].rstrip()
            truncated[i] = True
    return texts, truncated
