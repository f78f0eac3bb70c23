"""eval shows progress while the model scores (issue 32 item 20): nothing for minutes after
"evaluating on 200 tickets" looked like a hang."""

from __future__ import annotations

import csv
import re

from cli_helpers import run_main

NAMES = ["billing", "technical", "account"]
LABELS = ["--labels", ",".join(NAMES), "--method", "direct"]


def write_csv(path, n: int):
    texts = ["Refund my last payment please", "The app crashes on start", "I cannot log in to my profile"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "body", "category"])
        writer.writerows([[r, f"{texts[r % 3]} (order {r})", NAMES[r % 3]] for r in range(n)])
    return path


def test_score_reports_after_every_batch(tiny_qwen):
    from triage_app.engine.build import classifier_for
    from triage_app.engine.config import RunConfig, RunSettings
    from triage_app.engine.labels import LabelSet
    from triage_app.quality.evaluate import score

    classifier = classifier_for(tiny_qwen, LabelSet.from_names(NAMES), RunSettings())
    texts = [f"ticket number {r} about my invoice" for r in range(10)]
    seen = []
    score(classifier, texts, RunConfig(batch_size=4), progress=lambda done, total: seen.append((done, total)))
    assert len(seen) >= 3 and seen[-1] == (10, 10)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_eval_shows_a_progress_bar_of_tickets(tmp_path, capsys, tiny_model):
    path = write_csv(tmp_path / "t.csv", 12)
    code, _, lines = run_main(capsys, "eval", path, *LABELS, "--batch-size", "4")
    err = "\n".join(lines)
    assert code == 0, err
    assert "evaluating on 12 tickets" in err
    assert re.search(r"12/12 \[", err), err      # tqdm's bar, as classify shows it
