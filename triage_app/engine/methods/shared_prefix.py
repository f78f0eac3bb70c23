"""Packed rows after one shared prompt prefix: cascade attention, for direct scoring's pruning rounds.

Every row's new tokens go through the model as one sequence, without padding, so the linear
layers (most of the work) see real tokens only, however unequal the rows. Attention splits in
two and merges by log-sum-exp: every query against the prefix's keys and values, kept once for
all rows ([1, kv_heads, P, head_dim]: never expanded per row, never copied), and each query
against its own row's keys (its ticket, the label nodes fed so far), kept in a buffer allocated
once per batch and written in place. The model's own layers run; only the attention function
is ours, through transformers' AttentionInterface, for the length of one call.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward

from triage_app.engine.forward import decoder_of
from triage_app.engine.prefix_cache import PrefixCache

ATTENTION = "triage_shared_prefix"
_ROWS = "triage_rows"       # the keyword that reaches the attention function with the RowCache


class RowCache:
    """One batch's rows after a shared prefix: per layer, each row's keys and values so far."""

    def __init__(self, model, prefix: PrefixCache | None, rows: int, capacity: int):
        config = model.config
        kv_heads = config.num_key_value_heads
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        shape = (rows, kv_heads, capacity, head_dim)                               # [B, kv_heads, C, head_dim]
        dtype, device = model.dtype, model.device
        # zeros, not empty: a masked key's value still enters the matmul, and 0 * NaN is NaN
        self.keys = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.num_hidden_layers)]
        self.values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.num_hidden_layers)]
        self.prefix = prefix.layers if prefix else None
        self.length = prefix.length if prefix else 0
        self.capacity = capacity

    @torch.inference_mode()
    def feed(self, model, ids: torch.Tensor, counts: torch.Tensor, positions: torch.Tensor, slots: torch.Tensor,
             sees: torch.Tensor) -> torch.Tensor:
        """The last hidden state of each row's first counts[b] tokens, packed row after row: [N, H].
        ids, positions, slots: [B, K] (slots: the token's column in its row's buffer); counts: [B];
        sees: [B, K, C], which of its row's columns a token attends to (itself included; the
        prefix it always sees)."""
        device = model.device
        real = torch.arange(ids.shape[1], device=device)[None, :] < counts.to(device)[:, None]   # [B, K]
        self._place = real.flatten().nonzero().flatten()                          # [N] in the [B * K] grid
        self._rows = real.nonzero()[:, 0]                                         # [N]
        self._slots = slots.to(device)[real]                                      # [N]
        # no token sees a column past this call's last: the columns after it are not read
        B, K, W = sees.shape[0], sees.shape[1], int(self._slots.max()) + 1
        G = model.config.num_attention_heads // model.config.num_key_value_heads
        bias = torch.zeros(B, K, W, device=device).masked_fill(~sees[:, :, :W].to(device), -math.inf)   # [B, K, W]
        self._bias = bias[:, None, None].expand(B, 1, G, K, W).reshape(B, 1, G * K, W)         # per query head row
        self._grid = K
        with _switched(model):
            out = decoder_of(model)(input_ids=ids.to(device)[real][None], position_ids=positions.to(device)[real][None],
                                    use_cache=False, **{_ROWS: self})
        return out.last_hidden_state[0]                                           # [N, H]

    def attend(self, layer: int, query, key, value, scaling: float) -> torch.Tensor:
        """query: [1, heads, N, head_dim]; key, value: [1, kv_heads, N, head_dim], this call's tokens.
        Returns [1, N, heads, head_dim], as transformers' attention functions do."""
        keys, values = self.keys[layer], self.values[layer]                       # [B, kv_heads, C, head_dim]
        keys[self._rows, :, self._slots] = key[0].transpose(0, 1)                 # [N, kv_heads, head_dim]
        values[self._rows, :, self._slots] = value[0].transpose(0, 1)
        q = query[0].float()                                                      # [heads, N, head_dim]
        W = self._bias.shape[-1]
        out, lse = self._own_rows(q, keys[:, :, :W].float(), values[:, :, :W].float(), scaling)   # [N, heads, head_dim], [N, heads]
        if self.prefix is not None:
            heads, N, d = q.shape
            k, v = self.prefix[layer]                                             # [1, kv_heads, P, head_dim]
            # every group of query heads shares one key head: one [G * N] query row per key head
            out_p, lse_p = _attention_with_lse(q.reshape(1, k.shape[1], -1, d), k.float(), v.float(), None, scaling)
            out_p, lse_p = out_p.reshape(heads, N, d).transpose(0, 1), lse_p.reshape(heads, N).T
            top = torch.maximum(lse, lse_p)
            w, w_p = (lse - top).exp(), (lse_p - top).exp()                        # [N, heads]
            out = (out * w[..., None] + out_p * w_p[..., None]) / (w + w_p)[..., None]
        return out[None].to(query.dtype)

    def _own_rows(self, q, keys, values, scaling):
        """Each query against its own row's buffer, in a [B, K] grid (short rows padded here only)."""
        heads, N, d = q.shape
        B, kv_heads = keys.shape[:2]
        K, G = self._grid, heads // kv_heads
        grid = q.new_zeros(B * K, heads, d)
        grid[self._place] = q.transpose(0, 1)
        grid = grid.view(B, K, kv_heads, G, d).permute(0, 2, 3, 1, 4).reshape(B, kv_heads, G * K, d)
        out, lse = _attention_with_lse(grid, keys, values, self._bias, scaling)   # [B, kv_heads, G*K, d], [B, kv_heads, G*K]
        # a grid pad sees nothing: its rows are never read back
        out = out.reshape(B, kv_heads, G, K, d).permute(0, 3, 1, 2, 4).reshape(B * K, heads, d)[self._place]
        return out, lse.reshape(B, kv_heads, G, K).permute(0, 3, 1, 2).reshape(B * K, heads)[self._place]


def _attention_with_lse(q, k, v, bias, scaling):
    """Softmax attention and its log-sum-exp, what merging two key sets needs. q: [B, h, q, d];
    k, v: [B, h, k, d]; bias: [B, 1, q, k], 0 or -inf, or None. Returns [B, h, q, d], [B, h, q]."""
    if q.device.type == "cpu":   # fused: never holds the [q, k] scores
        return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=bias, scale=scaling)
    return _plain_attention_with_lse(q, k, v, bias, scaling)


def _plain_attention_with_lse(q, k, v, bias, scaling):
    scores = (q @ k.transpose(-1, -2)) * scaling                                  # [B, h, q, k]
    if bias is not None:
        scores = scores + bias
    lse = scores.logsumexp(dim=-1)                                                # [B, h, q]
    return (scores - lse[..., None]).exp() @ v, lse


def _attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    rows = kwargs.pop(_ROWS, None)
    if rows is None:   # another caller's forward while ours is switched on: the usual attention
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs)
    return rows.attend(module.layer_idx, query, key, value, scaling), None


AttentionInterface.register(ATTENTION, _attention)


@contextmanager
def _switched(model):
    config = model.config
    before = config._attn_implementation
    config._attn_implementation = ATTENTION
    try:
        yield
    finally:
        config._attn_implementation = before
