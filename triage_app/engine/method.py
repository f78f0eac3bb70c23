"""What a scoring method is, for the Classifier that runs it: how a ticket is encoded, which prompt
prefixes it caches, how it scores a batch fast, and its reference, the slow definition of right.

Direct (engine/direct.py) and channel (engine/channel.py) are the two; the Classifier runs either
with one fast loop and one reference loop. A new method is a new file with a class like theirs and
one line in engine/config.py's METHOD_CLASSES. Its constructor takes (loaded model, the direct
prompt built for the label set, max_ticket_tokens, Scoring), as theirs do.

A method whose every label is scored on a prompt of its own (channel) is also a PerLabelMethod: its
raw scores are kept per label (job.py), so an edit to the label set re-scores only what it changed.
Direct reads every label in one prompt, so one label's score depends on the whole set: it is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch

from triage_app.engine.batches import Bucket
from triage_app.engine.config import RunConfig
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.prompt import EncodedTicket


@dataclass(frozen=True, slots=True)
class ScoredBatch:
    token_logprobs: torch.Tensor   # [B, L, D], NaN past a label's end
    processed: int                 # tokens through the model, padding included
    real: int                      # of those, real ones
    prefix_saved: int = 0          # prompt tokens the prefix caches spared this batch


class ScoringMethod(Protocol):
    @property
    def prefix_ids(self) -> list[list[int]]:
        """The static prompts every ticket follows: one KV cache each, built once per classifier."""

    def encode(self, texts: list[str]) -> list[EncodedTicket]:
        """Tickets as token ids, truncated, each cut after the prefixes checked."""

    def full_length(self, ticket: EncodedTicket) -> int:
        """The widest row a ticket makes on its full prompt(s), to plan batches by."""

    def reference_length(self, ticket: EncodedTicket) -> int:
        """The row the reference plans for a ticket (RunStats.count_planned)."""

    def fast_batch(self, tickets: list[EncodedTicket], bucket: Bucket, prefixes: list[PrefixCache] | None,
                   config: RunConfig) -> ScoredBatch:
        """One planned bucket; prefixes None: the tickets run on their full prompts."""

    def reference(self, ticket: EncodedTicket) -> ScoredBatch:
        """One ticket, no cache, no padding, the model's own head: [1, L, D]."""

    def fingerprint_parts(self) -> list:
        """What this method adds to Classifier.fingerprint (JSON-able; existing values must never change)."""


class PerLabelMethod(ScoringMethod, Protocol):
    """A method whose label scores depend each on that label's own prompt alone (the Classifier tells
    one by its label_parts: a method without it scores the set as a whole)."""

    def only(self, labels: list[int]) -> PerLabelMethod:
        """The same method scoring only these labels (indices into the label set, in that order)."""

    def label_parts(self) -> list[list]:
        """Per label, everything besides the ticket, the model and the cleaning that decides its token
        log-probs (JSON-able): a label whose parts are unchanged keeps its stored scores."""
