"""The hot path: label log-probabilities for a batch of tickets, and the slow reference.

Each label token is scored as log p(token_j | prompt, token_<j); how those combine into one
score per label is the scoring's choice (engine/scoring.py). All labels share their first
scoring position (the end of the prompt); a multi-token label also needs its own earlier tokens
as input. Those tokens form a trie, fed in the same forward as the ticket, each node attending to
the prompt and its own ancestors only (tree attention), so one forward scores every label.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from triage_app.engine.batches import padded_width
from triage_app.engine.prefix_cache import PrefixCache


@dataclass(frozen=True, slots=True)
class LabelTree:
    """Label tokens as a trie of the input nodes needed to score them."""

    node_tokens: tuple[int, ...]          # input token of each node
    node_depth: tuple[int, ...]           # 0 = the token right after the prompt
    ancestors: tuple[tuple[int, ...], ...]  # per node: itself and the nodes above it
    steps: tuple[tuple[tuple[int, int], ...], ...]  # per label: (node scoring it or -1 = prompt end, token)

    @classmethod
    def build(cls, label_ids: list[list[int]]) -> LabelTree:
        nodes: dict[tuple[int, ...], int] = {}
        tokens, depth, ancestors, steps = [], [], [], []
        for ids in label_ids:
            label_steps = []
            for j, token in enumerate(ids):
                label_steps.append((nodes[tuple(ids[:j])] if j else -1, token))
                path = tuple(ids[: j + 1])
                if j + 1 < len(ids) and path not in nodes:
                    nodes[path] = len(tokens)
                    parent = ancestors[nodes[path[:-1]]] if j else ()
                    tokens.append(token)
                    depth.append(j)
                    ancestors.append(parent + (nodes[path],))
            steps.append(tuple(label_steps))
        return cls(tuple(tokens), tuple(depth), tuple(ancestors), tuple(steps))

    @property
    def size(self) -> int:
        return len(self.node_tokens)

    def leaf_paths(self) -> list[tuple[int, ...]]:
        """The node chains the reference must feed so that every node's output exists."""
        inner = {a for chain in self.ancestors for a in chain[:-1]}
        return [self.ancestors[n] for n in range(self.size) if n not in inner] or [()]


def decoder_of(model: torch.nn.Module) -> torch.nn.Module:
    return model.get_decoder()


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


def batch_input_ids(rows, tree, S, device):
    ids = torch.zeros(len(rows), S + tree.size, dtype=torch.long, device=device)
    for b, row in enumerate(rows):
        ids[b, : len(row)] = torch.tensor(row, device=device)
    if tree.size:
        ids[:, S:] = torch.tensor(tree.node_tokens, device=device)
    return ids


def batch_position_ids(lengths, tree, S, P, device):
    pos = P + torch.arange(S, device=device).expand(len(lengths), S)             # pads: ignored
    if not tree.size:
        return pos
    depth = torch.tensor(tree.node_depth, device=device)
    return torch.cat([pos, P + lengths[:, None] + depth[None, :]], dim=1)


def batch_attention_mask(lengths, tree, S, P, device):
    """[B, 1, S+T, P+S+T] booleans: who sees whom. No query row is fully masked (on MPS a fully
    masked row comes out NaN): a pad query sees the prefix and its ticket; its output is dropped."""
    B, T = len(lengths), tree.size
    q = torch.arange(S + T, device=device)
    s = torch.arange(S, device=device)
    # real suffix keys: causal for ticket tokens, all of them for label nodes; pads are never keys
    real = (s[None, None, :] <= q[None, :, None]) & (s[None, None, :] < lengths[:, None, None])
    mask = torch.zeros(B, S + T, P + S + T, dtype=torch.bool, device=device)
    mask[:, :, :P] = True
    mask[:, :, P : P + S] = real
    for n, chain in enumerate(tree.ancestors):
        mask[:, S + n, [P + S + a for a in chain]] = True
    return mask[:, None]


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
