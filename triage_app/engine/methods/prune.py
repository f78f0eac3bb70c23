"""Direct scoring with many labels: branch and bound over the label trie, for `--length sum`.

A label's summed log-prob can only fall as its tokens are added (each is <= 0), and calibration is
a per-label shift (temperature a common positive scale). So a label's partial sum, shifted like a
finished score, bounds its final score from above. The ticket runs once; then each round feeds,
after the ticket's keys and values, only trie nodes of labels whose bound still reaches the
runner-up: the best finished label but one. The first round finishes the labels expected to come
first (the runner-up must be finished for anything to be pruned); later rounds feed every label
still in reach one token further, so each token scored tightens its bound before the next is
paid for. Rows are packed without padding and the prompt prefix is read, never copied
(engine/methods/shared_prefix.py), so a round costs its nodes and little more.

What that gives, against the whole trie (engine/methods/direct.py score_batch):
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

from triage_app.engine.forward import LabelTree
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.methods.shared_prefix import RowCache

FIRST_FINISHED = 3        # labels finished in the first round: the runner-up needs two, a third is cheap insurance
_HEAD_CHUNK = 256         # node rows per pass through the LM head: bounds the [rows, vocab] logits


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
                 shift: torch.Tensor, guess: torch.Tensor, slack: float) -> tuple[torch.Tensor, int]:
    """Log-prob of the label tokens each row needs: [B, L, D], NaN past a label's end and past what
    was scored; and how many label nodes went through the model. shift: [L], added to a label's
    summed log-prob (minus its calibration prior, or zeros). guess: [L, D], a label's token log-probs
    as expected before the ticket is read (NaN past its end), to choose which labels to finish first.
    slack: how close to the runner-up a bound must stay to be finished (the dtype's rounding)."""
    device = model.device
    lengths = [len(r) for r in rows]
    B, L = len(rows), len(index.lengths)
    cache = RowCache(model, prefix, B, max(lengths) + tree.size)
    head = model.get_output_embeddings()
    hidden = cache.feed(model, *_ticket_grid(rows, cache.length, cache.capacity))   # [N, H] the ticket, once
    ends = torch.tensor(lengths, device=device).cumsum(0) - 1                        # [B]
    end = F.log_softmax(head(hidden[ends]).float(), dim=-1)                          # [B, V]
    out = torch.full((B, L, max(index.lengths)), float("nan"))                       # [B, L, D]
    out[:, :, 0] = end[:, list(index.first_tokens)].cpu()
    label_len = torch.tensor(index.lengths)                                          # [L]
    rest = guess.float().cpu().nan_to_num(0.0).flip(1).cumsum(1).flip(1)             # [L, D] expected log-prob from step j on
    rest = F.pad(rest, (0, 1))                                                       # [L, D+1]
    slots: list[dict[int, int]] = [{} for _ in range(B)]   # per row: node -> its column in the row's buffer
    fed, first = 0, True
    while True:
        done = (~out.isnan()).sum(dim=2)                                             # [B, L] leading steps scored
        bound = out.nan_to_num(0.0).sum(dim=2) + shift.float().cpu()                 # [B, L]
        finished = done == label_len                                                 # [B, L]
        # the runner-up must be exact too: the margin shown is top-1 minus top-2
        second = bound.masked_fill(~finished, -math.inf).topk(min(2, L), dim=1).values[:, -1:]  # [B, 1]
        open_ = ~finished & (bound >= second - slack)                                # [B, L]
        if not open_.any():
            return out.to(device), fed
        estimate = bound + rest.gather(1, done.T).T                                  # [B, L] expected final score
        target = _targets(open_, finished, estimate, done, label_len, first)         # [B, L] steps scored after
        new = [_nodes_between(tree, done[b], target[b], slots[b]) for b in range(B)]
        hidden = cache.feed(model, *_node_grid(tree, new, slots, lengths, cache))     # [N, H]
        at = [(b, k, label, j, token) for k, (b, node) in enumerate((b, n) for b, nodes in enumerate(new) for n in nodes)
              for label, j, token in index.scored_by[node]]
        bs, ks, ls, js, ts = (torch.tensor(c) for c in zip(*at))                     # [M] each
        out[bs, ls, js] = _token_logprobs(head, hidden, ks.to(device), ts.to(device)).cpu()
        fed += sum(map(len, new))
        first = False


def _targets(open_, finished, estimate, done, label_len, first) -> torch.Tensor:
    """[B, L] how many leading steps of each label are scored after this round. A row with fewer
    than two finished labels (every row, the first round) finishes its FIRST_FINISHED open labels
    expected best; a row with a runner-up takes every open label one step further."""
    step = torch.where(open_, torch.minimum(done + 1, label_len), done)              # [B, L]
    ranked = estimate.masked_fill(~open_, -math.inf)
    best = ranked.topk(min(FIRST_FINISHED, ranked.shape[1]), dim=1)                  # [B, k]
    finish = torch.zeros_like(open_).scatter_(1, best.indices, True) & open_         # [B, L]
    no_runner_up = (finished.sum(dim=1, keepdim=True) < 2) | first                   # [B, 1]
    return torch.where(no_runner_up, torch.where(finish, label_len, done), step)


def _nodes_between(tree, done, target, slots) -> list[int]:
    """The nodes that score steps done..target-1 of each label, not fed yet, ancestors first."""
    nodes = {tree.steps[l][j][0] for l in (target > done).nonzero().flatten().tolist()
             for j in range(max(int(done[l]), 1), int(target[l]))}
    return sorted(nodes - slots.keys(), key=tree.node_depth.__getitem__)


def _ticket_grid(rows, P, C):
    """The tickets as RowCache.feed takes them: ids, counts, positions, columns, causal sight."""
    B, S = len(rows), max(map(len, rows))
    ids = torch.zeros(B, S, dtype=torch.long)                                        # [B, S]
    for b, row in enumerate(rows):
        ids[b, : len(row)] = torch.tensor(row)
    columns = torch.arange(S).expand(B, S)                                           # [B, S]
    causal = torch.ones(S, S, dtype=torch.bool).tril()                               # [S, S]
    sees = F.pad(causal, (0, C - S)).expand(B, S, C)                                 # [B, S, C]
    return ids, torch.tensor(list(map(len, rows))), P + columns, columns, sees


def _node_grid(tree, new, slots, lengths, cache):
    """Each row's new nodes after everything fed so far: a node sees its own ticket and its
    ancestors (the prefix it always sees)."""
    B, K, C = len(new), max(map(len, new)), cache.capacity
    ids, depth, columns = (torch.zeros(B, K, dtype=torch.long) for _ in range(3))   # [B, K] each
    sees = torch.zeros(B, K, C, dtype=torch.bool)                                    # [B, K, C]
    for b, nodes in enumerate(new):
        base = lengths[b] + len(slots[b])
        slots[b].update((node, base + i) for i, node in enumerate(nodes))
        sees[b, :, : lengths[b]] = True
        for i, node in enumerate(nodes):
            ids[b, i], depth[b, i], columns[b, i] = tree.node_tokens[node], tree.node_depth[node], slots[b][node]
            sees[b, i, [slots[b][a] for a in tree.ancestors[node]]] = True
    positions = cache.length + torch.tensor(lengths)[:, None] + depth                # [B, K]
    return ids, torch.tensor(list(map(len, new))), positions, columns, sees


def _token_logprobs(head, hidden, rows, tokens) -> torch.Tensor:
    """log p(tokens[m] | hidden[rows[m]]) for each m: [M]. The normaliser needs the whole vocabulary,
    but only the scored tokens are kept: no [N, vocab] log-softmax is ever materialised."""
    out = torch.empty(len(rows), device=hidden.device)                               # [M]
    for start in range(0, hidden.shape[0], _HEAD_CHUNK):
        logits = head(hidden[start : start + _HEAD_CHUNK]).float()                   # [n, V]
        mine = (rows >= start) & (rows < start + _HEAD_CHUNK)                        # [M]
        at = rows[mine] - start
        out[mine] = logits[at, tokens[mine]] - logits.logsumexp(dim=-1)[at]
    return out
