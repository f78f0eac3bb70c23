"""The prompt prefix's KV cache: computed once per run, shared read-only by every batch."""

from __future__ import annotations

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer


class PrefixCache:
    def __init__(self, decoder: torch.nn.Module, ids: list[int], device: str):
        with torch.inference_mode():
            out = decoder(input_ids=torch.tensor([ids], device=device), use_cache=True)
        # layers: [(keys, values)], each [1, kv_heads, P, head_dim]
        self.layers = [(k, v) for k, v, *_ in out.cache]
        self.last_hidden = out.last_hidden_state[:, -1]   # [1, H]: predicts the first suffix token
        self.length = len(ids)
        self._config = decoder.config

    def expand(self, batch: int) -> DynamicCache:
        """A fresh cache whose layers are batch-sized views of the prefix (no copy).

        The model's forward concatenates new keys onto these views into new tensors, so the
        prefix itself is never written: nothing to crop or restore after a batch.
        """
        cache = DynamicCache(config=self._config)
        for layer, (k, v) in zip(cache.layers, self.layers, strict=True):
            if type(layer) is not DynamicLayer:
                raise NotImplementedError(f"prefix caching does not support {type(layer).__name__} layers")
            layer.lazy_initialization(k, v)
            layer.keys = k.expand(batch, -1, -1, -1)
            layer.values = v.expand(batch, -1, -1, -1)
        return cache

    def checksum(self) -> float:
        """A cheap fingerprint of every prefix tensor, to prove batches leave it unchanged."""
        return float(sum(k.double().sum() + v.double().abs().sum() for k, v in self.layers))
