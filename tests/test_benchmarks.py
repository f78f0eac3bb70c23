"""Benchmarks, not timed tests: they print numbers for the README and assert only correctness.

Run with: scripts/test -m slow -s
"""

from __future__ import annotations

import csv
import random
import time

import pytest

from triage_app.files.reader import detect_text_column, read_tickets


@pytest.mark.slow
def test_load_100k_rows(tmp_path):
    rng = random.Random(0)
    words = "invoice refund login password crash error export account billing charge the my is not".split()
    path = tmp_path / "big.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "subject", "text", "priority"])
        for i in range(100_000):
            body = " ".join(rng.choice(words) for _ in range(rng.randint(5, 120)))
            writer.writerow([i, f"ticket {i}", body + ("\nsecond line, with a comma" if i % 10 == 0 else ""), "p2"])
    start = time.perf_counter()
    table = read_tickets(path)
    seconds = time.perf_counter() - start
    assert len(table.frame) == 100_000 and detect_text_column(table) == "text"
    assert table.frame["id"].iloc[-1] == "99999"
    print(f"\n100k-row CSV ({path.stat().st_size / 1e6:.1f} MB) read in {seconds:.2f} s")



def _hundred_thousand_tickets(sample_rows) -> list[str]:
    """100k distinct tickets (the job stores and runs each distinct text once): the sample, numbered."""
    return [f"{sample_rows[k % len(sample_rows)]['text']} (ref {k})" for k in range(100_000)]


def _planned_padding(lengths: list[int], chunks) -> float:
    from triage_app.engine.batches import plan_buckets

    buckets = [b for chunk in chunks
               for b in plan_buckets(chunk, [lengths[i] for i in chunk], uses_prefix=True, sort=True, max_rows=32,
                                     token_budget=1024)]
    return 1 - sum(lengths) / sum(len(b.items) * b.width for b in buckets)


def _held_mb(encode, texts) -> float:
    import tracemalloc

    tracemalloc.start()
    tickets = encode(texts)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del tickets
    return held / 1e6


@pytest.mark.slow
def test_first_labels_of_a_100k_row_file(smollm2, sample_rows):
    """Seconds from Run to the first labels of a 100k-ticket run; what tokenising every ticket first
    cost; memory and padding of chunks against one global plan. Writes docs/bench/first_result.txt."""
    import os
    from pathlib import Path

    from triage_app.engine import classifier as run_module
    from triage_app.engine.classifier import Classifier
    from triage_app.engine.config import RunConfig
    from triage_app.engine.labels import LabelSet
    from triage_app.engine.config import Scoring
    from triage_app.engine.verify import collect

    texts = _hundred_thousand_tickets(sample_rows)
    lines = [f"First labels of a 100k-ticket run (the sample, numbered: all distinct), SmolLM2-135M float32, "
             f"default run settings, {time.strftime('%Y-%m-%d')}, load average {os.getloadavg()[0]:.1f} on "
             f"{os.cpu_count()} cores (tests/test_benchmarks.py -m slow)"]
    for method in ("channel", "direct"):
        classifier = Classifier(smollm2, LabelSet.default(), scoring=Scoring(method=method))
        wall, cpu = time.perf_counter(), time.process_time()
        run = classifier.run(texts, RunConfig())
        first = next(run)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        run.close()
        # the first labels are the reference's
        picked = [p.index for p in first.predictions]
        reference = collect(classifier, [texts[i] for i in picked], RunConfig(reference=True))
        assert [reference[k].label for k in range(len(picked))] == [p.label for p in first.predictions]
        lines.append(f"{method}: first labels ({len(first.predictions)} tickets) {wall:.2f} s after Run, "
                     f"{cpu:.2f} s CPU (prefix caches, calibration, a {run_module.FIRST_CHUNK}-ticket chunk, "
                     f"one batch of at most {run_module.FIRST_BATCH_TOKENS} rows x tokens over all its passes)")
        start = time.perf_counter()
        whole = classifier._encode(texts[:10_000])
        lines.append(f"{method}: tokenising 10k tickets at once, as every run did before its first batch: "
                     f"{time.perf_counter() - start:.1f} s")
        lengths = [len(t.suffix_ids) if t.uses_prefix else len(t.full_ids) for t in whole]
        del whole
        chunks = list(run_module.encode_chunks(list(range(len(lengths)))))
        lines.append(f"{method}: padding of the planned batches over those 10k (32 rows, budget 1024): one global "
                     f"plan {_planned_padding(lengths, [list(range(len(lengths)))]):.2%}, in chunks "
                     f"{_planned_padding(lengths, chunks):.2%}")
        lines.append(f"{method}: token ids held: 10k tickets {_held_mb(classifier._encode, texts[:10_000]):.0f} MB, "
                     f"the largest chunk ({run_module.LARGEST_CHUNK}) "
                     f"{_held_mb(classifier._encode, texts[:run_module.LARGEST_CHUNK]):.0f} MB")
    report = "\n".join(lines) + "\n"
    print("\n" + report)
    Path(__file__).resolve().parents[1].joinpath("docs", "bench", "first_result.txt").write_text(report)
