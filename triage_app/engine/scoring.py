"""From label-token log-probs to the probabilities a user sees.

Four choices, each measured by `triage-app eval` (the numbers: docs/quality/README.md), held by a
Scoring (engine/config.py):
- method: channel (the ticket's tokens after each label, engine/methods/channel.py; one log-prob per
  label, D = 1; the default: far more accurate with small models, one pass per label) or direct
  (the label's tokens after the ticket, engine/methods/direct.py; one pass in all);
- length: how a multi-token label's token log-probs combine (sum = the label's exact
  log-probability; mean = per token; first = its first token only);
- calibrate: contextual calibration (Zhao et al., 2021). A small model has a prior for some
  labels whatever the ticket says; it is measured once per run on content-free tickets through
  the same prompt, and divided out;
- temperature: spreads or sharpens the probabilities so that a confidence of 0.7 is right
  about 70% of the time (fitted on a gold column by `eval`).
The same function turns the fast path's and the reference's token log-probs into scores, so the
engine's law (fast == reference) carries over to every choice.
"""

from __future__ import annotations

import torch

from triage_app.engine.config import Scoring

# Tickets that say nothing: what the model answers for them is its prior over the labels.
CONTENT_FREE = ("N/A", "[empty]", "...")


def combine(scoring: Scoring, token_logprobs: torch.Tensor) -> torch.Tensor:
    """[B, L, D] token log-probs (NaN past a label's end) -> [B, L] label log-scores."""
    if scoring.length == "first":
        return token_logprobs[:, :, 0]
    total = token_logprobs.nan_to_num(0.0).sum(dim=2)
    if scoring.length == "mean":
        return total / (~token_logprobs.isnan()).sum(dim=2)
    return total


def prior(scoring: Scoring, content_free: torch.Tensor) -> torch.Tensor:
    """[N, L, D] token log-probs of the content-free tickets -> [L] log prior over the labels."""
    probs = normalise(combine(scoring, content_free)).exp().mean(dim=0)
    return probs.log()


def decide(scoring: Scoring, token_logprobs: torch.Tensor, log_prior: torch.Tensor | None) -> torch.Tensor:
    """[B, L, D] -> [B, L] log-probabilities over the labels, as shown to the user."""
    scores = normalise(combine(scoring, token_logprobs))
    if scoring.calibrate and log_prior is not None:
        scores = scores - log_prior
    return normalise(scores / scoring.temperature)


def normalise(scores: torch.Tensor) -> torch.Tensor:
    return scores - torch.logsumexp(scores, dim=-1, keepdim=True)
