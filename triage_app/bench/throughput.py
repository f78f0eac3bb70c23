"""Side-by-side benchmark of the engine's modes on one workload, in one process."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import torch

from triage_app.engine.build import classifier_for
from triage_app.engine.config import DEFAULT_BATCH_SIZE, DEFAULT_TOKEN_BUDGET, RunConfig, RunSettings, Scoring
from triage_app.engine.forward import decoder_of
from triage_app.engine.models import LoadedModel
from triage_app.engine.verify import compare
from triage_app.bench.workloads import Workload, many_labels

MODES = {
    "reference": RunConfig(reference=True),
    "buckets": RunConfig(prefix_cache=False, full_head=True),
    "prefix": RunConfig(buckets=False, batch_size=1, full_head=True),
    "prefix+buckets": RunConfig(full_head=True),
    "fast": RunConfig(),
}


@dataclass(slots=True)
class ModeResult:
    seconds: float
    items_per_s: float
    speedup: float
    padding_fraction: float
    agreement: float
    max_score_diff: float
    real_tokens: int
    tokens_processed: int


def dense_rate(loaded: LoadedModel, rows: int = 32, width: int = 100, repeats: int = 2) -> float:
    """Tokens/s of one unpadded batch of real tokens, no cache: the ceiling a batch can reach."""
    # ordinary word ids, past the special tokens at either end of small and large vocabularies
    vocab = loaded.model.get_input_embeddings().num_embeddings
    ids = torch.randint(vocab // 20, vocab // 2, (rows, width), generator=torch.Generator().manual_seed(0))
    ids = ids.to(loaded.placement.device)
    decoder = decoder_of(loaded.model)
    with torch.inference_mode():
        decoder(input_ids=ids[:2, :16])  # warm-up
        start = time.perf_counter()
        for _ in range(repeats):
            decoder(input_ids=ids)
        return rows * width * repeats / (time.perf_counter() - start)


def run_modes(loaded: LoadedModel, work: Workload, modes: list[str], batch_size: int = DEFAULT_BATCH_SIZE,
              token_budget: int | None = DEFAULT_TOKEN_BUDGET, method: str = "direct", log=print) -> dict[str, ModeResult]:
    """Every mode on the same tickets. With channel scoring the head is always whole (every ticket
    token is scored), so prefix+buckets and fast do the same work."""
    results = {}
    settings = RunSettings(scoring=Scoring(method=method))
    # the reference runs first, asked for or not: every other mode is compared with it and timed against it
    # (a speedup over the mode's own time would read 1.00x everywhere)
    reference_run = _timed(loaded, work, settings, MODES["reference"])
    base, reference, _ = reference_run
    if "reference" not in modes:
        log(f"  {'(reference)':<15} {base:8.1f} s  the base of the speedups and the agreement, not a mode asked for")
    for mode in sorted(modes, key=lambda m: m != "reference"):
        config = MODES[mode]
        if not config.reference and config.batch_size != 1:
            config = replace(config, batch_size=batch_size, token_budget=token_budget)
        seconds, predictions, stats = reference_run if mode == "reference" else _timed(loaded, work, settings, config)
        report = compare(reference, predictions, loaded.placement.dtype_name, method)
        results[mode] = ModeResult(seconds, len(work.texts) / seconds, base / seconds, stats.padding_fraction,
                                   report.agree / max(report.probes, 1), report.max_score_diff,
                                   stats.real_tokens, stats.tokens_processed)
        log(f"  {mode:<15} {seconds:8.1f} s  {results[mode].items_per_s:6.2f} items/s  "
            f"x{results[mode].speedup:.2f}  agreement {report.agree}/{report.probes}")
    return results


def _timed(loaded: LoadedModel, work: Workload, settings: RunSettings, config: RunConfig):
    """One mode's run: its seconds, its predictions by ticket and the last batch's stats. A classifier per
    mode: each pays for its own prefix cache."""
    classifier = classifier_for(loaded, work.label_set, settings, work.style)
    start = time.perf_counter()
    stats, predictions = None, {}
    for batch in classifier.run(work.texts, config):
        predictions.update({p.index: p for p in batch.predictions})
        stats = batch.stats
    return time.perf_counter() - start, predictions, stats


def table(results: dict[str, ModeResult]) -> str:
    head = f"{'mode':<15} {'seconds':>8} {'items/s':>8} {'speedup':>8} {'padding':>8} {'agree':>7} {'max Δscore':>10}"
    lines = [head, "-" * len(head)]
    for mode, r in results.items():
        lines.append(f"{mode:<15} {r.seconds:8.1f} {r.items_per_s:8.2f} {r.speedup:7.2f}x "
                     f"{100 * r.padding_fraction:7.1f}% {100 * r.agreement:6.1f}% {r.max_score_diff:10.2g}")
    return "\n".join(lines)


@dataclass(slots=True)
class ManyLabelsResult:
    labels: int
    prune: bool
    seconds: float
    items_per_s: float
    label_nodes: int        # label-trie nodes through the model
    full_nodes: int         # what the whole trie for every ticket would have been
    same_labels: bool       # as the whole trie's, ticket for ticket


def run_many_labels(loaded: LoadedModel, n: int, label_counts: tuple[int, ...] = (77, 10),
                    batch_size: int = DEFAULT_BATCH_SIZE, token_budget: int | None = DEFAULT_TOKEN_BUDGET,
                    log=print) -> list[ManyLabelsResult]:
    """Direct scoring of the same BANKING77 messages with many labels and with few, the whole label
    trie against the pruned one (engine/methods/prune.py). A classifier per run: each pays its prefix cache."""
    results = []
    for count in label_counts:
        work = many_labels(n, count)
        whole = None
        for prune in (False, True):
            classifier = classifier_for(loaded, work.label_set, RunSettings(scoring=Scoring(method="direct")), work.style)
            config = RunConfig(prune=prune, batch_size=batch_size, token_budget=token_budget)
            start = time.perf_counter()
            labels = {p.index: p.label for batch in classifier.run(work.texts, config) for p in batch.predictions}
            seconds = time.perf_counter() - start
            whole = whole or labels
            nodes = classifier.method.label_nodes
            results.append(ManyLabelsResult(count, prune, seconds, len(work.texts) / seconds, nodes.fed, nodes.full,
                                            labels == whole))
            log(f"  {count:>3} labels  {'pruned' if prune else 'whole '}  {seconds:8.1f} s  "
                f"{results[-1].items_per_s:6.2f} items/s  label nodes {nodes.fed}/{nodes.full}")
    return results


def many_labels_table(results: list[ManyLabelsResult]) -> str:
    head = f"{'labels':>6} {'trie':<7} {'seconds':>8} {'items/s':>8} {'label nodes':>15} {'labels as whole':>15}"
    lines = [head, "-" * len(head)]
    for r in results:
        lines.append(f"{r.labels:>6} {'pruned' if r.prune else 'whole':<7} {r.seconds:8.1f} {r.items_per_s:8.2f} "
                     f"{f'{r.label_nodes}/{r.full_nodes}':>15} {'yes' if r.same_labels else 'NO':>15}")
    rate = {(r.labels, r.prune): r.items_per_s for r in results}
    few, many = min(r.labels for r in results), max(r.labels for r in results)
    for prune in (False, True):
        if (many, prune) in rate and (few, prune) in rate:
            lines.append(f"{many} labels / {few} labels, {'pruned' if prune else 'whole'} trie: "
                         f"{rate[many, prune] / rate[few, prune]:.2f} of the items/s")
    return "\n".join(lines)
