"""Direct scoring: the label's tokens after the ticket, log p(label | ticket), and its slow reference.

Each label token is scored as log p(token_j | prompt, token_<j); how those combine into one
score per label is the scoring's choice (engine/scoring.py). All labels share their first
scoring position (the end of the prompt); a multi-token label also needs its own earlier tokens
as input. Those tokens form a trie, fed in the same forward as the ticket, each node attending to
the prompt and its own ancestors only (tree attention, engine/forward.py), so one forward scores
every label.

With many labels that trie is most of the work; with `--length sum`, RunConfig.prune scores only
the labels that can still beat the runner-up (engine/methods/prune.py). Calibration is part of that
bound, so the content-free tickets the prior is measured on always get the whole trie, and the
method keeps the prior it sees them give.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from triage_app.engine.batches import Bucket, padded_width
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.forward import (LabelTree, batch_attention_mask, batch_input_ids,  # noqa: F401
                                       batch_position_ids, decoder_of)
from triage_app.engine.methods.base import ScoredBatch, method_tolerance
from triage_app.engine.models import LoadedModel
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.prompt import EncodedTicket, PromptPrefix
from triage_app.engine.methods.prune import TrieIndex, score_pruned
from triage_app.engine.scoring import CONTENT_FREE, prior
from triage_app.engine.stats import LabelNodes


class DirectMethod:
    """The label's tokens after the ticket: one forward per batch scores every label."""

    # the largest label-score difference from the reference that rounding alone gives (batched
    # matmuls sum in another order), per dtype (docs/bench/bfloat16_drift.txt; engine/verify.py reads it)
    TOLERANCE = {"float32": 1e-3, "float16": 0.2, "bfloat16": 1.0}

    def __init__(self, loaded: LoadedModel, prompt: PromptPrefix, max_ticket_tokens: int | None, scoring: Scoring):
        self.loaded = loaded
        self.prompt = prompt
        self.scoring = scoring
        self.tree = LabelTree.build(prompt.label_ids)
        self.index = TrieIndex.of(self.tree)
        self.label_nodes = LabelNodes()     # label-trie nodes through the model, against the whole trie's
        self._free: dict[tuple[int, ...], int] | None = None   # content-free ticket ids -> its place
        self._free_seen: dict[int, torch.Tensor] = {}           # their token log-probs [L, D], by place
        # rounding: a label whose bound comes this close to the runner-up is finished, not pruned
        self._slack = method_tolerance(self.TOLERANCE, loaded.placement.dtype_name)
        firsts = [ids[0] for ids in prompt.label_ids]
        if scoring.length == "first" and len(set(firsts)) < len(firsts):
            raise ValueError("two labels start with the same token: scoring by the first token cannot tell them apart")

    @property
    def ticket_limit(self) -> int:
        return self.prompt.max_ticket_tokens

    @property
    def prefix_ids(self) -> list[list[int]]:
        return [self.prompt.ids]

    def label_parts(self) -> None:
        """None: every label is read in one prompt, so one label's score depends on the whole set."""
        return None

    def preview(self) -> dict:
        """What Show prompt shows: the one static prefix, the tail after the ticket, each label's tokens."""
        return {"prefix": self.prompt.text, "tail": self.prompt.tail, "prefix_tokens": len(self.prompt.ids),
                "label_tokens": {name: len(ids) for name, ids in zip(self.prompt.label_set.names, self.prompt.label_ids)},
                "warnings": list(self.prompt.label_warnings), "channel_label": ""}

    def encode(self, texts: list[str]) -> list[EncodedTicket]:
        return self.prompt.encode(texts)

    def full_length(self, ticket: EncodedTicket) -> int:
        return len(ticket.full_ids)

    def reference_length(self, ticket: EncodedTicket) -> int:
        return len(ticket.full_ids)

    def fast_batch(self, tickets: list[EncodedTicket], bucket: Bucket, prefixes: list[PrefixCache] | None,
                   config: RunConfig) -> ScoredBatch:
        prefix = prefixes[0] if prefixes else None
        rows = [t.suffix_ids if prefix else t.full_ids for t in tickets]
        prunes = self._prunes(config)
        free = [self._content_free().get(tuple(t.full_ids)) if prunes else None for t in tickets]
        if prunes and all(k is None for k in free):
            shift, guess = self._calibration(prefixes)
            token_logprobs, nodes = score_pruned(self.loaded.model, rows, self.tree, self.index, prefix, shift, guess,
                                                 self._slack)
        else:
            token_logprobs = score_batch(self.loaded.model, rows, self.tree, prefix, config.full_head,
                                         self.loaded.placement.width_step)
            nodes = len(rows) * self.tree.size
            self._free_seen.update({k: lp for k, lp in zip(free, token_logprobs) if k is not None})
        self.label_nodes.fed += nodes
        self.label_nodes.full += len(rows) * self.tree.size
        return ScoredBatch(token_logprobs, processed=len(rows) * bucket.width + nodes,
                           real=bucket.real_tokens + nodes, prefix_saved=prefix.length * len(rows) if prefix else 0)

    def reference(self, ticket: EncodedTicket) -> ScoredBatch:
        n = len(ticket.full_ids) + max(map(len, self.tree.leaf_paths()))
        return ScoredBatch(score_reference(self.loaded.model, ticket.full_ids, self.tree), processed=n, real=n)

    def fingerprint_parts(self) -> list:
        return []   # the prompt the Classifier names for every method is direct's own

    # pruning
    def _prunes(self, config: RunConfig) -> bool:
        # a trie of first tokens only has nothing to prune; mean's per-token average has no such bound
        return config.prune and self.scoring.length == "sum" and self.tree.size > 0

    def _content_free(self) -> dict[tuple[int, ...], int]:
        if self._free is None:
            self._free = {tuple(t.full_ids): k for k, t in enumerate(self.encode(list(CONTENT_FREE)))}
        return self._free

    def _calibration(self, prefixes: list[PrefixCache] | None) -> tuple[torch.Tensor, torch.Tensor]:
        """[L] what calibration adds to each label's summed log-prob, and [L, D] the token log-probs
        expected before a ticket is read (the content-free tickets' mean). The prior is the one the
        Classifier computes from the content-free tickets it ran through fast_batch just before (the
        same tensors, so the same prior); measured here only when a caller scores tickets without it."""
        L, D = len(self.tree.steps), max(map(len, self.tree.steps))
        if not self.scoring.calibrate:
            return torch.zeros(L), torch.zeros(L, D)
        if len(self._free_seen) < len(CONTENT_FREE):
            prefix = prefixes[0] if prefixes else None
            for t in self.encode(list(CONTENT_FREE)):
                cached = prefix is not None and t.uses_prefix
                self._free_seen[t.index] = score_batch(self.loaded.model, [t.suffix_ids if cached else t.full_ids],
                                                       self.tree, prefix if cached else None, False)[0]
        stacked = torch.stack([self._free_seen[k] for k in range(len(CONTENT_FREE))])   # [N, L, D]
        return -prior(self.scoring, stacked), stacked.mean(dim=0)


# fast path
# (inference mode here, not around the caller's loop: a generator would leak it into its consumer)
@torch.inference_mode()
def score_batch(model, rows: list[list[int]], tree: LabelTree, prefix: PrefixCache | None,
                full_head: bool, width_step: int = 1) -> torch.Tensor:
    """Log-prob of every label token for right-padded rows: [B, L, D], NaN past a label's end."""
    device = model.device
    lengths = torch.tensor([len(r) for r in rows], device=device)                 # [B]
    B, S, T = len(rows), padded_width(int(lengths.max()), width_step), tree.size
    P = prefix.length if prefix else 0
    input_ids = batch_input_ids(rows, tree, S, device)                                 # [B, S+T]
    position_ids = batch_position_ids(lengths, tree, S, P, device)                     # [B, S+T]
    mask = batch_attention_mask(lengths, tree, S, P, device)                           # [B, 1, S+T, P+S+T]
    cache = prefix.expand(B) if prefix else None
    hidden = decoder_of(model)(input_ids=input_ids, attention_mask=mask, position_ids=position_ids,
                               cache=cache, use_cache=cache is not None).last_hidden_state  # [B, S+T, H]
    h_end = hidden[torch.arange(B, device=device), lengths - 1]                   # [B, H]
    h_nodes = hidden[:, S:]                                                       # [B, T, H]
    head = model.get_output_embeddings()
    if full_head:
        logprobs = F.log_softmax(head(hidden).float(), dim=-1)                    # [B, S+T, V]
        end = logprobs[torch.arange(B, device=device), lengths - 1]               # [B, V]
        nodes = logprobs[:, S:]                                                   # [B, T, V]
    else:
        # only the rows that score labels go through the head: the prompt end and the label nodes
        end = F.log_softmax(head(h_end).float(), dim=-1)                          # [B, V]
        nodes = F.log_softmax(head(h_nodes).float(), dim=-1) if T else None       # [B, T, V]
    return _token_logprobs(tree, end, nodes)


# reference
@torch.inference_mode()
def score_reference(model, full_ids: list[int], tree: LabelTree) -> torch.Tensor:
    """One ticket, its full prompt, no cache, no padding, the model's own head: [1, L, D]."""
    device = model.device
    end, nodes = None, torch.empty(1, tree.size, model.get_output_embeddings().weight.shape[0], device=device)
    for path in tree.leaf_paths():
        ids = torch.tensor([full_ids + [tree.node_tokens[n] for n in path]], device=device)
        logprobs = F.log_softmax(model(input_ids=ids, use_cache=False).logits.float(), dim=-1)  # [1, N, V]
        end = logprobs[:, len(full_ids) - 1]
        for k, n in enumerate(path):
            nodes[:, n] = logprobs[:, len(full_ids) + k]
    return _token_logprobs(tree, end, nodes)


def _token_logprobs(tree, end, nodes):
    # end: [B, V] at the prompt end; nodes: [B, T, V] at each label node
    depth = max(len(steps) for steps in tree.steps)
    out = torch.full((end.shape[0], len(tree.steps), depth), float("nan"), device=end.device)  # [B, L, D]
    for label, steps in enumerate(tree.steps):
        for j, (node, token) in enumerate(steps):
            out[:, label, j] = end[:, token] if node < 0 else nodes[:, node, token]
    return out
