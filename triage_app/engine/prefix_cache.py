"""The prompt prefix's KV cache: computed once per run, shared read-only by every batch."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer


class PrefixCache:
    def __init__(self, decoder: torch.nn.Module, ids: list[int], device: str):
        with torch.inference_mode():
            out = decoder(input_ids=torch.tensor([ids], device=device), use_cache=True)
        # layers: [(keys, values)], each [1, kv_heads, P, head_dim]
        self._keep(decoder, [(k, v) for k, v, *_ in out.cache], out.last_hidden_state[:, -1], len(ids))

    def _keep(self, decoder, layers, last_hidden, length):
        self.layers = layers
        self.last_hidden = last_hidden   # [1, H]: predicts the first suffix token
        self.length = length
        self._config = decoder.config

    @classmethod
    def many(cls, decoder: torch.nn.Module, prompts: list[list[int]], device: str) -> list[PrefixCache]:
        """One cache per prompt, from one forward: every pass over the weights costs the first labels
        time (channel has a prompt per label). Rows are right-padded: causal attention keeps each
        prompt's own positions from ever seeing the padding after them."""
        if len(prompts) == 1:
            return [cls(decoder, prompts[0], device)]
        width = max(map(len, prompts))
        ids = torch.tensor([p + [0] * (width - len(p)) for p in prompts], device=device)   # [N, P]
        with torch.inference_mode():
            out = decoder(input_ids=ids, use_cache=True)
        layers = [(k, v) for k, v, *_ in out.cache]                                       # [N, kv_heads, P, head_dim]
        caches = []
        for n, prompt in enumerate(prompts):
            cache, P = cls.__new__(cls), len(prompt)
            cache._keep(decoder, [(k[n : n + 1, :, :P].clone(), v[n : n + 1, :, :P].clone()) for k, v in layers],
                        out.last_hidden_state[n : n + 1, P - 1], P)
            caches.append(cache)
        return caches

    def expand(self, batch: int) -> DynamicCache:
        """A fresh cache whose layers are batch-sized views of the prefix (no copy).

        The model's forward concatenates new keys onto these views into new tensors, so the
        prefix itself is never written: nothing to crop or restore after a batch.
        """
        return _cache_of(self._config, [(k.expand(batch, -1, -1, -1), v.expand(batch, -1, -1, -1))
                                        for k, v in self.layers])

    def checksum(self) -> float:
        """A cheap fingerprint of every prefix tensor, to prove batches leave it unchanged."""
        return float(sum(k.double().sum() + v.double().abs().sum() for k, v in self.layers))


def stacked(prefixes: list[PrefixCache], batch: int) -> DynamicCache:
    """Every prefix's cache, each repeated batch times, in one batch of len(prefixes) * batch rows:
    row i * batch + b follows prefixes[i]. Shorter prefixes are right-padded with zeros to the
    longest; a query must not see those slots (the caller's mask keeps them out)."""
    width = max(p.length for p in prefixes)

    def rows(tensors):   # [1, kv_heads, P_i, head_dim] each -> [N * batch, kv_heads, width, head_dim]
        padded = torch.cat([F.pad(t, (0, 0, 0, width - t.shape[2])) for t in tensors])
        return padded.repeat_interleave(batch, dim=0)

    layers = [(rows([p.layers[n][0] for p in prefixes]), rows([p.layers[n][1] for p in prefixes]))
              for n in range(len(prefixes[0].layers))]
    return _cache_of(prefixes[0]._config, layers)


def _cache_of(config, layers) -> DynamicCache:
    cache = DynamicCache(config=config)
    for layer, (k, v) in zip(cache.layers, layers, strict=True):
        if type(layer) is not DynamicLayer:
            raise NotImplementedError(f"prefix caching does not support {type(layer).__name__} layers")
        layer.lazy_initialization(k, v)
        layer.keys, layer.values = k, v
    return cache
