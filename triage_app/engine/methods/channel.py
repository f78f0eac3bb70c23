"""Channel scoring: how likely the ticket's own words are, read as a ticket of each label.

Direct scoring asks for the label after the ticket, and a small model answers there from its
prior over the label words more than from the ticket. The channel turns the question around
(Min et al., 2022, "Noisy Channel Language Model Prompting"): each label gets a prompt saying
the ticket that follows belongs to it, and the label's score is log p(ticket | label), the sum
of the ticket's token log-probs. With equal priors that is Bayes' rule, so the probabilities
need no calibration. It costs one pass over the ticket per label, where direct costs one.

Each label's prompt up to the ticket is a static prefix (one KV cache per label); a ticket's
tokens are the same after every prefix (checked: the cut must be token-clean for each label),
so one length-bucketed batch runs against every label's cache, all labels in one forward.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import torch
import torch.nn.functional as F

from triage_app.engine.batches import Bucket, padded_width
from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS, RunConfig, Scoring
from triage_app.engine.forward import (LabelTree, batch_attention_mask, batch_input_ids, batch_position_ids,
                                       decoder_of)
from triage_app.engine.labels import Label, LabelSet
from triage_app.engine.methods.base import ScoredBatch
from triage_app.engine.models import LoadedModel
from triage_app.engine.prefix_cache import PrefixCache, stacked
from triage_app.engine.prompt import EncodedTicket, PromptPrefix, clean, split_at_ticket, ticket_limit, truncate

CHANNEL_INSTRUCTION = "You are reading a customer support ticket. It belongs to this category: {label}."
_NO_LABELS = LabelTree.build([])


class ChannelPrompt:
    """One static prefix per label: the instruction naming the label, and the label's examples."""

    def __init__(self, tokenizer, label_set: LabelSet, context_tokens: int = 8192,
                 max_ticket_tokens: int | None = DEFAULT_MAX_TICKET_TOKENS):
        self.tokenizer = tokenizer
        self.label_set = label_set
        self.texts = [split_at_ticket(lambda text, label=label: self.render(label, text))[0]
                      for label in label_set.labels]
        self.ids = [self._encode(text) for text in self.texts]
        longest = max(map(len, self.ids))
        self.max_ticket_tokens = ticket_limit(context_tokens, longest, max_ticket_tokens,
                                              f"a label's prompt ({longest} tokens)")

    def system_text(self, label: Label) -> str:
        named = f"{label.surface} ({label.description})" if label.description else label.surface
        text = CHANNEL_INSTRUCTION.format(label=named)
        examples = [clean(e.text) for e in self.label_set.examples if e.label == label.name]
        if examples:
            text += "\n\nEarlier tickets in this category:\n" + "\n".join(f"- {e}" for e in examples)
        return text

    def render(self, label: Label, ticket_text: str) -> str:
        """One label's whole prompt as the chat template writes it (the reference's definition)."""
        messages = [{"role": "system", "content": self.system_text(label)}, {"role": "user", "content": ticket_text}]
        return self.tokenizer.apply_chat_template(messages, tokenize=False)

    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False).input_ids

    def encode(self, texts: list[str], labels: list[int] | None = None) -> list[EncodedTicket]:
        """Tokenize tickets after each label's prefix, truncating overlong ones, and check each cut:
        suffix_ids is None unless every label's cut is clean. labels: only these labels' prompts
        (indices into the label set; None: all), in that order."""
        if not texts:
            return []
        labels = range(len(self.ids)) if labels is None else labels
        texts, truncated = truncate(self.tokenizer, [clean(t) for t in texts], self.max_ticket_tokens)
        per_label = [self.tokenizer([self.texts[k] + t for t in texts], add_special_tokens=False).input_ids
                     for k in labels]
        prefixes = [self.ids[k] for k in labels]
        tickets = []
        for i, cut in enumerate(truncated):
            full = [ids[i] for ids in per_label]
            tails = [f[len(p):] if f[: len(p)] == p else None for f, p in zip(full, prefixes)]
            clean_cut = tails[0] and all(t == tails[0] for t in tails)
            tickets.append(EncodedTicket(i, full, tails[0] if clean_cut else None, cut))
        return tickets


class ChannelMethod:
    """The ticket's tokens after each label's own prompt: one pass per label, one KV cache per label.

    A label's score depends on its own prompt alone, so the method can score any subset of the
    labels (only): an edit to the label set re-scores just the labels it changed."""

    # A channel score sums every ticket token's log-prob, so rounding adds up over the ticket: the
    # largest score difference from the reference rounding alone gives, per dtype (measured on the CPU
    # without native bfloat16 only: docs/bench/bfloat16_drift.txt; engine/verify.py reads it)
    TOLERANCE = {"float32": 1e-3, "float16": 0.5, "bfloat16": 3.0}

    def __init__(self, loaded: LoadedModel, prompt: PromptPrefix, max_ticket_tokens: int | None, scoring: Scoring):
        self.loaded = loaded
        self.names = prompt.label_set.names
        self.channel = ChannelPrompt(loaded.tokenizer, prompt.label_set, loaded.context_tokens, max_ticket_tokens)
        self.labels = list(range(len(self.channel.ids)))   # the labels scored, as indices into the label set

    def only(self, labels: list[int]) -> ChannelMethod:
        """The same prompts, scoring only these labels (indices into the label set, in that order):
        token log-probs [B, len(labels), 1]."""
        narrowed = copy.copy(self)
        narrowed.labels = list(labels)
        return narrowed

    def label_parts(self) -> list[list]:
        """Per label, everything besides the ticket, model and cleaning that decides its token
        log-probs: its own prompt up to the ticket as the model reads it (its name or alias, its
        description, its own examples; no other label's), and the ticket limit, which decides where a
        long ticket is cut (it depends on the longest prompt of the set, so it is named, not assumed)."""
        return [["channel label", text, self.channel.max_ticket_tokens] for text in self.channel.texts]

    @property
    def ticket_limit(self) -> int:
        return self.channel.max_ticket_tokens

    @property
    def prefix_ids(self) -> list[list[int]]:
        return [self.channel.ids[k] for k in self.labels]

    def preview(self) -> dict:
        """What Show prompt shows: one prompt per label, the first label's."""
        return {"prefix": self.channel.texts[0], "tail": "", "prefix_tokens": len(self.channel.ids[0]),
                "label_tokens": {}, "warnings": [], "channel_label": self.names[0]}

    @property
    def starts(self) -> list[int]:
        """Where each scored label's ticket tokens begin."""
        return [len(ids) for ids in self.prefix_ids]

    def encode(self, texts: list[str]) -> list[EncodedTicket]:
        return self.channel.encode(texts, self.labels)

    def full_length(self, ticket: EncodedTicket) -> int:
        return max(map(len, ticket.full_ids))

    def reference_length(self, ticket: EncodedTicket) -> int:
        return len(ticket.full_ids[0])

    def fast_batch(self, tickets: list[EncodedTicket], bucket: Bucket, prefixes: list[PrefixCache] | None,
                   config: RunConfig) -> ScoredBatch:
        """One length bucket of ticket tokens against every scored label's cache; without the caches
        (an unclean cut, or the prefix cache off), each label's whole prompts as padded rows."""
        model, step = self.loaded.model, self.loaded.placement.width_step
        if prefixes:
            labels = len(prefixes)
            rows = [t.suffix_ids for t in tickets]
            return ScoredBatch(score_channel_batch(model, rows, prefixes, step, config.token_budget),
                               processed=len(tickets) * bucket.width * labels, real=bucket.real_tokens * labels,
                               prefix_saved=sum(p.length for p in prefixes) * len(tickets))
        rows = [[len(t.full_ids[k]) for t in tickets] for k in range(len(self.labels))]
        return ScoredBatch(score_channel_full_batch(model, tickets, self.starts, step),
                           processed=sum(len(r) * padded_width(max(r), step) for r in rows), real=sum(map(sum, rows)))

    def reference(self, ticket: EncodedTicket) -> ScoredBatch:
        n = sum(map(len, ticket.full_ids))
        return ScoredBatch(score_channel_reference(self.loaded.model, ticket, self.starts), processed=n, real=n)

    def fingerprint_parts(self) -> list:
        return ["channel", self.channel.texts, self.channel.max_ticket_tokens]


class RowPrefixes(NamedTuple):
    """The cached prefixes a batch's rows follow: row b follows lengths[b] tokens, stored right-padded
    to width slots."""

    cache: object                 # DynamicCache, [B, kv_heads, width, head_dim] per layer
    width: int
    lengths: torch.Tensor         # [B]
    last_hidden: torch.Tensor     # [B, H]: each prefix's last position, which predicts the row's first token


# fast path
@torch.inference_mode()
def score_channel_batch(model, rows: list[list[int]], prefixes: list[PrefixCache], width_step: int = 1,
                        token_budget: int | None = None) -> torch.Tensor:
    """log p(ticket | label) for right-padded ticket rows, against every label's cache: [B, L, 1].

    As many labels' rows as token_budget allows run in one forward (row l * B + b: ticket b after
    label l's prefix): a small batch, such as the first labels of a run wait for, makes one pass
    over the weights instead of one per label; a full one runs a label at a time, as large as before."""
    tokens = len(rows) * padded_width(max(map(len, rows)), width_step)   # one label's rows x width
    labels = max(1, token_budget // tokens) if token_budget else len(prefixes)
    return torch.cat([_stacked_log_likelihoods(model, rows, prefixes[k : k + labels], width_step)
                      for k in range(0, len(prefixes), labels)], dim=1)[:, :, None]


def _stacked_log_likelihoods(model, rows, prefixes, width_step) -> torch.Tensor:
    """[B, L]: every given label's rows in one forward."""
    B, L = len(rows), len(prefixes)
    lengths = torch.tensor([p.length for p in prefixes], device=model.device).repeat_interleave(B)   # [L*B]
    last_hidden = torch.cat([p.last_hidden for p in prefixes]).repeat_interleave(B, dim=0)          # [L*B, H]
    behind = RowPrefixes(stacked(prefixes, B), max(p.length for p in prefixes), lengths, last_hidden)
    return _log_likelihoods(model, rows * L, 0, behind, width_step).view(L, B).T


@torch.inference_mode()
def score_channel_full_batch(model, tickets: list[EncodedTicket], prefix_lengths: list[int],
                             width_step: int = 1) -> torch.Tensor:
    """The same without a cache: each label's whole prompts as right-padded rows: [B, L, 1]."""
    return torch.stack([_log_likelihoods(model, [t.full_ids[label] for t in tickets], p, None, width_step)
                        for label, p in enumerate(prefix_lengths)], dim=1)[:, :, None]


def _log_likelihoods(model, rows: list[list[int]], start: int, prefix: RowPrefixes | None,
                     width_step: int) -> torch.Tensor:
    """Per row, the sum of log p(token) over row[start:], each token given everything before it: [B]."""
    device = model.device
    lengths = torch.tensor([len(r) for r in rows], device=device)                # [B]
    B, S = len(rows), padded_width(int(lengths.max()), width_step)
    P = prefix.width if prefix else 0
    input_ids = batch_input_ids(rows, _NO_LABELS, S, device)                     # [B, S]
    mask = batch_attention_mask(lengths, _NO_LABELS, S, P, device)               # [B, 1, S, P+S]
    position_ids = batch_position_ids(lengths, _NO_LABELS, S, 0, device)         # [B, S]
    if prefix:
        # a shorter prefix's padding slots are never keys; its tokens continue from its own length
        mask[:, :, :, :P] &= torch.arange(P, device=device) < prefix.lengths[:, None, None, None]
        position_ids = position_ids + prefix.lengths[:, None]
    cache = prefix.cache if prefix else None
    hidden = decoder_of(model)(input_ids=input_ids, attention_mask=mask, position_ids=position_ids,
                               cache=cache, use_cache=cache is not None).last_hidden_state  # [B, S, H]
    # the position before each scored token predicts it; for the first one after a cache that is
    # the prefix's last position
    states, targets = [], []
    for b, n in enumerate(lengths.tolist()):
        if start:
            states.append(hidden[b, start - 1 : n - 1])
        else:
            states.append(torch.cat([prefix.last_hidden[b : b + 1], hidden[b, : n - 1]]))
        targets.append(input_ids[b, start:n])
    scored = _target_logprobs(model, torch.cat(states), torch.cat(targets))   # [sum of n - start]
    owner = torch.repeat_interleave(torch.arange(B, device=device), (lengths - start).clamp(min=0))
    # summed in float64: over hundreds of tokens the order of float32 additions would show
    return torch.zeros(B, dtype=torch.float64, device=device).index_add_(0, owner, scored.double()).float()


# Rows of the LM head computed together: one large matmul beats one per ticket, and chunks bound
# the float32 logits a large vocabulary makes (docs/bench/head_chunk.txt has the timings).
HEAD_CHUNK = 256


def _target_logprobs(model, states: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log p(target) at each state: [N, H], [N] -> [N]."""
    head = model.get_output_embeddings()
    parts = []
    for k in range(0, len(targets), HEAD_CHUNK):
        logits = head(states[k : k + HEAD_CHUNK]).float()                              # [n, V]
        parts.append(logits.gather(1, targets[k : k + HEAD_CHUNK, None])[:, 0] - logits.logsumexp(dim=-1))
    return torch.cat(parts)


# reference
@torch.inference_mode()
def score_channel_reference(model, ticket: EncodedTicket, prefix_lengths: list[int]) -> torch.Tensor:
    """One ticket, each label's full prompt, no cache, no padding, the model's own head: [1, L, 1]."""
    out = torch.empty(1, len(ticket.full_ids), 1, device=model.device)
    for label, (full, p) in enumerate(zip(ticket.full_ids, prefix_lengths)):
        ids = torch.tensor([full], device=model.device)
        logprobs = F.log_softmax(model(input_ids=ids, use_cache=False).logits[0].float(), dim=-1)  # [N, V]
        out[0, label, 0] = logprobs[p - 1 : len(full) - 1].gather(1, ids[0, p:, None]).double().sum()
    return out
