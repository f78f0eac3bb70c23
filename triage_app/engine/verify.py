"""The law of the engine, checked: fast-path predictions against the slow reference loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from triage_app.engine.methods.channel import ChannelMethod
from triage_app.engine.classifier import Classifier, Prediction
from triage_app.engine.config import RunConfig, is_checked
from triage_app.engine.methods.base import method_tolerance
from triage_app.engine.methods.registry import method_class
from triage_app.engine.scoring import CONTENT_FREE

# A method's tolerance (its TOLERANCE, per dtype) is the largest label-score difference between its
# fast path and the reference that rounding alone gives. A decision whose reference log-margin is
# under twice it is a near-tie: within the dtype's own rounding, so either label is as right as the
# other. That is wide for bfloat16, which is why "auto" never chooses it pure. A checked low
# precision ("bfloat16-checked", engine/checked.py) has no near-ties: its labels must be float32's.


def tolerance(dtype: str, method: str) -> float:
    return method_tolerance(method_class(method).TOLERANCE, dtype)


@dataclass(slots=True)
class Disagreement:
    index: int
    reference: str
    fast: str
    reference_log_margin: float
    near_tie: bool


@dataclass(slots=True)
class VerifyReport:
    probes: int
    agree: int
    max_score_diff: float
    tolerance: float
    disagreements: list[Disagreement] = field(default_factory=list)
    checked: bool = False   # a checked low precision: every label must be float32's, no near-ties
    planned: int = 0        # the probes asked for; fewer were compared when the person stopped it
    precision: str = ""     # on a checked placement, the precision the fast path's answers were in (said)

    @property
    def failures(self) -> list[Disagreement]:
        return [d for d in self.disagreements if not d.near_tie]

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def stopped(self) -> bool:
        return self.probes < self.planned

    def summary(self) -> str:
        ties = len(self.disagreements) - len(self.failures)
        verdict = "OK" if self.ok else f"FAILED: {len(self.failures)} real disagreement(s)"
        if self.stopped:
            verdict += f" (stopped after {self.probes} of {self.planned} probes)"
        if self.checked:
            return (f"{self.agree}/{self.probes} labels identical to the float32 reference loop (checked precision: "
                    f"every one must be; {self.precision}); largest score difference {self.max_score_diff:.2g}; "
                    f"{verdict}")
        ran = f"{self.precision}; " if self.precision else ""
        return (f"{self.agree}/{self.probes} labels identical to the reference loop; largest score difference "
                f"{self.max_score_diff:.2g} (tolerance {self.tolerance:g}); near-ties {ties}; {ran}{verdict}")


def probe_indices(lengths: list[int], n: int) -> list[int]:
    """n tickets spread evenly across the length range, shortest and longest included."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    if n >= len(order):
        return order
    return sorted({order[round(k * (len(order) - 1) / max(n - 1, 1))] for k in range(n)})


def compare(reference: dict[int, Prediction], fast: dict[int, Prediction], dtype: str,
            method: str) -> VerifyReport:
    limit = tolerance(dtype, method)
    report = VerifyReport(probes=0, agree=0, max_score_diff=0.0, tolerance=limit, checked=is_checked(dtype))
    for i, ref in reference.items():
        if ref.is_blank:
            continue
        got = fast[i]
        report.probes += 1
        report.max_score_diff = max(report.max_score_diff,
                                    max(abs(a - b) for a, b in zip(ref.scores, got.scores)))
        if ref.label == got.label:
            report.agree += 1
        else:
            near_tie = not report.checked and ref.log_margin < 2 * limit
            report.disagreements.append(Disagreement(i, ref.label, got.label, ref.log_margin, near_tie))
    return report


def collect(classifier: Classifier, texts: list[str], config: RunConfig) -> dict[int, Prediction]:
    return {p.index: p for batch in classifier.run(texts, config) for p in batch.predictions}


@dataclass(frozen=True, slots=True)
class VerifyProgress:
    """Where a verify stands, for a plain progress callback: before the reference loop starts (nothing
    done: what it will cost), after each probe, and every second or so inside a long one."""
    probes_done: int
    probes: int
    passes_done: int    # the reference loop's model passes finished...
    passes: int         # ...of all it makes (reference_passes)
    seconds: float      # since the reference loop started

    @property
    def eta_seconds(self) -> float | None:
        """The passes left at the pace of those done; None before the first is done."""
        if not self.passes_done:
            return None
        return self.seconds / self.passes_done * max(self.passes - self.passes_done, 0)


class VerifyStopped(Exception):
    """The caller's stop() said so between two model passes; verify reports what it compared by then."""


def reference_passes(classifier: Classifier, tickets: int) -> int:
    """The model passes the reference loop makes for this many tickets: one per label for channel scoring,
    one per path through the label-token trie for the others (so about one per label), for each ticket
    and, calibrated, each content-free ticket the prior is measured on."""
    method = classifier.method
    per_ticket = len(method.labels) if isinstance(method, ChannelMethod) else len(method.tree.leaf_paths())
    calibration = len(CONTENT_FREE) if classifier.scoring.calibrate else 0
    return (tickets + calibration) * per_ticket


class ReferencePasses:
    """Counts the reference loop's model passes through hooks on the model, tells progress, and asks stop
    before each pass: a probe of a long prompt and many labels is minutes of passes, too long to wait for."""

    def __init__(self, classifier: Classifier, probes: int, progress: Callable[[VerifyProgress], None] | None,
                 stop: Callable[[], bool] | None, every: float = 1.0):
        self.model, self.progress, self.stop, self.every = classifier.loaded.model, progress, stop, every
        self.probes, self.passes = probes, reference_passes(classifier, probes)
        self.probes_done = self.passes_done = 0
        self.start = self.told = time.perf_counter()

    def __enter__(self) -> ReferencePasses:
        self.hooks = [self.model.register_forward_pre_hook(self._before), self.model.register_forward_hook(self._after)]
        self.start = self.told = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        for hook in self.hooks:
            hook.remove()

    def probe_done(self, probes_done: int) -> None:
        self.probes_done = probes_done
        self.tell()

    def tell(self) -> None:
        self.told = time.perf_counter()
        if self.progress:
            self.progress(VerifyProgress(self.probes_done, self.probes, self.passes_done, self.passes,
                                         self.told - self.start))

    def check(self) -> None:
        if self.stop and self.stop():
            raise VerifyStopped

    def _before(self, module, args) -> None:
        self.check()

    def _after(self, module, args, output) -> None:
        self.passes_done += 1
        if time.perf_counter() - self.told >= self.every:
            self.tell()


def verify(classifier: Classifier, texts: list[str], probes: int = 16, config: RunConfig = RunConfig(),
           fast: dict[int, Prediction] | None = None, progress: Callable[[VerifyProgress], None] | None = None,
           stop: Callable[[], bool] | None = None) -> VerifyReport:
    """Re-run a spread of tickets through the reference loop and compare.

    fast: predictions of a finished run (by ticket index) to check; without it the probes
    themselves run through the fast path first. A checked classifier's fast path answers them with
    the drift bound its own probes measured on the other tickets, so the probes test the low
    precision's answers, not the float32 ones a run gives its probes.
    progress: called with a VerifyProgress before the reference loop (its cost), after each probe and
    every second or so between. stop: asked between batches and between the reference loop's passes;
    True ends the verify there, with a report on the probes compared so far (report.stopped).
    """
    filled = [i for i, t in enumerate(texts) if str(t).strip()]
    drift, pool = None, filled
    if fast is None and hasattr(classifier, "measure"):   # a CheckedClassifier (engine/checked.py)
        measured = classifier.measure([texts[i] for i in filled], config)
        drift = measured.drift
        pool = [i for k, i in enumerate(filled) if k not in set(measured.indices)] or filled
    picked = [pool[k] for k in probe_indices([len(str(texts[i])) for i in pool], probes)]
    sample = [texts[i] for i in picked]
    fast_sample: dict[int, Prediction] = {}
    reference: dict[int, Prediction] = {}
    passes = ReferencePasses(classifier, len(picked), progress, stop)
    passes.tell()   # nothing done yet: what the reference loop will cost
    try:
        if fast is not None:
            fast_sample = {k: fast[i] for k, i in enumerate(picked)}
        else:
            fast_sample = _answers(classifier.run(sample, config, drift=drift) if drift is not None
                                   else classifier.run(sample, config), passes)
        with passes:
            for batch in classifier.run(sample, RunConfig(reference=True)):
                reference.update((p.index, p) for p in batch.predictions)
                passes.probe_done(len(reference))
    except VerifyStopped:
        pass
    placement = classifier.loaded.placement.dtype_name
    checked = is_checked(placement) and hasattr(classifier, "measure")
    # a per-label method on a checked placement runs a plain float32 classifier (engine/build.py)
    answered = placement if checked or not is_checked(placement) else "float32"
    report = compare(reference, fast_sample, answered, classifier.scoring.method)
    report.planned = len(picked)
    report.precision = _precision(classifier, placement, checked, [fast_sample[i] for i in reference])
    for d in report.disagreements:
        d.index = picked[d.index]
    return report


def _precision(classifier: Classifier, placement: str, checked: bool, compared: list[Prediction]) -> str:
    """What the compared answers were in, on a checked placement: a low-precision answer carries the
    margin it beat (Prediction.drift), a float32 one none."""
    if not is_checked(placement):
        return ""
    if not checked:
        return (f"{classifier.scoring.method} scoring runs in float32 on {placement}, so no "
                f"{placement.removesuffix('-checked')} answer was compared")
    low = sum(1 for p in compared if p.drift > 0)
    return f"{low} of {len(compared)} answered in {classifier.low_name}, the rest in float32"


def _answers(run, passes: ReferencePasses) -> dict[int, Prediction]:
    """The fast path's predictions, stopping between its batches when asked."""
    answers = {}
    for batch in run:
        answers.update((p.index, p) for p in batch.predictions)
        passes.check()
    return answers
