"""The law of the engine, checked: fast-path predictions against the slow reference loop."""

from __future__ import annotations

from dataclasses import dataclass, field

from triage_app.engine.classifier import Classifier, Prediction
from triage_app.engine.config import RunConfig, is_checked
from triage_app.engine.method import method_tolerance
from triage_app.engine.methods import method_class

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

    @property
    def failures(self) -> list[Disagreement]:
        return [d for d in self.disagreements if not d.near_tie]

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        ties = len(self.disagreements) - len(self.failures)
        verdict = "OK" if self.ok else f"FAILED: {len(self.failures)} real disagreement(s)"
        if self.checked:
            return (f"{self.agree}/{self.probes} labels identical to the float32 reference loop (checked precision: "
                    f"every one must be); largest score difference {self.max_score_diff:.2g}; {verdict}")
        return (f"{self.agree}/{self.probes} labels identical to the reference loop; largest score difference "
                f"{self.max_score_diff:.2g} (tolerance {self.tolerance:g}); near-ties {ties}; {verdict}")


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


def verify(classifier: Classifier, texts: list[str], probes: int = 16, config: RunConfig = RunConfig(),
           fast: dict[int, Prediction] | None = None) -> VerifyReport:
    """Re-run a spread of tickets through the reference loop and compare.

    fast: predictions of a finished run (by ticket index) to check; without it the probes
    themselves run through the fast path first. A checked classifier's fast path answers them with
    the drift bound its own probes measured on the other tickets, so the probes test the low
    precision's answers, not the float32 ones a run gives its probes.
    """
    filled = [i for i, t in enumerate(texts) if str(t).strip()]
    drift, pool = None, filled
    if fast is None and hasattr(classifier, "measure"):   # a CheckedClassifier (engine/checked.py)
        measured = classifier.measure([texts[i] for i in filled], config)
        drift = measured.drift
        pool = [i for k, i in enumerate(filled) if k not in set(measured.indices)] or filled
    picked = [pool[k] for k in probe_indices([len(str(texts[i])) for i in pool], probes)]
    sample = [texts[i] for i in picked]
    reference = collect(classifier, sample, RunConfig(reference=True))
    if fast is not None:
        fast_sample = {k: fast[i] for k, i in enumerate(picked)}
    elif drift is not None:
        fast_sample = {p.index: p for batch in classifier.run(sample, config, drift=drift) for p in batch.predictions}
    else:
        fast_sample = collect(classifier, sample, config)
    report = compare(reference, fast_sample, classifier.loaded.placement.dtype_name, classifier.scoring.method)
    for d in report.disagreements:
        d.index = picked[d.index]
    return report
