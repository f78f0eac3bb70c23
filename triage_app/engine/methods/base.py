"""What a scoring method is, for the Classifier that runs it: how a ticket is encoded, which prompt
prefixes it caches, how it scores a batch fast, and its reference, the slow definition of right.

Direct (engine/methods/direct.py) and channel (engine/methods/channel.py) are the two; the Classifier runs either
with one fast loop and one reference loop. A new method is a new file with a class like theirs, one
line in engine/methods/registry.py and its torch-free facts in engine/config.py's METHOD_FACTS. Its
constructor takes (loaded model, the direct prompt built for the label set, max_ticket_tokens,
Scoring), as theirs do; the limit is a number of tokens or None (the context's room), the method's
own already resolved (engine/config.py's own_ticket_tokens). Whatever the rest of the app asks of a
method, it asks the method (its tolerance, its prompt preview, its prefixes, whether its labels are
scored alone), never its name.

A method whose every label is scored on a prompt of its own (channel) is also a PerLabelMethod: its
raw scores are kept per label (run/job.py), so an edit to the label set re-scores only what it changed.
Direct reads every label in one prompt, so one label's score depends on the whole set: it is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch

from triage_app.engine.batches import Bucket
from triage_app.engine.config import RunConfig, is_checked
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.prompt import EncodedTicket


@dataclass(frozen=True, slots=True)
class ScoredBatch:
    token_logprobs: torch.Tensor   # [B, L, D], NaN past a label's end
    processed: int                 # tokens through the model, padding included
    real: int                      # of those, real ones
    prefix_saved: int = 0          # prompt tokens the prefix caches spared this batch


def method_tolerance(table: dict[str, float], dtype: str) -> float:
    """A method's TOLERANCE in a dtype. A checked dtype's is float32's: its labels are float32's, and its
    float32 model scores the rest."""
    return table.get("float32" if is_checked(dtype) else dtype, 0.5)


class ScoringMethod(Protocol):
    TOLERANCE: dict[str, float]    # per dtype: the largest score difference from the reference rounding gives
    @property
    def ticket_limit(self) -> int:
        """The most tokens of a ticket this method reads: the limit it was given, or less where its
        prompt leaves less of the model's context."""

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

    def label_parts(self) -> list[list] | None:
        """Per label, what decides its scores besides the ticket (PerLabelMethod); None where one
        label's score depends on the whole set."""

    def preview(self) -> dict:
        """What Show prompt shows: prefix, tail, prefix_tokens, label_tokens, warnings, channel_label."""


class PerLabelMethod(ScoringMethod, Protocol):
    """A method whose label scores depend each on that label's own prompt alone (its label_parts is
    not None): it can score some labels alone."""

    def only(self, labels: list[int]) -> PerLabelMethod:
        """The same method scoring only these labels (indices into the label set, in that order)."""

    def label_parts(self) -> list[list]:
        """Per label, everything besides the ticket, the model and the cleaning that decides its token
        log-probs (JSON-able): a label whose parts are unchanged keeps its stored scores."""
