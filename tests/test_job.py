"""Results that survive anything: the SQLite store, resume, fan-out, and a kill -9 mid-run.

The killed run is a real process; the runs after it are the in-process command (they read the
same database file a new process would)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from cli_helpers import read_rows, run_main, write_rows
from triage_app.engine import models
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.files.clean import TextCleaning
from triage_app.files.store import ResultStore, RunKey, StoredResult, text_hash
from triage_app.engine.scoring import CONTENT_FREE
from triage_app.run.job import label_keys, run_job, run_key


def test_store_is_keyed_by_text_prompt_model_dtype_and_device(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        key = RunKey("p1", "m", "float32", "cpu")
        store.save(key, {"h1": StoredResult(["a", "b"], [-0.1, -2.3], False, True)})
        assert store.lookup(key, ["h1", "h2"]) == {"h1": StoredResult(["a", "b"], [-0.1, -2.3], False, True)}
        assert store.lookup(RunKey("p1", "m", "bfloat16", "cpu"), ["h1"]) == {}
        assert store.lookup(RunKey("p2", "m", "float32", "cpu"), ["h1"]) == {}
        assert store.lookup(RunKey("p1", "m", "float32", "mps"), ["h1"]) == {}
        assert store.lookup(RunKey("p1", "m2", "float32", "cpu"), ["h1"]) == {}
        mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_the_run_key_names_the_weights_loaded_and_the_device(smollm2):
    key = run_key(Classifier(smollm2, LabelSet.default()))
    # the bundled GGUF by its resolved path, size and time: a package upgrade is a new model
    assert key.model == models.file_identity(models.smollm2_path()) != smollm2.spec
    assert key.device == "cpu" and key.dtype == "float32"
    elsewhere = replace(smollm2, placement=replace(smollm2.placement, device="mps"))
    assert run_key(Classifier(elsewhere, LabelSet.default())).model_column != key.model_column


def test_results_from_other_weights_are_not_resumed_and_old_databases_still_open(tiny_qwen, tmp_path):
    texts = ["Refund my last payment", "The app crashes"]
    db = tmp_path / "r.db"
    # a database as written before the key named the weights: rows keyed by the spec as typed
    with sqlite3.connect(db) as con:
        con.executescript(OLD_SCHEMA)
        con.executemany("INSERT INTO results VALUES (?, ?, ?, 'float32', '[]', '[]', 0, 0, 0)",
                        [(text_hash(t), Classifier(tiny_qwen, LabelSet.default()).fingerprint, tiny_qwen.spec)
                         for t in texts])
        con.execute("INSERT INTO manual_labels VALUES (?, 'set1', 'billing', 0)", (text_hash(texts[0]),))
    con.close()
    with ResultStore(db) as store:
        first = list(run_job(Classifier(tiny_qwen, LabelSet.default()), store, texts))
        assert first[0].resumed == 0 and first[-1].stats.done == 2    # the old rows miss: that is the fix
        assert store.person_labels("f.csv", ["r0", "r1"], texts).labels == {0: "billing"}  # a person's labels kept
        again = list(run_job(Classifier(tiny_qwen, LabelSet.default()), store, texts))
        assert again[0].resumed == 2
        replaced = replace(tiny_qwen, identity=f"{tiny_qwen.identity}:replaced")
        after = list(run_job(Classifier(replaced, LabelSet.default()), store, texts))
        assert after[0].resumed == 0 and after[-1].stats.done == 2


def test_a_run_without_the_store_classifies_everything_and_saves_nothing(tiny_qwen):
    texts = ["Refund my last payment", "The app crashes", "Refund my last payment"]
    classifier = Classifier(tiny_qwen, LabelSet.default())
    for _ in range(2):
        steps = list(run_job(classifier, None, texts))
        assert steps[0].resumed == 0 and steps[-1].rows_done == 3 and steps[-1].stats.done == 2


HTML_TWIN = "Refund my <b>last</b> payment&nbsp;please<br><br><br>Order 12"
PLAIN_TWIN = "Refund my last payment please\n\nOrder 12"


def test_the_model_reads_the_cleaned_text_and_rows_keep_their_place(tiny_qwen):
    classifier = Classifier(tiny_qwen, LabelSet.default(), scoring=Scoring(method="direct"))
    texts = [HTML_TWIN, "The app crashes", "   ", PLAIN_TWIN]
    steps = list(run_job(classifier, None, texts))
    got = {p.index: p for s in steps for p in s.predictions}
    assert sorted(got) == [0, 1, 2, 3] and steps[-1].stats.total == 3   # the twins are one text to the model
    assert got[0].scores == got[3].scores and got[2].is_blank             # and a blank ticket stays blank
    alone = [p for b in classifier.run([PLAIN_TWIN]) for p in b.predictions]
    assert got[0].scores == pytest.approx(alone[0].scores, abs=1e-4)
    raw = {p.index: p for s in run_job(classifier, None, texts, cleaning=TextCleaning.off()) for p in s.predictions}
    assert raw[0].scores != raw[3].scores                                 # as exported, the model reads the tags


def test_the_key_names_the_cleaning_and_no_clean_resumes_a_database_from_before_cleaning(tiny_qwen, tmp_path):
    classifier = Classifier(tiny_qwen, LabelSet.default())
    loaded = tiny_qwen
    before = RunKey(classifier.fingerprint, loaded.identity, loaded.placement.dtype_name, loaded.placement.device)
    keys = {run_key(classifier), run_key(classifier, TextCleaning(replies=True)),
            run_key(classifier, TextCleaning().without("html"))}
    assert len(keys) == 3 and before not in keys
    assert run_key(classifier, TextCleaning.off()) == before
    texts = [HTML_TWIN, " The app crashes "]
    old = {text_hash(t.strip()): StoredResult(classifier.label_set.names, [-0.01, -5.0, -6.0], False, False)
           for t in texts}
    with ResultStore(tmp_path / "r.db") as store:
        store.save(before, old)   # as a run saved them before cleaning existed
        raw = list(run_job(classifier, store, texts, cleaning=TextCleaning.off()))
        assert raw[0].resumed == 2 and raw[-1].stats.done == 0
        assert all(p.scores == [-0.01, -5.0, -6.0] for p in raw[0].predictions)
        cleaned = list(run_job(classifier, store, texts))
        assert cleaned[0].resumed == 0 and cleaned[-1].stats.done == 2   # cleaned text is another input
        assert list(run_job(classifier, store, texts))[0].resumed == 2
        # channel keeps each label's raw scores under its own key, the content-free tickets' too
        assert [store.count(k) for k in label_keys(classifier)] == [2 + len(CONTENT_FREE)] * 3
        assert store.count(run_key(classifier)) == 0 and store.count(before) == 2


OLD_SCHEMA = """
CREATE TABLE results (
    text_hash TEXT NOT NULL, prompt_hash TEXT NOT NULL, model TEXT NOT NULL, dtype TEXT NOT NULL,
    labels TEXT NOT NULL, scores TEXT NOT NULL, truncated INTEGER NOT NULL, fallback INTEGER NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (text_hash, prompt_hash, model, dtype)
);
CREATE TABLE manual_labels (
    text_hash TEXT NOT NULL, label_set TEXT NOT NULL, label TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (text_hash, label_set)
);
"""


def test_identical_texts_are_classified_once_and_a_rerun_classifies_nothing(smollm2, tmp_path):
    classifier = Classifier(smollm2, LabelSet.default())
    texts = ["Refund my last payment", "The app crashes", "Refund my last payment", "", "  The app crashes "]
    with ResultStore(tmp_path / "r.db") as store:
        steps = list(run_job(classifier, store, texts, RunConfig()))
        assert steps[-1].rows_done == 5 and steps[-1].stats.total == 3  # two unique texts and a blank
        first = {p.index: p for s in steps for p in s.predictions}
        assert sorted(first) == [0, 1, 2, 3, 4]
        assert first[0].scores == first[2].scores and first[1].scores == first[4].scores
        assert [store.count(k) for k in label_keys(classifier)] == [2 + len(CONTENT_FREE)] * 3
        again = list(run_job(classifier, store, texts, RunConfig()))
        assert again[0].resumed == 4 and again[-1].stats.done == 1  # only the blank goes through again
        resumed = {p.index: p for s in again for p in s.predictions}
        assert all(resumed[i].scores == first[i].scores for i in (0, 1, 2, 4))
        fresh = list(run_job(classifier, store, texts, RunConfig(), fresh=True))
        assert fresh[0].resumed == 0 and fresh[-1].stats.done == 3


def classify_args(*args):
    return ["classify", *map(str, args), "--model", "smollm2-135m", "--dtype", "float32", "--batch-size", "2",
            "--token-budget", "256", "--method", "direct"]   # the store is what is tested: the quicker method


def classify(log, *args):
    """Start a classify process whose output goes to the file log (a pipe could fill and stall it)."""
    with open(log, "w") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen([sys.executable, "-m", "triage_app", *classify_args(*args)],
                                stdout=out, stderr=subprocess.STDOUT)


UNIQUE = 20   # distinct tickets in the killed run's file: many rows left when a kill lands after the first batch
KILL_AT = 2   # stored rows: the first batch (a starved test process once saw the run end between two polls)


def test_a_run_killed_mid_way_resumes_without_losing_or_repeating_anything(sample_rows, tmp_path, capsys,
                                                                            bundled_model):
    rows = sample_rows[:UNIQUE] + sample_rows[:4]  # four duplicate texts too
    write_rows(tmp_path / "t.csv", rows)
    db = tmp_path / "r.db"
    common = [str(tmp_path / "t.csv"), "--db", str(db)]
    victim = classify(tmp_path / "victim.log", *common, "-o", str(tmp_path / "never.csv"))
    deadline = time.time() + 300
    stored = 0
    while time.time() < deadline and victim.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    stored = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            except sqlite3.OperationalError:
                pass    # the file is made (private) before its tables are: files/store.py make_private
            if stored >= KILL_AT:
                break
        time.sleep(0.05)   # soon after: the kill must land before the run ends
    assert victim.poll() is None, "the run finished before it could be killed"
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    assert not (tmp_path / "never.csv").exists()
    with sqlite3.connect(db) as con:
        saved = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert KILL_AT <= saved < UNIQUE

    code, _, err = run_main(capsys, *classify_args(*common, "-o", tmp_path / "resumed.csv",
                                                   "--stats-json", tmp_path / "s.json"))
    assert code == 0, err
    stats = json.loads((tmp_path / "s.json").read_text())
    assert stats["items"] == UNIQUE - saved  # classified now: the unique texts not saved before
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == UNIQUE

    code, _, err = run_main(capsys, *classify_args(*common[:1], "--db", tmp_path / "other.db",
                                                   "-o", tmp_path / "whole.csv"))
    assert code == 0, err
    got, expected = read_rows(tmp_path / "resumed.csv"), read_rows(tmp_path / "whole.csv")
    assert [r["id"] for r in got] == [r["id"] for r in rows]
    assert [r["label"] for r in got] == [r["label"] for r in expected]
    for a, b in zip(got, expected):
        assert float(a["p_billing"]) == pytest.approx(float(b["p_billing"]), abs=1e-4)
