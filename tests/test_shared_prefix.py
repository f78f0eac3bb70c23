"""Packed rows after a shared prefix (engine/methods/shared_prefix.py) against the padded, expanded forward
direct scoring's whole trie runs: the same hidden states, rows of different lengths, real SmolLM2."""

from __future__ import annotations

import pytest
import torch

from triage_app.engine.forward import LabelTree, batch_attention_mask, batch_input_ids, batch_position_ids, decoder_of
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.methods.shared_prefix import RowCache

TOLERANCE = 1e-4
TREE = LabelTree.build([[5, 6, 7], [5, 8], [9, 10, 11, 12]])   # shared first token, chains of depth 3


def ids(generator, n):
    return torch.randint(1000, 20000, (n,), generator=generator).tolist()


@pytest.fixture(scope="module")
def parts(smollm2):
    g = torch.Generator().manual_seed(0)
    prefix = PrefixCache(decoder_of(smollm2.model), ids(g, 60), "cpu")
    return prefix, [ids(g, n) for n in (7, 3, 11)]


def padded_forward(model, rows, tree, prefix):
    """Ticket rows right-padded, then every node of the trie, on the prefix expanded per row: [B, S+T, H]."""
    lengths = torch.tensor([len(r) for r in rows])
    S, P = int(lengths.max()), prefix.length if prefix else 0
    with torch.inference_mode():
        return decoder_of(model)(input_ids=batch_input_ids(rows, tree, S, "cpu"),
                                 attention_mask=batch_attention_mask(lengths, tree, S, P, "cpu"),
                                 position_ids=batch_position_ids(lengths, tree, S, P, "cpu"),
                                 cache=prefix.expand(len(rows)) if prefix else None,
                                 use_cache=prefix is not None).last_hidden_state


def ticket_grid(rows, P, C):
    B, S = len(rows), max(map(len, rows))
    grid = torch.zeros(B, S, dtype=torch.long)
    for b, row in enumerate(rows):
        grid[b, : len(row)] = torch.tensor(row)
    columns = torch.arange(S).expand(B, S)
    sees = torch.zeros(B, S, C, dtype=torch.bool)
    sees[:, :, :S] = torch.ones(S, S, dtype=torch.bool).tril()
    return grid, torch.tensor([len(r) for r in rows]), P + columns, columns, sees


def node_grid(rows, counts, P, C):
    """Row b feeds the trie's first counts[b] nodes, after its ticket."""
    B, T = len(rows), TREE.size
    lengths = torch.tensor([len(r) for r in rows])
    grid = torch.tensor(TREE.node_tokens).expand(B, T)
    positions = P + lengths[:, None] + torch.tensor(TREE.node_depth)[None]
    columns = lengths[:, None] + torch.arange(T)[None]
    sees = torch.zeros(B, T, C, dtype=torch.bool)
    for b in range(B):
        sees[b, :, : lengths[b]] = True
        for n, chain in enumerate(TREE.ancestors):
            sees[b, n, [int(lengths[b]) + a for a in chain]] = True
    return grid, torch.tensor(counts), positions, columns, sees


@pytest.mark.parametrize("with_prefix", [True, False])
def test_packed_rows_equal_the_padded_expanded_forward(smollm2, parts, with_prefix):
    model, (prefix, rows) = smollm2.model, parts
    prefix = prefix if with_prefix else None
    expected = padded_forward(model, rows, TREE, prefix)                          # [B, S+T, H]
    S, T = max(map(len, rows)), TREE.size
    cache = RowCache(model, prefix, len(rows), S + T)
    P = cache.length
    before, attention = prefix.checksum() if prefix else 0.0, model.config._attn_implementation
    tickets = cache.feed(model, *ticket_grid(rows, P, S + T))                      # [N, H]
    assert torch.allclose(tickets, torch.cat([expected[b, : len(r)] for b, r in enumerate(rows)]), atol=TOLERANCE)
    # a second call, as the pruning rounds make: unequal node counts, ancestors from this call
    counts = [T, 2, 3]
    nodes = cache.feed(model, *node_grid(rows, counts, P, S + T))
    assert torch.allclose(nodes, torch.cat([expected[b, S : S + k] for b, k in enumerate(counts)]), atol=TOLERANCE)
    assert (prefix.checksum() if prefix else 0.0) == before                       # the prefix is read, never written
    assert model.config._attn_implementation == attention                         # switched for the call only


def test_later_rounds_see_nodes_fed_in_earlier_ones(smollm2, parts):
    """Node 1's ancestor, node 0, comes from the round before: its keys must be in the row's buffer."""
    model, (prefix, rows) = smollm2.model, parts
    expected = padded_forward(model, rows, TREE, prefix)
    S, T = max(map(len, rows)), TREE.size
    cache = RowCache(model, prefix, len(rows), S + T)
    cache.feed(model, *ticket_grid(rows, cache.length, S + T))
    cache.feed(model, *node_grid(rows, [1, 1, 1], cache.length, S + T))          # node 0 of every row
    grid, _, positions, columns, sees = node_grid(rows, [T] * len(rows), cache.length, S + T)
    later = cache.feed(model, grid[:, 1:], torch.tensor([1, 1, 1]), positions[:, 1:], columns[:, 1:], sees[:, 1:])
    assert torch.allclose(later, expected[:, S + 1], atol=TOLERANCE)


def test_the_fused_cpu_kernel_and_the_plain_one_give_the_same_attention_and_log_sum_exp():
    """Other devices take the plain path: it must agree with the fused one the CPU tests run."""
    from triage_app.engine.methods.shared_prefix import _attention_with_lse, _plain_attention_with_lse

    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 3, n, 64, generator=g) for n in (12, 20, 20))
    sees = torch.rand(2, 1, 12, 20, generator=g) > 0.5
    sees[..., 0] = True                                                           # every query sees a key
    bias = torch.zeros(sees.shape).masked_fill(~sees, -torch.inf)
    for b in (bias, None):
        fused, plain = _attention_with_lse(q, k, v, b, 0.125), _plain_attention_with_lse(q, k, v, b, 0.125)
        assert all(torch.allclose(x, y, atol=TOLERANCE) for x, y in zip(fused, plain))
