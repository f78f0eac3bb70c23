"""The tensors of one padded forward: ticket rows, right-padded after an optional prefix cache,
then the label trie's nodes (tree attention). Direct scoring feeds the trie; channel scoring
feeds none (an empty trie), so both share the same ids, positions and mask.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


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

