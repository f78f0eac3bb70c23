"""Results that survive anything: the SQLite store, resume, fan-out, and a kill -9 mid-run."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from triage_app.engine.classifier import Classifier, RunConfig
from triage_app.engine.labels import LabelSet
from triage_app.files.store import ResultStore, RunKey, StoredResult
from triage_app.job import run_job, run_key


def test_store_is_keyed_by_text_prompt_model_and_dtype(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        key = RunKey("p1", "m", "float32")
        store.save(key, {"h1": StoredResult(["a", "b"], [-0.1, -2.3], False, True)})
        assert store.lookup(key, ["h1", "h2"]) == {"h1": StoredResult(["a", "b"], [-0.1, -2.3], False, True)}
        assert store.lookup(RunKey("p1", "m", "bfloat16"), ["h1"]) == {}
        assert store.lookup(RunKey("p2", "m", "float32"), ["h1"]) == {}
        mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_manual_labels_are_stored(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        store.set_manual("set1", "My invoice", "billing")
        assert store.manual_labels("set1", ["x", "My invoice"]) == {1: "billing"}
        assert store.manual_labels("set2", ["My invoice"]) == {}
        store.set_manual("set1", "My invoice", None)
        assert store.manual_labels("set1", ["My invoice"]) == {}


def test_identical_texts_are_classified_once_and_a_rerun_classifies_nothing(smollm2, tmp_path):
    classifier = Classifier(smollm2, LabelSet.default())
    texts = ["Refund my last payment", "The app crashes", "Refund my last payment", "", "  The app crashes "]
    with ResultStore(tmp_path / "r.db") as store:
        steps = list(run_job(classifier, store, texts, RunConfig()))
        assert steps[-1].rows_done == 5 and steps[-1].stats.total == 3  # two unique texts and a blank
        first = {p.index: p for s in steps for p in s.predictions}
        assert sorted(first) == [0, 1, 2, 3, 4]
        assert first[0].scores == first[2].scores and first[1].scores == first[4].scores
        assert store.count(run_key(classifier)) == 2
        again = list(run_job(classifier, store, texts, RunConfig()))
        assert again[0].resumed == 4 and again[-1].stats.done == 1  # only the blank goes through again
        resumed = {p.index: p for s in again for p in s.predictions}
        assert all(resumed[i].scores == first[i].scores for i in (0, 1, 2, 4))
        fresh = list(run_job(classifier, store, texts, RunConfig(), fresh=True))
        assert fresh[0].resumed == 0 and fresh[-1].stats.done == 3


def write_tickets(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def classify(log, *args):
    """Start a classify process whose output goes to the file log (a pipe could fill and stall it)."""
    with open(log, "w") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen([sys.executable, "-m", "triage_app", "classify", *args, "--model", "smollm2-135m",
                                 "--dtype", "float32", "--batch-size", "2", "--token-budget", "256",
                                 "--method", "direct"],   # the store is what is tested: the quicker method
                                stdout=out, stderr=subprocess.STDOUT)


def test_a_run_killed_mid_way_resumes_without_losing_or_repeating_anything(smollm2, sample_rows, tmp_path):
    rows = sample_rows[:36] + sample_rows[:4]  # four duplicate texts too
    write_tickets(tmp_path / "t.csv", rows)
    db = tmp_path / "r.db"
    common = [str(tmp_path / "t.csv"), "--db", str(db)]
    victim = classify(tmp_path / "victim.log", *common, "-o", str(tmp_path / "never.csv"))
    deadline = time.time() + 300
    stored = 0
    while time.time() < deadline and victim.poll() is None:
        if db.exists():
            with sqlite3.connect(db) as con:
                stored = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            if stored >= 6:
                break
        time.sleep(0.2)
    assert victim.poll() is None, "the run finished before it could be killed"
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    assert not (tmp_path / "never.csv").exists()
    with sqlite3.connect(db) as con:
        saved = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert 6 <= saved < 36

    resumed = classify(tmp_path / "resumed.log", *common, "-o", str(tmp_path / "resumed.csv"),
                       "--stats-json", str(tmp_path / "s.json"))
    assert resumed.wait(timeout=600) == 0, (tmp_path / "resumed.log").read_text()
    stats = json.loads((tmp_path / "s.json").read_text())
    assert stats["items"] == 36 - saved  # classified now: the unique texts not saved before
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 36

    whole = classify(tmp_path / "whole.log", *common[:1], "--db", str(tmp_path / "other.db"),
                     "-o", str(tmp_path / "whole.csv"))
    assert whole.wait(timeout=600) == 0, (tmp_path / "whole.log").read_text()
    def read(path):
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    got, expected = read(tmp_path / "resumed.csv"), read(tmp_path / "whole.csv")
    assert [r["id"] for r in got] == [r["id"] for r in rows]
    assert [r["label"] for r in got] == [r["label"] for r in expected]
    for a, b in zip(got, expected):
        assert float(a["p_billing"]) == pytest.approx(float(b["p_billing"]), abs=1e-4)
