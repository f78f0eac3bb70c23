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
