"""A run: tickets in, one Prediction per ticket out, statistics after every batch."""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import torch

from triage_app.engine.batches import Bucket, padded_width, plan_buckets
from triage_app.engine.channel import (ChannelPrompt, ChannelTicket, score_channel_batch, score_channel_full_batch,
                                      score_channel_reference)
from triage_app.engine.labels import LabelSet
from triage_app.engine.models import LoadedModel
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.prompt import EncodedTicket, PromptPrefix, PromptStyle
from triage_app.engine.scorer import LabelTree, decoder_of, score_batch, score_reference
from triage_app.engine.scoring import CONTENT_FREE, Scoring
from triage_app.engine.stats import RunStats


@dataclass(slots=True)
class RunConfig:
    """Which optimizations a run uses; each can be switched off alone."""

    prefix_cache: bool = True
    buckets: bool = True
    full_head: bool = False
    reference: bool = False      # the slow loop that defines the right answer; ignores the rest
    batch_size: int = 32         # most rows in one batch
    token_budget: int | None = 1024  # most rows x width in one batch (None: rows alone decide)

    def __post_init__(self):
        if self.batch_size < 1:
            raise ValueError(f"batch size must be at least 1, not {self.batch_size}")
        if self.token_budget is not None and self.token_budget < 1:
            raise ValueError(f"token budget must be positive, not {self.token_budget}")


@dataclass(slots=True)
class Prediction:
    index: int
    labels: list[str]
    scores: list[float] | None   # log-probability of each label, normalised over the labels (after scoring)
    truncated: bool = False
    fallback: bool = False       # the prefix cut was not token-clean: ran on the full prompt

    @property
    def is_blank(self) -> bool:
        return self.scores is None

    @property
    def probabilities(self) -> list[float]:
        return [math.exp(s) for s in self.scores] if self.scores else []

    @property
    def label(self) -> str | None:
        return self.labels[max(range(len(self.labels)), key=self.scores.__getitem__)] if self.scores else None

    @property
    def confidence(self) -> float | None:
        return max(self.probabilities) if self.scores else None

    @property
    def margin(self) -> float | None:
        """Top-1 minus top-2 probability."""
        if not self.scores:
            return None
        top = sorted(self.probabilities, reverse=True)
        return top[0] - top[1]

    @property
    def log_margin(self) -> float | None:
        """Top-1 minus top-2 log-probability: how far the decision is from a tie."""
        if not self.scores:
            return None
        top = sorted(self.scores, reverse=True)
        return top[0] - top[1]


@dataclass(slots=True)
class BatchDone:
    predictions: list[Prediction]
    stats: RunStats
    token_logprobs: torch.Tensor | None = None  # [B, L, D] behind the predictions' scores (None: blanks)


class Classifier:
    """One model and one label set; runs any number of ticket lists."""

    def __init__(self, loaded: LoadedModel, label_set: LabelSet, style: PromptStyle = PromptStyle(),
                 max_ticket_tokens: int | None = 1024, scoring: Scoring = Scoring()):
        self.loaded = loaded
        self.label_set = label_set
        self.scoring = scoring
        self.prompt = PromptPrefix(loaded.tokenizer, label_set, style, loaded.context_tokens, max_ticket_tokens)
        self.tree = LabelTree.build(self.prompt.label_ids)
        # channel scoring reads the ticket after each label's own prompt (engine/channel.py)
        self.channel = (ChannelPrompt(loaded.tokenizer, label_set, loaded.context_tokens, max_ticket_tokens)
                        if scoring.method == "channel" else None)
        self._prefix: PrefixCache | None = None
        self._label_prefixes: list[PrefixCache] | None = None
        firsts = [ids[0] for ids in self.prompt.label_ids]
        if scoring.length == "first" and not self.channel and len(set(firsts)) < len(firsts):
            raise ValueError("two labels start with the same token: scoring by the first token cannot tell them apart")

    @property
    def model(self):
        return self.loaded.model

    @property
    def width_step(self) -> int:
        return self.loaded.placement.width_step

    @property
    def fingerprint(self) -> str:
        """Changes whenever anything that decides a ticket's scores changes, besides model and dtype."""
        seen = [self.prompt.text, self.prompt.tail, self.prompt.label_ids, self.label_set.names,
                self.prompt.max_ticket_tokens, self.scoring.length, self.scoring.calibrate, self.scoring.temperature]
        if self.channel:
            seen += ["channel", self.channel.texts, self.channel.max_ticket_tokens]
        return hashlib.sha256(json.dumps(seen).encode()).hexdigest()[:16]

    def run(self, texts: list[str], config: RunConfig = RunConfig()) -> Iterator[BatchDone]:
        """Classify texts; yields after every batch. Stop iterating to cancel between batches.

        Tickets are tokenised a chunk at a time, just ahead of their batches, so the first labels
        come after one small chunk's work, and only one chunk's token ids are ever held.
        """
        start = time.perf_counter()
        stats = RunStats(total=len(texts), device=self.loaded.placement.device,
                         dtype=self.loaded.placement.dtype_name, model=self.loaded.name)
        blank = [i for i, t in enumerate(texts) if not str(t).strip()]
        if blank:
            stats.done = len(blank)
            yield BatchDone([Prediction(i, self.label_set.names, None) for i in blank], stats)
        keep = [i for i, t in enumerate(texts) if str(t).strip()]
        if not keep:
            return  # nothing to score: no prefix or content-free run either (a fully resumed job)
        if config.prefix_cache and not config.reference and self.channel:
            self._label_caches(stats)
        elif config.prefix_cache and not config.reference:
            self._prefix_cache(stats)
        log_prior = self.scoring.prior(self.content_free(config)) if self.scoring.calibrate else None
        for n, chunk in enumerate(encode_chunks(keep)):
            tickets = [replace(t, index=chunk[t.index]) for t in self._encode([texts[i] for i in chunk])]
            stats.truncated += sum(t.truncated for t in tickets)
            scored = (self._run_reference(tickets, stats, start) if config.reference
                      else self._run_fast(tickets, config, stats, start, first=n == 0))
            for group, token_logprobs in scored:
                scores = self.scoring.decide(token_logprobs, log_prior)
                yield BatchDone([self._prediction(t, s) for t, s in zip(group, scores)], stats, token_logprobs)

    def content_free(self, config: RunConfig = RunConfig()) -> torch.Tensor:
        """Token log-probs [N, L, D] of tickets that say nothing, run the same way as real ones."""
        free = self._encode(list(CONTENT_FREE))
        scratch = RunStats(total=len(free))
        run = (self._run_reference(free, scratch, time.perf_counter()) if config.reference
               else self._run_fast(free, config, scratch, time.perf_counter()))
        parts = {t.index: lp for group, token_logprobs in run for t, lp in zip(group, token_logprobs)}
        return torch.stack([parts[k] for k in range(len(free))])

    def _encode(self, texts: list[str]) -> list[EncodedTicket] | list[ChannelTicket]:
        return (self.channel or self.prompt).encode(texts)

    def _run_reference(self, tickets, stats, start):
        stats.count_planned([len(t.full_ids[0] if self.channel else t.full_ids) for t in tickets])
        if self.channel:
            yield from self._channel_reference(tickets, stats, start)
            return
        for t in tickets:
            token_logprobs = score_reference(self.model, t.full_ids, self.tree)
            n = len(t.full_ids) + max(map(len, self.tree.leaf_paths()))
            _account(stats, start, rows=1, processed=n, real=n)
            yield [t], token_logprobs

    def _channel_reference(self, tickets, stats, start):
        starts = [len(ids) for ids in self.channel.ids]
        for t in tickets:
            n = sum(map(len, t.full_ids))
            token_logprobs = score_channel_reference(self.model, t, starts)
            _account(stats, start, rows=1, processed=n, real=n)
            yield [t], token_logprobs

    def _run_fast(self, tickets, config, stats, start, first=False):
        """first: the run's first chunk, whose first batch is kept small."""
        if self.channel:
            yield from self._channel_fast(tickets, config, stats, start, first)
            return
        buckets, by_index = self._plan(tickets, config, stats, lambda t: len(t.full_ids), first)
        prefix = self._prefix_cache(stats) if any(b.uses_prefix for b in buckets) else None
        for bucket in buckets:
            group = [by_index[i] for i in bucket.items]
            rows = [t.suffix_ids if bucket.uses_prefix else t.full_ids for t in group]
            token_logprobs = score_batch(self.model, rows, self.tree, prefix if bucket.uses_prefix else None,
                                         config.full_head, self.width_step)
            width = bucket.width + self.tree.size
            _account(stats, start, rows=len(rows), processed=len(rows) * width,
                     real=bucket.real_tokens + len(rows) * self.tree.size)
            if bucket.uses_prefix:
                stats.prefix_tokens_saved += prefix.length * len(rows)
            yield group, token_logprobs

    def _channel_fast(self, tickets, config, stats, start, first):
        """Length buckets of ticket tokens, each run against every label's prefix cache in turn.

        A ticket without a clean cut (or every ticket, with the prefix cache off) runs in
        buckets too, as each label's whole prompt.
        """
        buckets, by_index = self._plan(tickets, config, stats, lambda t: max(map(len, t.full_ids)), first)
        prefixes = self._label_caches(stats) if any(b.uses_prefix for b in buckets) else []
        starts = [len(ids) for ids in self.channel.ids]
        for bucket in buckets:
            group = [by_index[i] for i in bucket.items]
            if bucket.uses_prefix:
                token_logprobs = score_channel_batch(self.model, [t.suffix_ids for t in group], prefixes,
                                                     self.width_step)
                processed, real = len(group) * bucket.width * len(starts), bucket.real_tokens * len(starts)
                stats.prefix_tokens_saved += sum(p.length for p in prefixes) * len(group)
            else:
                token_logprobs = score_channel_full_batch(self.model, group, starts, self.width_step)
                rows = [[len(t.full_ids[label]) for t in group] for label in range(len(starts))]
                processed = sum(len(r) * padded_width(max(r), self.width_step) for r in rows)
                real = sum(map(sum, rows))
            _account(stats, start, rows=len(group), processed=processed, real=real)
            yield group, token_logprobs

    def _plan(self, tickets, config, stats, full_length, first) -> tuple[list[Bucket], dict]:
        """Length buckets of the tickets that run after the prefix cache, then of those that run whole.

        full_length: a ticket's width when it runs on its full prompt.
        """
        cached = [t for t in tickets if config.prefix_cache and t.uses_prefix]
        full = [t for t in tickets if not (config.prefix_cache and t.uses_prefix)]
        stats.fallbacks += len(full) if config.prefix_cache else 0
        lengths = {t.index: len(t.suffix_ids) for t in cached} | {t.index: full_length(t) for t in full}
        stats.count_planned(list(lengths.values()))
        first_budget = min(FIRST_BATCH_TOKENS, config.token_budget) if first and config.token_budget else None
        buckets = []
        for group, uses in ((cached, True), (full, False)):
            if group:
                buckets += plan_buckets([t.index for t in group], [lengths[t.index] for t in group], uses_prefix=uses,
                                        sort=config.buckets, max_rows=config.batch_size,
                                        token_budget=config.token_budget, width_step=self.width_step,
                                        first_budget=None if buckets else first_budget)
        return buckets, {t.index: t for t in tickets}

    def _label_caches(self, stats: RunStats) -> list[PrefixCache]:
        if self._label_prefixes is None:
            self._label_prefixes = [PrefixCache(decoder_of(self.model), ids, self.loaded.placement.device)
                                    for ids in self.channel.ids]
            stats.tokens_processed += sum(p.length for p in self._label_prefixes)
        stats.prefix_tokens = sum(p.length for p in self._label_prefixes)
        return self._label_prefixes

    def _prefix_cache(self, stats: RunStats) -> PrefixCache:
        # read-only once built (batches expand it as views), so every run of this classifier shares it
        if self._prefix is None:
            self._prefix = PrefixCache(decoder_of(self.model), self.prompt.ids, self.loaded.placement.device)
            stats.tokens_processed += self._prefix.length
        stats.prefix_tokens = self._prefix.length
        return self._prefix

    def _prediction(self, ticket: EncodedTicket | ChannelTicket, scores: torch.Tensor) -> Prediction:
        return Prediction(ticket.index, self.label_set.names, scores.tolist(), ticket.truncated,
                          not ticket.uses_prefix)


# Tickets tokenised and planned together: the first chunk small, for an early first result;
# later ones larger, for buckets of similar lengths (docs/bench/first_result.txt).
FIRST_CHUNK, LARGEST_CHUNK = 256, 4096
# The run's first batch, rows x width: a few of the first chunk's shortest tickets, so the first
# labels wait for one small forward (channel runs it once per label).
FIRST_BATCH_TOKENS = 128


def encode_chunks(items: list[int]) -> Iterator[list[int]]:
    """items in chunks of FIRST_CHUNK, doubling up to LARGEST_CHUNK."""
    size, lo = FIRST_CHUNK, 0
    while lo < len(items):
        yield items[lo : lo + size]
        lo, size = lo + size, min(2 * size, LARGEST_CHUNK)


def _account(stats: RunStats, start: float, rows: int, processed: int, real: int) -> None:
    stats.done += rows
    stats.batches += 1
    stats.tokens_processed += processed
    stats.real_tokens += real
    stats.padding_tokens += processed - real
    stats.seconds = time.perf_counter() - start
