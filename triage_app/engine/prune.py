"""Direct scoring with many labels: branch and bound over the label trie, for `--length sum`.

A label's summed log-prob can only fall as its tokens are added (each is <= 0), and calibration is
a per-label shift (temperature a common positive scale). So a label's partial sum, shifted like a
finished score, bounds its final score from above. The ticket runs once; then each round feeds,
on the ticket's cached keys and values, only the trie nodes of the labels whose bound still
reaches the runner-up: the best finished label but one. Every round re-reads the whole cache
(prefix and ticket) for every row, so rounds are few and each finishes its labels whole.

What that gives, against the whole trie (engine/direct.py score_batch):
- the label (argmax) and the runner-up are finished, so the label, the log-margin and both
  their summed log-probs are the whole trie's (up to the rounding `slack` is for);
- a label left unfinished keeps NaN past the tokens scored, so its summed log-prob is its upper
  bound, which is below the runner-up's. The probabilities shown are normalised over those
  bounds, so every finished label's, the confidence included, is at most the exact one: a
  confidence is never overstated, and an unfinished label's probability is below the runner-up's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from transformers import DynamicCache

from triage_app.engine.batches import padded_width
from triage_app.engine.forward import LabelTree, batch_attention_mask, batch_input_ids, batch_position_ids, decoder_of
from triage_app.engine.prefix_cache import PrefixCache

_NO_TREE = LabelTree((), (), (), ())


@dataclass(frozen=True, slots=True)
class TrieIndex:
    """Per node, the label steps it scores; per label, its length: what the rounds look up."""

    scored_by: tuple[tuple[tuple[int, int, int], ...], ...]   # per node: (label, step, token)
    first_tokens: tuple[int, ...]                             # per label: its first token
    lengths: tuple[int, ...]                                  # per label: its token count

    @classmethod
    def of(cls, tree: LabelTree) -> TrieIndex:
        scored_by: list[list[tuple[int, int, int]]] = [[] for _ in range(tree.size)]
        for label, steps in enumerate(tree.steps):
            for j, (node, token) in enumerate(steps[1:], start=1):
                scored_by[node].append((label, j, token))
        return cls(tuple(map(tuple, scored_by)), tuple(s[0][1] for s in tree.steps),
                   tuple(len(s) for s in tree.steps))


@torch.inference_mode()
def score_pruned(model, rows: list[list[int]], tree: LabelTree, index: TrieIndex, prefix: PrefixCache | None,
                 shift: torch.Tensor, guess: torch.Tensor, slack: float, width_step: int = 1) -> tuple[torch.Tensor, int]:
    """Log-prob of the label tokens each row needs: [B, L, D], NaN past a label's end and past what
    was scored; and how many label nodes went through the model. shift: [L], added to a label's
    summed log-prob (minus its calibration prior, or zeros). guess: [L, D], a label's token log-probs
    as expected before the ticket is read (NaN past its end), to choose which labels to finish first.
    slack: how close to the runner-up a bound must stay to be finished (the dtype's rounding)."""
    device = model.device
    lengths = torch.tensor([len(r) for r in rows], device=device)                 # [B]
    B, S = len(rows), padded_width(int(lengths.max()), width_step)
    P = prefix.length if prefix else 0
    cache = prefix.expand(B) if prefix else DynamicCache(config=model.config)
    head = model.get_output_embeddings()
    # the ticket, once
    hidden = decoder_of(model)(input_ids=batch_input_ids(rows, _NO_TREE, S, device),             # [B, S]
                               attention_mask=batch_attention_mask(lengths, _NO_TREE, S, P, device),  # [B, 1, S, P+S]
                               position_ids=batch_position_ids(lengths, _NO_TREE, S, P, device),
                               cache=cache, use_cache=True).last_hidden_state                      # [B, S, H]
    end = F.log_softmax(head(hidden[torch.arange(B, device=device), lengths - 1]).float(), dim=-1)  # [B, V]
    L = len(index.lengths)
    out = torch.full((B, L, max(index.lengths)), float("nan"), device=device)  # [B, L, D]
    out[:, :, 0] = end[:, list(index.first_tokens)]
    label_len = torch.tensor(index.lengths)                                       # [L]
    shift = shift.float().cpu()                                                   # [L]
    rest = guess.float().cpu().nan_to_num(0.0).flip(1).cumsum(1).flip(1)          # [L, D] expected log-prob from step j on
    rest = F.pad(rest, (0, 1))                                                    # [L, D+1]
    slots: list[dict[int, int]] = [{} for _ in range(B)]   # per row: node -> its column in the cache
    fed, first = 0, True
    while True:
        known = out.cpu()                                                         # [B, L, D]
        done = (~known.isnan()).sum(dim=2)                                        # [B, L] leading steps scored
        bound = known.nan_to_num(0.0).sum(dim=2) + shift                          # [B, L]
        finished = done == label_len                                              # [B, L]
        # the runner-up must be exact too: the margin shown is top-1 minus top-2
        second = bound.masked_fill(~finished, -math.inf).topk(min(2, L), dim=1).values[:, -1:]  # [B, 1]
        open_ = ~finished & (bound >= second - slack)                             # [B, L]
        if not open_.any():
            return out, fed
        estimate = bound + rest.gather(1, done.T).T                               # [B, L]
        new = [_nodes_to_feed(tree, open_[b], bound[b], estimate[b], done[b], slots[b], first) for b in range(B)]
        cols = cache.get_seq_length()
        logprobs = _feed(model, head, cache, new, slots, tree, lengths, S, P, cols)   # [B, K, V]
        at = [(b, i, label, j, token) for b, nodes in enumerate(new) for i, node in enumerate(nodes)
              for label, j, token in index.scored_by[node]]
        bs, ns, ls, js, ts = (torch.tensor(c, device=device) for c in zip(*at))   # [N] each
        out[bs, ls, js] = logprobs[bs, ns, ts]
        fed += sum(map(len, new))
        first = False


def _nodes_to_feed(tree, open_, bound, estimate, done, slots, first) -> list[int]:
    """Every node still missing from the labels to finish this round, ancestors first. The first
    round guesses the runner-up's score (the second-best estimate) and finishes every label whose
    bound reaches it; later rounds finish every label still open (a wrong guess costs a round)."""
    labels = open_.clone()                                                        # [L]
    if first and int(open_.sum()) > 2:
        labels &= bound >= estimate[open_].topk(2).values[-1]
    nodes = {node for l in labels.nonzero().flatten().tolist() for node, _ in tree.steps[l][int(done[l]):]}
    return sorted(nodes - slots.keys(), key=tree.node_depth.__getitem__)


def _feed(model, head, cache, new, slots, tree, lengths, S, P, cols) -> torch.Tensor:
    """One forward of each row's new nodes after everything cached so far; each node sees the
    prefix, its own ticket and its ancestors. Rows with fewer nodes are padded: a pad sees the
    prefix and its ticket, and no later node ever sees a pad."""
    device = lengths.device
    B, K = len(new), max(map(len, new))
    ids = torch.zeros(B, K, dtype=torch.long)                                     # [B, K]
    depth = torch.zeros(B, K, dtype=torch.long)                                   # [B, K]
    mask = torch.zeros(B, K, cols + K, dtype=torch.bool)                          # [B, K, cols+K]
    mask[:, :, :P] = True
    mask[:, :, P : P + S] = torch.arange(S)[None, None, :] < lengths.cpu()[:, None, None]
    for b, nodes in enumerate(new):
        for i, node in enumerate(nodes):
            slots[b][node] = cols + i
        for i, node in enumerate(nodes):
            ids[b, i], depth[b, i] = tree.node_tokens[node], tree.node_depth[node]
            mask[b, i, [slots[b][a] for a in tree.ancestors[node]]] = True
    position_ids = P + lengths[:, None] + depth.to(device)                        # [B, K]
    hidden = decoder_of(model)(input_ids=ids.to(device), attention_mask=mask[:, None].to(device),
                               position_ids=position_ids, cache=cache, use_cache=True).last_hidden_state  # [B, K, H]
    return F.log_softmax(head(hidden).float(), dim=-1)                            # [B, K, V]
