"""A checked low precision: the fast arithmetic, where the run itself has checked it gives float32's label.

bfloat16 (float16 on Apple GPUs) runs several times faster than float32 where the hardware has it, but
it rounds every layer's output, so scores drift and labels near a tie flip (docs/bench/bfloat16_drift.txt).
A checked run measures that drift on its own tickets: probes spread across the length range run in both
precisions. What flips a label is not one score's drift but the drift of a difference: float32's label
differs from the low precision's top-1 t only if some label j has high_t - high_j <= 0, and then
(low_t - low_j) - (high_t - high_j) >= low_t - low_j >= the top-1/top-2 margin. The scores of one ticket
drift together (they read the same hidden states), so such a difference drifts less than the 2 x one
score's drift that bounds it. Per length range the drift d is the largest of these differences seen on
a probe (its low top-1 against every other label); a low-precision answer whose margin is wider than
factor x d (factor 1.5) has float32's label and is kept; the rest are scored again in float32, batched
and prefix-cached as any run. d is an estimate from the probes, not a proof: the factor is room for
tickets that drift more than any probe did (how much room, measured: docs/bench/checked_precision.txt).
The drift grows with a ticket's length in tokens (a channel score sums a log-prob per ticket token), hence a bound
per length range, never smaller than a shorter range's. Where the probes' timings say the low precision
plus its re-scores would cost as much as float32 alone, the run is float32.

Kept answers carry the low precision's scores (close to float32's, not equal) and the bound their margin
beat (Prediction.drift): a checked run's results are stored under its own dtype name ("bfloat16-checked",
device.Placement.dtype_name), never mixed with float32's. Once a person teaches, the answer is the
learned combination of every label's score, whose margin is not the one checked here: learning names
the rows whose combined margin is inside their drift (learn/model.py, Learned.unsettled), and those are
scored again in float32 (CheckedClassifier.run's exact), float32's own scores, stored with a drift of 0.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from triage_app.engine.classifier import BatchDone, Classifier, Prediction
from triage_app.engine.prediction import stands
from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS, RunConfig, Scoring
from triage_app.engine.device import Placement
from triage_app.engine.labels import LabelSet
from triage_app.engine.models import LoadedModel
from triage_app.engine.prompt import PromptStyle, clean
from triage_app.engine.stats import RunStats


def low_copy(loaded: LoadedModel) -> LoadedModel:
    """The low-precision twin of a model loaded in float32 for a checked placement: weights copied
    and cast, tokenizer shared, except the head, which is the float32 model's own (Float32Head).
    Both are held while the model is loaded."""
    p = loaded.placement
    model = copy.deepcopy(loaded.model).to(p.checked).eval()
    model.set_output_embeddings(Float32Head(loaded.model.get_output_embeddings()))
    placement = Placement(p.device, p.checked, p.reason, p.width_step)
    return replace(loaded, model=model, placement=placement, low=None)


class Float32Head(torch.nn.Module):
    """The float32 model's head on the low precision's last hidden states. Logits rounded to bfloat16
    (about 3 significant digits) widen the drift a checked answer must beat; in float32 they cost little,
    the head running only where labels are scored (how much drift it removes: docs/bench/checked_precision.txt). The weight is shared, not copied, and held as plain tensors, not
    parameters: casting or moving the low copy must never cast the float32 model's own head (with tied
    embeddings, its input embedding too)."""

    def __init__(self, head: torch.nn.Linear):
        super().__init__()
        self.weight = head.weight.detach()                                   # the same storage, unregistered
        self.bias = None if head.bias is None else head.bias.detach()

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.linear(hidden.to(self.weight.dtype), self.weight, self.bias)


@dataclass(frozen=True, slots=True)
class Check:
    """How a checked run probes and decides."""

    probes: int = 12          # at least; one per PROBE_EVERY tickets, up to max_probes
    max_probes: int = 48
    ranges: int = 3           # length ranges, each with its own drift bound
    factor: float = 1.5       # room over the largest difference drift the probes saw
    always: bool = False      # run the low precision whatever the probes' timings (tests: any CPU)

    def __post_init__(self):
        if self.probes < self.ranges or self.ranges < 1:
            raise ValueError(f"a check needs at least one probe per length range: {self.probes} for {self.ranges}")
        if self.factor < MIN_FACTOR:
            raise ValueError(f"a factor under {MIN_FACTOR} leaves no room for tickets drifting more than the "
                             f"probes: {self.factor}")

    def probes_for(self, tickets: int) -> int:
        return min(self.max_probes, max(self.probes, tickets // PROBE_EVERY))


PROBE_EVERY = 25
MIN_FACTOR = 1.5
LENGTH_CHUNK = 1024   # texts tokenized at once to count a run's ticket lengths (CheckedClassifier.lengths)
LOW_BUDGET = 2   # on a CPU, the low precision's token budget, x the run's: its matmuls gain more from
                 # larger batches than float32's (docs/bench/checked_precision.txt); a batch never changes a
                 # label. Not on a GPU, where the budget is the person's memory limit and was not measured.


@dataclass(frozen=True, slots=True)
class Drift:
    """Per length range, the margin a low-precision answer must beat."""

    edges: list[int]      # the most tokens of a ticket in each range but the last
    bounds: list[float]   # [R] factor x the largest difference drift seen up to that range

    def bound(self, lengths: torch.Tensor) -> torch.Tensor:
        """[B] ticket lengths in tokens -> [B] the margin each answer must beat."""
        ranges = torch.bucketize(lengths, torch.tensor(self.edges, dtype=lengths.dtype))  # [B] range of each
        return torch.tensor(self.bounds, dtype=torch.float64)[ranges]                     # [B]


def measure_drift(lengths: torch.Tensor, low: torch.Tensor, high: torch.Tensor, ranges: int,
                  factor: float) -> Drift:
    """lengths [P], low and high [P, L]: the probes' lengths in tokens and scores in each precision."""
    order = lengths.argsort()                                                   # [P] shortest first
    diff = pair_drift(low, high)[order]                                        # [P]
    groups = torch.arange(len(order)).tensor_split(ranges)                     # R x [P/R] probes per range
    # a longer range never trusts a smaller bound: drift grows with length, its few probes could miss it
    worst = torch.stack([diff[g].max() for g in groups]).cummax(dim=0).values  # [R]
    edges = [int(lengths[order[g[-1]]]) for g in groups[:-1]]
    return Drift(edges, (factor * worst).tolist())


def pair_drift(low: torch.Tensor, high: torch.Tensor) -> torch.Tensor:
    """low and high [P, L] -> [P] per ticket, the largest drift of the difference between its
    low-precision top-1 and another label: the differences an answer's label hangs on. A NaN trusts nothing."""
    drift = low - high                                                  # [P, L]
    top = drift.gather(1, low.argmax(dim=1, keepdim=True))              # [P, 1] the low top-1's drift
    return (drift - top).abs().nan_to_num(nan=float("inf")).amax(dim=1)  # [P]


@dataclass(frozen=True, slots=True)
class Weighed:
    """What a ticket's answer is once a person has taught: argmax(lm x scores + extra), the language model's
    log-probs weighed by the learned a, plus the learned part b x P (learn/model.py). The margin that decides
    whether a low-precision answer stands is that answer's: the learned part widens most. Passed to a run by
    whoever learned it (job.run_job), for the texts of that run."""

    lm: float
    extra: np.ndarray      # [N, L] per text of the run, indexed as its texts


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether the low precision pays, from the probes: each ran in both precisions."""

    low_seconds: float       # the probes in the low precision
    float32_seconds: float   # the same probes in float32
    share: float             # of the probes' low answers, those the bound sends back to float32
    forced: bool = False

    @property
    def expected(self) -> float:
        return self.low_seconds + self.share * self.float32_seconds

    @property
    def pays(self) -> bool:
        return self.forced or self.expected < self.float32_seconds

    def line(self, low: str) -> str:
        verdict = (f"{low} (forced)" if self.forced else low) if self.pays else "float32"
        return (f"checked {low}: probes {self.low_seconds:.2f} s in {low}, {self.float32_seconds:.2f} s in float32, "
                f"{100 * self.share:.0f}% would be re-scored: expected {self.expected:.2f} s against "
                f"{self.float32_seconds:.2f} s -> {verdict}")


@dataclass(slots=True)
class CheckedStats(RunStats):
    """A checked run's statistics: the engine's, summed over both precisions, plus the check's own."""

    check: str = ""          # the decision and its numbers
    probes: int = 0          # tickets run in both precisions to measure the drift (answered in float32)
    accepted: int = 0        # answers kept in the low precision
    rescored: int = 0        # low-precision answers sent back to float32: their margin was too narrow
    drift: list[float] = field(default_factory=list)   # per length range, the margin an answer had to beat

    @property
    def rescored_share(self) -> float:
        """Of the answers the low precision gave outside the probes, the share scored again in float32."""
        tried = self.accepted + self.rescored
        return self.rescored / tried if tried else 0.0

    def to_dict(self) -> dict:
        return RunStats.to_dict(self) | {"rescored_share": self.rescored_share}


# the work counters a run adds up, whichever precision did the work
_SUMMED = ("tokens_processed", "real_tokens", "padding_tokens", "prefix_tokens_saved", "batches",
           "rows_planned", "row_tokens_planned")


@dataclass(slots=True)
class Probe:
    """What the probes found: which tickets they were, the drift bound, the decision."""

    indices: list[int]
    drift: Drift
    decision: Decision


class CheckedClassifier(Classifier):
    """A float32 classifier whose fast runs answer in its model's low-precision copy wherever the run's
    own probes show that gives float32's label. Everything else (the reference loop, score(), the
    prompt) is float32's."""

    def __init__(self, loaded: LoadedModel, label_set: LabelSet, style: PromptStyle = PromptStyle(),
                 max_ticket_tokens: int | None = DEFAULT_MAX_TICKET_TOKENS, scoring: Scoring = Scoring(),
                 check: Check = Check(), log: Callable[[str], None] | None = None):
        if loaded.low is None:
            raise ValueError("a checked classifier needs the model's low-precision copy (checked.low_copy)")
        super().__init__(loaded, label_set, style, max_ticket_tokens, scoring)
        self.low = Classifier(loaded.low, label_set, style, max_ticket_tokens, scoring)
        self.check, self.log = check, log

    @property
    def low_name(self) -> str:
        return self.low.loaded.placement.dtype_name

    @property
    def label_fingerprints(self) -> None:
        # whether a low-precision score may stand depends on the whole set's margin: results are the set's
        return None

    def run(self, texts: list[str], config: RunConfig = RunConfig(), drift: Drift | None = None,
            weighed: Weighed | None = None, exact: Collection[int] = ()) -> Iterator[BatchDone]:
        """As Classifier.run; the reference loop stays float32's. drift: a bound measured before (verify),
        so no probes run and the low precision answers every ticket it can. weighed: the learned part the
        answers are read with (None: zero-shot), so an answer stands on its own margin. exact: texts whose
        answers must be float32's own (run/job.py: the rows learning settles), run first, in float32."""
        if config.reference:
            yield from super().run(texts, config)
            return
        stats = CheckedStats(total=len(texts), device=self.loaded.placement.device,
                             dtype=self.loaded.placement.dtype_name, model=self.loaded.name)
        start, seen = time.perf_counter(), {}
        tally = lambda batch, answers: _tally(stats, seen, batch, answers, start)   # noqa: E731
        filled = [i for i, t in enumerate(texts) if str(t).strip()]
        if len(filled) < len(texts):
            blank = [Prediction(i, self.label_set.names, None) for i, t in enumerate(texts) if not str(t).strip()]
            stats.done += len(blank)
            yield BatchDone(blank, stats)
        exact = set(exact)
        if exact:
            asked, filled = [i for i in filled if i in exact], [i for i in filled if i not in exact]
            if not filled:   # said before the batches: the run panel shows it while they run
                stats.check = "float32: float32's own scores were asked for every ticket"
            yield from self._float32(texts, asked, config, tally)
            if not filled:
                return
        rest = filled
        if drift is None:
            wanted = self.check.probes_for(len(filled))
            if len(filled) < 2 * wanted and not self.check.always:
                stats.check = f"float32: {len(filled)} tickets, too few to win back probes run in both precisions"
                yield from self._float32(texts, filled, config, tally)
                return
            probe = yield from self._probe(texts, filled, wanted, config, tally, weighed)
            drift, rest = probe.drift, sorted(set(filled) - set(probe.indices))
            stats.probes, stats.check, stats.drift = len(probe.indices), probe.decision.line(self.low_name), drift.bounds
            if self.log:
                self.log(stats.check)
            if not probe.decision.pays:
                yield from self._float32(texts, rest, config, tally)
                return
        yield from self._checked(texts, rest, config, drift, stats, tally, weighed)

    def measure(self, texts: list[str], config: RunConfig = RunConfig()) -> Probe:
        """Probe texts (none blank) as a run would, without the run: the drift bound verify checks with."""
        steps = self._probe(texts, list(range(len(texts))), self.check.probes_for(len(texts)), config,
                            lambda batch, answers: batch)
        try:
            while True:
                next(steps)
        except StopIteration as done:
            return done.value

    def _probe(self, texts, filled, wanted, config, tally, weighed=None):
        """Yields the probes' float32 answers (final ones); returns the Probe."""
        tokens = self.lengths(texts, filled)                                                  # {row: tokens}
        picked = [filled[k] for k in _spread([tokens[i] for i in filled], wanted)]
        clock = time.perf_counter()
        low = {p.index: p for batch in self._sub(self.low, texts, picked, config) for p in tally(batch, False).predictions}
        low_seconds = time.perf_counter() - clock
        clock, high = time.perf_counter(), {}
        for batch in self._sub(self, texts, picked, config):
            high.update({p.index: p for p in batch.predictions})
            yield tally(batch, True)
        float32_seconds = time.perf_counter() - clock
        size = torch.tensor([tokens[i] for i in picked])                                   # [P]
        low_scores = torch.tensor([low[i].scores for i in picked], dtype=torch.float64)    # [P, L]
        high_scores = torch.tensor([high[i].scores for i in picked], dtype=torch.float64)  # [P, L]
        drift = measure_drift(size, low_scores, high_scores, min(self.check.ranges, len(picked)), self.check.factor)
        share = 1.0 - read_stands(low_scores.numpy(), drift.bound(size).numpy(), weighed, picked).mean()
        return Probe(picked, drift, Decision(low_seconds, float32_seconds, share, self.check.always))

    def _checked(self, texts, items, config, drift, stats, tally, weighed=None):
        """The low precision on items; answers within the bound are kept, the rest scored again in float32."""
        tokens = self.lengths(texts, items)
        size = torch.zeros(len(texts), dtype=torch.long)                                      # [N]
        size[list(tokens)] = torch.tensor(list(tokens.values()), dtype=torch.long)
        again = []
        for batch in self._sub(self.low, texts, items, config):
            scores = torch.tensor([p.scores for p in batch.predictions], dtype=torch.float64)  # [B, L]
            rows = torch.tensor([p.index for p in batch.predictions])                         # [B]
            bound = drift.bound(size[rows])                                                   # [B]
            keep = torch.from_numpy(read_stands(scores.numpy(), bound.numpy(), weighed, rows.numpy()))   # [B]
            again += rows[~keep].tolist()
            stats.accepted += int(keep.sum())
            stats.rescored += int((~keep).sum())   # counted when sent back: a live share is the run's share
            # each kept answer carries its bound: learning weighs these scores again (learn/model.py,
            # Learned.unsettled), and there the margin that counts is the combined answer's
            kept = [replace(p, drift=b) for p, k, b in zip(batch.predictions, keep.tolist(), bound.tolist()) if k]
            token_logprobs = None if batch.token_logprobs is None else batch.token_logprobs[keep]
            yield tally(BatchDone(kept, batch.stats, token_logprobs), True)
        yield from self._float32(texts, again, config, tally)

    def lengths(self, texts: list[str], items: list[int]) -> dict[int, int]:
        """{item: the tokens of texts[item] the method reads, up to the ticket limit}, counted LENGTH_CHUNK texts at
        a time: the drift grows with tokens, and a CJK character or an emoji is several (counted in characters,
        such a ticket fell among far shorter probes, under their smaller bound)."""
        out, tokenize = {}, lambda chunk: self.loaded.tokenizer([clean(texts[i]) for i in chunk], add_special_tokens=False)
        for chunk in (items[start:start + LENGTH_CHUNK] for start in range(0, len(items), LENGTH_CHUNK)):
            out.update((i, min(len(ids), self.ticket_limit)) for i, ids in zip(chunk, tokenize(chunk)["input_ids"]))
        return out

    def _float32(self, texts, items, config, tally):
        for batch in self._sub(self, texts, items, config):
            yield tally(batch, True)

    def _sub(self, classifier: Classifier, texts: list[str], items: list[int], config: RunConfig) -> Iterator[BatchDone]:
        """classifier's run over texts[items], its predictions indexed as in texts."""
        if not items:
            return
        if classifier is self.low and config.token_budget is not None and self.loaded.placement.device == "cpu":
            config = replace(config, token_budget=LOW_BUDGET * config.token_budget)
        run = Classifier.run(classifier, [texts[i] for i in items], config)
        for batch in run:
            yield BatchDone([replace(p, index=items[p.index]) for p in batch.predictions], batch.stats,
                            batch.token_logprobs)


def float32_twins(classifiers: list[Classifier]) -> list[Classifier]:
    """Each checked classifier as the float32 one it is checked against (other classifiers as they are),
    all on one float32 view of their model: fields that share one pass over each ticket (engine/axes_pass.py)
    run it in float32, which beats each field alone in a checked low precision (docs/bench/axes_checked.txt),
    and their results are float32's, stored as such, with nothing to settle."""
    views: dict[int, LoadedModel] = {}

    def twin(c: Classifier) -> Classifier:
        if not isinstance(c, CheckedClassifier):
            return c
        loaded = views.setdefault(id(c.loaded), float32_view(c.loaded))
        return Classifier(loaded, c.label_set, c.prompt.style, c.max_ticket_tokens, c.scoring)

    return [twin(c) for c in classifiers]


def float32_view(loaded: LoadedModel) -> LoadedModel:
    """The float32 model a checked placement loaded, named float32 (stores, statistics), its low copy apart."""
    return replace(loaded, placement=replace(loaded.placement, checked=None), low=None)


def read_stands(scores: np.ndarray, drift: np.ndarray, weighed: Weighed | None, rows) -> np.ndarray:
    """[B] the low-precision answers of these rows (of weighed's run) that stand (prediction.stands), read
    with weighed's learned part, or zero-shot where there is none."""
    if weighed is None:
        return stands(scores, drift)
    return stands(scores, drift, weighed.lm, weighed.extra[rows])


def _spread(lengths: list[int], n: int) -> list[int]:
    from triage_app.engine.verify import probe_indices   # verify reads checked runs: imported when used

    return probe_indices(lengths, n)


def _tally(stats: CheckedStats, seen: dict, batch: BatchDone, answers: bool, start: float) -> BatchDone:
    """batch's work added to the run's statistics (each sub-run's counters grow: only the growth is
    added); the batch, carrying the run's statistics. answers False: the batch's answers are not the
    run's (a probe's low-precision pass), so they are not counted done."""
    sub = batch.stats
    last = seen.setdefault(id(sub), (sub, {}))[1]   # the sub-run's stats kept alive: its id stays its own
    for name in _SUMMED:
        value = getattr(sub, name)
        setattr(stats, name, getattr(stats, name) + value - last.get(name, 0))
        last[name] = value
    stats.longest_row = max(stats.longest_row, sub.longest_row)
    stats.prefix_tokens = max(stats.prefix_tokens, sub.prefix_tokens)
    stats.count_planned([])   # global_padding_inflation over every row planned so far
    stats.seconds = time.perf_counter() - start
    if not answers:
        return batch
    stats.done += len(batch.predictions)
    stats.truncated += sum(p.truncated for p in batch.predictions)
    stats.fallbacks += sum(p.fallback for p in batch.predictions)
    return BatchDone(batch.predictions, stats, batch.token_logprobs)
