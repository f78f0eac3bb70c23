"""Each label's raw scores, kept under that label's own key: the part of a result an edit leaves alone.

With channel scoring a label's token log-probs depend on its own prompt alone, so they are stored one
label per row (labels [name], scores: its D token log-probs) under a key that names that prompt
(job.label_keys). The probabilities a user sees are normalised over the whole set and calibrated by
its prior: they are decided again from these on every run, never stored. The content-free tickets
calibration reads are texts like any other, kept the same way, so a new label costs them once too.

A text the run's ticket limit does not cut reads the same tokens under any limit that does not cut it, so
its scores are kept under one key whatever the limit (LabelKeys.whole): a run at another limit finds them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from triage_app.engine.classifier import LabelScores
from triage_app.files.store import ResultStore, RunKey, StoredResult


@dataclass(frozen=True, slots=True)
class LabelKeys:
    """Per label, the keys its raw scores are kept under (job.label_keys_of): `cut`, naming the run's limit,
    for a text it cuts; `whole`, naming the limit results were stored under before methods had limits of
    their own (DEFAULT_MAX_TICKET_TOKENS), for a text neither limit cuts, which reads the same tokens under
    both. The same keys where the run's limit is that one."""

    cut: list[RunKey]
    whole: list[RunKey]
    read_whole: frozenset[str]   # the texts (hashes) neither limit cuts

    def of(self, h: str) -> list[RunKey]:
        return self.whole if h in self.read_whole else self.cut

    def found(self, store: ResultStore, k: int, hashes: list[str]) -> dict[str, StoredResult]:
        """Label k's stored scores of these texts: any text's under the run's limit (a text it does not
        cut reads the same tokens there), and a whole text's under `whole` besides."""
        found = store.lookup(self.cut[k], hashes)
        if self.whole[k] != self.cut[k]:
            found |= store.lookup(self.whole[k], [h for h in hashes if h in self.read_whole and h not in found])
        return found


class RawScores:
    """Per label, {text hash: StoredResult} as stored under the label's keys, plus what this run scored."""

    def __init__(self, names: list[str], keys: LabelKeys, store: ResultStore | None, hashes: list[str],
                 fresh: bool = False):
        self.names, self.keys, self.store = names, keys, store
        self.known = [{} if fresh or store is None else keys.found(store, k, hashes) for k in range(len(names))]

    def missing(self, h: str) -> tuple[int, ...]:
        return tuple(k for k, known in enumerate(self.known) if h not in known)

    def groups(self, hashes: list[str]) -> dict[tuple[int, ...], list[str]]:
        """The texts that miss any label, by the labels they miss: each group runs those labels alone
        (a fresh run is one group of every label, an added label one group of that label)."""
        out: dict[tuple[int, ...], list[str]] = {}
        for h in hashes:
            if missing := self.missing(h):
                out.setdefault(missing, []).append(h)
        return out

    def add(self, hashes: list[str], labels: tuple[int, ...], scored: LabelScores) -> None:
        """A batch's scores of these labels (hashes[b]: scored.tickets[b]'s text): kept, and saved
        under each label's key, in one transaction."""
        values = scored.token_logprobs.tolist()   # [B, L', D]
        saved = []
        for j, k in enumerate(labels):
            rows = {h: StoredResult([self.names[k]], values[b][j], t.truncated, not t.uses_prefix)
                    for b, (h, t) in enumerate(zip(hashes, scored.tickets, strict=True))}
            self.known[k].update(rows)
            for key in {self.keys.cut[k], self.keys.whole[k]}:
                saved.append((key, {h: r for h, r in rows.items() if self.keys.of(h)[k] == key}))
        if self.store is not None:
            self.store.save_many(saved)

    def token_logprobs(self, hashes: list[str]) -> torch.Tensor:
        """[B, L, D]: every label's stored token log-probs, NaN past a label's end as the engine gives them."""
        rows = [[known[h].scores for known in self.known] for h in hashes]
        D = max((len(s) for r in rows for s in r), default=1)
        return torch.tensor([[s + [math.nan] * (D - len(s)) for s in r] for r in rows]).view(len(rows), len(self.known), D)

    def results(self, hashes: list[str], scores: torch.Tensor, flag_cuts: bool = True) -> dict[str, StoredResult]:
        """The texts' answers from their decided scores [B, L]: truncated as any label's row says (a
        text's keys agree on whether it is cut), where cuts are flagged at all (Classifier.flags_cuts); a
        fallback if any label ran on its full prompt."""
        return {h: StoredResult(self.names, s, flag_cuts and any(k[h].truncated for k in self.known),
                                any(k[h].fallback for k in self.known))
                for h, s in zip(hashes, scores.tolist(), strict=True)}
