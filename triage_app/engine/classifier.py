"""A run: tickets in, one Prediction per ticket out, statistics after every batch."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import astuple, dataclass, replace

import torch

from triage_app.engine.batches import Bucket, plan_buckets
from triage_app.engine.config import (DEFAULT_MAX_TICKET_TOKENS, METHOD_FACTS, METHOD_LIMIT, RunConfig, Scoring,
                                      check_ticket_limit, own_ticket_tokens)
from triage_app.engine.forward import decoder_of
from triage_app.engine.labels import LabelSet
from triage_app.engine.methods.base import ScoringMethod
from triage_app.engine.methods.registry import method_class
from triage_app.engine.models import LoadedModel
from triage_app.engine.prediction import Prediction
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.prompt import EncodedTicket, PromptPrefix, PromptStyle, clean, truncate
from triage_app.engine.scoring import CONTENT_FREE, decide, prior
from triage_app.engine.stats import RunStats

__all__ = ["BatchDone", "Classifier", "LabelScores", "Prediction", "RunConfig"]   # RunConfig lives in engine/config.py


@dataclass(slots=True)
class BatchDone:
    predictions: list[Prediction]
    stats: RunStats
    token_logprobs: torch.Tensor | None = None  # [B, L, D] behind the predictions' scores (None: blanks)


@dataclass(slots=True)
class LabelScores:
    """Some labels' token log-probs for a batch of tickets, before any normalisation (Classifier.score)."""

    tickets: list[EncodedTicket]   # index: the ticket's place in the texts given; truncated; uses_prefix
    token_logprobs: torch.Tensor   # [B, L', D]: the labels asked for, in their order
    stats: RunStats


class Classifier:
    """One model and one label set; runs any number of ticket lists."""

    def __init__(self, loaded: LoadedModel, label_set: LabelSet, style: PromptStyle = PromptStyle(),
                 max_ticket_tokens: int | str | None = DEFAULT_MAX_TICKET_TOKENS, scoring: Scoring = Scoring()):
        """max_ticket_tokens: as RunSettings takes it; METHOD_LIMIT: the method's own (own_ticket_tokens)."""
        self.loaded = loaded
        self.label_set = label_set
        self.scoring = scoring
        check_ticket_limit(max_ticket_tokens)
        self.max_ticket_tokens = max_ticket_tokens   # as asked: with_limit builds from it
        limit = own_ticket_tokens(scoring.method) if max_ticket_tokens == METHOD_LIMIT else max_ticket_tokens
        # direct's prompt, built for every method: the fingerprint names it, as it always did
        self.prompt = PromptPrefix(loaded.tokenizer, label_set, style, loaded.context_tokens, limit)
        self.method: ScoringMethod = method_class(scoring.method)(loaded, self.prompt, limit, scoring)
        self._prefixes: dict[tuple[int, ...], PrefixCache] = {}   # by the prompt's token ids
        # by the run config: every run() and eval's score() ask again, and a prompt never changes
        self._content_free: dict[tuple, torch.Tensor] = {}

    @property
    def model(self):
        return self.loaded.model

    @property
    def width_step(self) -> int:
        return self.loaded.placement.width_step

    @property
    def fingerprint(self) -> str:
        """Changes whenever anything that decides a ticket's scores changes, besides model and dtype.

        The results store keys on it: the same strings as ever, or existing databases stop resuming
        (tests/test_fingerprints.py pins them)."""
        seen = [self.prompt.text, self.prompt.tail, self.prompt.label_ids, self.label_set.names,
                self.prompt.max_ticket_tokens, self.scoring.length, self.scoring.calibrate, self.scoring.temperature]
        seen += self.method.fingerprint_parts()
        return _digest(seen)

    @property
    def label_fingerprints(self) -> list[str] | None:
        """Per label, a fingerprint of everything besides model and dtype that decides its token log-probs,
        for a method that scores each label on its own prompt (engine/methods/base.py's PerLabelMethod); None
        where one label's score depends on the whole set (direct)."""
        parts = self.method.label_parts()
        return None if parts is None else [_digest(p) for p in parts]

    @property
    def ticket_limit(self) -> int:
        """The most tokens of a ticket the method reads: the limit asked for, or less where the context
        leaves less room."""
        return self.method.ticket_limit

    @property
    def flags_cuts(self) -> bool:
        """Whether a ticket cut to the limit is flagged truncated (Prediction.truncated, RunStats.truncated,
        the export). It is, unless the limit is the method's own reading of a ticket's head
        (MethodFacts.ticket_tokens; no limit set, and the context leaves it whole): then every ticket is
        read the same way, by the method's measured choice (docs/quality/channel_tokens.md). A limit a
        person sets, or the context's room, cutting a ticket is what the flag tells them."""
        own = METHOD_FACTS[self.scoring.method].ticket_tokens
        return not (own is not None and self.max_ticket_tokens == METHOD_LIMIT and self.ticket_limit == own)

    def with_limit(self, max_ticket_tokens: int | str | None) -> Classifier:
        """This classifier with another ticket limit, on the same model: for the keys a ticket is stored
        under (run/job.py); itself where the limit is the same."""
        if max_ticket_tokens == self.max_ticket_tokens:
            return self
        return Classifier(self.loaded, self.label_set, self.prompt.style, max_ticket_tokens, self.scoring)

    def cut(self, texts: list[str], limit: int | None = None) -> list[bool]:
        """Which texts a limit cuts (None: this classifier's), as encoding them would; only a text that may be
        longer than the limit is tokenized (prompt.may_exceed), and no prompt is."""
        return truncate(self.loaded.tokenizer, [clean(t) for t in texts], limit or self.ticket_limit)[1]

    def run(self, texts: list[str], config: RunConfig = RunConfig()) -> Iterator[BatchDone]:
        """Classify texts; yields after every batch. Stop iterating to cancel between batches.

        Tickets are tokenised a chunk at a time, just ahead of their batches, so the first labels
        come after one small chunk's work, and only one chunk's token ids are ever held.
        """
        start = time.perf_counter()
        stats = self.new_stats(len(texts))
        blank = [i for i, t in enumerate(texts) if not str(t).strip()]
        if blank:
            stats.done = len(blank)
            yield BatchDone([Prediction(i, self.label_set.names, None) for i in blank], stats)
        keep = [i for i, t in enumerate(texts) if str(t).strip()]
        if not keep:
            return  # nothing to score: no prefix or content-free run either (a fully resumed job)
        if config.prefix_cache and not config.reference:
            self._prefix_caches(self.method, stats)
        log_prior = self.log_prior(self.content_free(config)) if self.scoring.calibrate else None
        for group, token_logprobs in self._scored(self.method, texts, keep, config, stats, start):
            scores = decide(self.scoring, token_logprobs, log_prior)
            yield BatchDone([self._prediction(t, s) for t, s in zip(group, scores)], stats, token_logprobs)

    def score(self, texts: list[str], labels: list[int], config: RunConfig = RunConfig(),
              stats: RunStats | None = None) -> Iterator[LabelScores]:
        """Only these labels' token log-probs (indices into the label set), before any normalisation,
        for a method that scores each label on its own prompt (label_fingerprints is not None): the
        prefix caches and passes of the other labels are never run. texts must not be blank.

        stats: a caller's running statistics, to add this call's work to (several calls, one job)."""
        stats = stats or self.new_stats(len(texts))
        start = time.perf_counter() - stats.seconds   # seconds go on from where an earlier call left them
        method = self.method.only(labels)
        for group, token_logprobs in self._scored(method, texts, list(range(len(texts))), config, stats, start):
            yield LabelScores(group, token_logprobs, stats)

    def probabilities(self, token_logprobs: torch.Tensor, log_prior: torch.Tensor | None = None) -> torch.Tensor:
        """[B, L, D] token log-probs of every label -> [B, L] log-probabilities, as run() gives them."""
        return decide(self.scoring, token_logprobs, log_prior)

    def log_prior(self, content_free: torch.Tensor) -> torch.Tensor:
        """[N, L, D] token log-probs of the content-free tickets -> [L]: the prior calibration divides out."""
        return prior(self.scoring, content_free)

    def new_stats(self, total: int) -> RunStats:
        placement = self.loaded.placement
        return RunStats(total=total, device=placement.device, dtype=placement.dtype_name, model=self.loaded.name)

    def _scored(self, method, texts, keep, config, stats, start):
        """(tickets, token log-probs [B, L', D]) per batch of texts[keep], a chunk tokenised at a time."""
        for n, chunk in enumerate(encode_chunks(keep)):
            tickets = [replace(t, index=chunk[t.index]) for t in method.encode([texts[i] for i in chunk])]
            stats.truncated += sum(t.truncated for t in tickets) if self.flags_cuts else 0
            yield from (self._run_reference(method, tickets, stats, start) if config.reference
                        else self._run_fast(method, tickets, config, stats, start, first=n == 0))

    def content_free(self, config: RunConfig = RunConfig()) -> torch.Tensor:
        """Token log-probs [N, L, D] of tickets that say nothing, run the same way as real ones: once per
        run config."""
        key = astuple(config)
        if key not in self._content_free:
            self._content_free[key] = self._run_content_free(config)
        return self._content_free[key]

    def _run_content_free(self, config: RunConfig) -> torch.Tensor:
        free = self._encode(list(CONTENT_FREE))
        scratch = RunStats(total=len(free))
        run = (self._run_reference(self.method, free, scratch, time.perf_counter()) if config.reference
               else self._run_fast(self.method, free, config, scratch, time.perf_counter()))
        parts = {t.index: lp for group, token_logprobs in run for t, lp in zip(group, token_logprobs)}
        return torch.stack([parts[k] for k in range(len(free))])

    def _encode(self, texts: list[str]) -> list[EncodedTicket]:
        return self.method.encode(texts)

    def _run_reference(self, method, tickets, stats, start):
        stats.count_planned([method.reference_length(t) for t in tickets])
        for t in tickets:
            scored = method.reference(t)
            account(stats, start, rows=1, processed=scored.processed, real=scored.real)
            yield [t], scored.token_logprobs

    def _run_fast(self, method, tickets, config, stats, start, first=False):
        """first: the run's first chunk, whose first batch is kept small."""
        buckets, by_index = self._plan(method, tickets, config, stats, first)
        prefixes = self._prefix_caches(method, stats) if any(b.uses_prefix for b in buckets) else None
        for bucket in buckets:
            group = [by_index[i] for i in bucket.items]
            scored = method.fast_batch(group, bucket, prefixes if bucket.uses_prefix else None, config)
            account(stats, start, rows=len(group), processed=scored.processed, real=scored.real)
            stats.prefix_tokens_saved += scored.prefix_saved
            yield group, scored.token_logprobs

    def _plan(self, method, tickets, config, stats, first) -> tuple[list[Bucket], dict]:
        """Length buckets of the tickets that run after the prefix cache, then of those that run whole."""
        cached = [t for t in tickets if config.prefix_cache and t.uses_prefix]
        full = [t for t in tickets if not (config.prefix_cache and t.uses_prefix)]
        stats.fallbacks += len(full) if config.prefix_cache else 0
        lengths = {t.index: len(t.suffix_ids) for t in cached} | {t.index: method.full_length(t) for t in full}
        stats.count_planned(list(lengths.values()))
        # the first batch's rows x width bounds all its passes together (channel: one per label)
        first_budget = (min(FIRST_BATCH_TOKENS // len(method.prefix_ids), config.token_budget)
                        if first and config.token_budget else None)
        buckets = []
        for group, uses in ((cached, True), (full, False)):
            if group:
                buckets += plan_buckets([t.index for t in group], [lengths[t.index] for t in group], uses_prefix=uses,
                                        sort=config.buckets, max_rows=config.batch_size,
                                        token_budget=config.token_budget, width_step=self.width_step,
                                        first_budget=None if buckets else first_budget)
        return buckets, {t.index: t for t in tickets}

    def _prefix_caches(self, method, stats: RunStats) -> list[PrefixCache]:
        """The method's prefix caches; those not built yet are built together, in one forward."""
        # read-only once built (batches read them, never write them), so every run of this classifier
        # shares them, whichever labels it scores
        wanted = [tuple(ids) for ids in method.prefix_ids]
        new = [ids for ids in dict.fromkeys(wanted) if ids not in self._prefixes]
        if new:
            built = PrefixCache.many(decoder_of(self.model), [list(ids) for ids in new], self.loaded.placement.device)
            self._prefixes.update(zip(new, built))
            stats.tokens_processed += sum(map(len, new))
        caches = [self._prefixes[ids] for ids in wanted]
        stats.prefix_tokens = sum(p.length for p in caches)
        return caches

    def _prediction(self, ticket: EncodedTicket, scores: torch.Tensor) -> Prediction:
        return Prediction(ticket.index, self.label_set.names, scores.tolist(), ticket.truncated and self.flags_cuts,
                          not ticket.uses_prefix)


# Tickets tokenised and planned together: the first chunk small, for an early first result;
# later ones larger, for buckets of similar lengths (docs/bench/first_result.txt).
FIRST_CHUNK, LARGEST_CHUNK = 64, 4096
# The run's first batch, rows x width summed over its passes (channel scores each row once per
# label): the first chunk's shortest ticket or few, so the first labels wait for little model work.
FIRST_BATCH_TOKENS = 128


def encode_chunks(items: list[int]) -> Iterator[list[int]]:
    """items in chunks of FIRST_CHUNK, doubling up to LARGEST_CHUNK."""
    size, lo = FIRST_CHUNK, 0
    while lo < len(items):
        yield items[lo : lo + size]
        lo, size = lo + size, min(2 * size, LARGEST_CHUNK)


def _digest(parts: list) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def account(stats: RunStats, start: float, rows: int, processed: int, real: int) -> None:
    stats.done += rows
    stats.batches += 1
    stats.tokens_processed += processed
    stats.real_tokens += real
    stats.padding_tokens += processed - real
    stats.seconds = time.perf_counter() - start
