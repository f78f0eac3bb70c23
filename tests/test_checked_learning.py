"""A checked low precision once a person teaches: the learned answer must be the one float32's scores give.

A checked run keeps a low-precision answer only where the language model's own margin beats the drift
its probes measured (engine/checked.py). Learning answers from softmax(a z + b P) and fits a and b on the
person's rows, so the margin that counts is the combined one: Learned.unsettled names the rows whose
answer the drift could still decide, and those are scored again in float32 (job.run_job's exact rows).
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import replace

import numpy as np
import pytest
import torch
from cli_helpers import read_rows, run_main
from test_cli_learn import LABELS, WORDS, tickets, write_csv
from ui_helpers import Relay, make_window, open_file, run_and_wait, save_shot, settings_file, with_model  # noqa: F401

from triage_app.engine import checked
from triage_app.engine.labels import LabelSet
from triage_app.files.store import ResultStore, RunKey, StoredResult
from triage_app.learn import TicketFeatures, learn


def taught_file(n: int = 40, seed: int = 3):
    """n tickets of three labels' words, and a person's labels on every other row of the first half."""
    texts, gold = tickets(n, seed)
    labels = {r: gold[r] for r in range(0, n // 2, 2)}
    return texts, gold, labels


def test_an_answer_outside_its_drift_is_the_one_any_scores_within_the_drift_give():
    """The bound, adversarially: for every row not unsettled, the worst drift the check allows (each label
    moved by up to d against the low top-1, in the direction that narrows the answer's lead) leaves the
    learned answer where it was; and some rows are unsettled (the bound is not vacuous here)."""
    rng = np.random.default_rng(0)
    names = list(WORDS)
    # words that tell the label only now and then, and scores with some signal: the fit weighs both
    gold = [names[r % 3] for r in range(90)]
    texts = [" ".join(rng.choice(WORDS[g if rng.random() < 0.75 else names[rng.integers(3)]].split(), 2).tolist()
                      + rng.choice(" ".join(WORDS.values()).split(), 3).tolist()) for g in gold]
    labels = {r: gold[r] for r in range(0, 60, 2)}
    # low-precision scores with some signal, so the fitted a weighs them
    logits = 0.8 * np.eye(3)[[names.index(g) for g in gold]] + rng.normal(0.0, 1.0, size=(len(texts), 3))
    z = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))                  # [N, L]
    drift = rng.uniform(0.0, 0.6, size=len(texts))                                   # [N]
    drift[rng.random(len(texts)) < 0.3] = 0.0                                        # float32's own rows
    features = TicketFeatures(texts)
    learned = learn(features, z, labels, names, drift=drift)
    assert learned.weights.is_learning and learned.weights.lm > 0
    unsettled = set(learned.unsettled.tolist())
    assert {r for r in labels if drift[r] > 0} <= unsettled                          # the person's rows fit a, b
    assert not unsettled & {r for r in range(len(texts)) if drift[r] == 0}
    text = learned.text_scores
    answer = np.argmax(learned.scores, axis=1)                                       # [N]
    top = np.argmax(z, axis=1)                                                       # [N] the low top-1
    moved, changed = 0, 0
    for r in range(len(texts)):
        if r in labels or r in unsettled or drift[r] == 0:
            continue
        # float32's z = low z - δ, |δ_j - δ_t| <= d: δ_t = 0; the answer down by d, every other label up by d
        delta = np.full(3, -drift[r])
        delta[top[r]] = 0.0
        if answer[r] != top[r]:   # learning changed the answer: it hangs on two labels' drifts
            delta[answer[r]] = drift[r]
            changed += 1
        worst = learned.weights.lm * (z[r] - delta) + text[r]
        assert np.argmax(worst) == answer[r], r
        moved += 1
    assert moved > 10 and len(unsettled - set(labels)) > 0 and changed > 3


def test_zero_shot_an_answer_stands_on_the_language_models_own_margin():
    """As a zero-shot run checks it; a row kept on a learned part's margin, with those labels gone, is not."""
    texts, _, _ = taught_file(30)
    z = np.log(np.random.default_rng(1).dirichlet(np.ones(3), size=len(texts)))
    learned = learn(TicketFeatures(texts), z, {}, ["billing", "technical", "account"], drift=np.full(len(texts), 0.5))
    top = -np.sort(-z, axis=1)
    assert learned.unsettled.tolist() == np.flatnonzero(top[:, 0] - top[:, 1] <= 0.5).tolist()
    assert 0 < len(learned.unsettled) < len(texts)


def test_a_stored_answer_keeps_its_drift_and_an_old_databases_is_unknown(tmp_path):
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as old:   # the results table as Triage wrote it before drift was kept
        old.execute("CREATE TABLE results (text_hash TEXT NOT NULL, prompt_hash TEXT NOT NULL, model TEXT NOT NULL, "
                    "dtype TEXT NOT NULL, labels TEXT NOT NULL, scores TEXT NOT NULL, truncated INTEGER NOT NULL, "
                    "fallback INTEGER NOT NULL, created REAL NOT NULL DEFAULT (julianday('now')), "
                    "PRIMARY KEY (text_hash, prompt_hash, model, dtype))")
        for dtype in ("float32", "bfloat16-checked"):
            old.execute("INSERT INTO results (text_hash, prompt_hash, model, dtype, labels, scores, truncated, fallback) "
                        "VALUES ('h', 'p', 'm|cpu', ?, '[\"a\", \"b\"]', '[-0.1, -2.3]', 0, 0)", (dtype,))
    with ResultStore(db) as store:
        plain, low = (RunKey("p", "m", dtype, "cpu") for dtype in ("float32", "bfloat16-checked"))
        assert store.lookup(plain, ["h"])["h"].drift == 0.0          # float32's own scores
        assert math.isnan(store.lookup(low, ["h"])["h"].drift)         # unknown: kept on the model's own margin
        store.save(low, {"k": StoredResult(["a", "b"], [-0.2, -1.7], False, False, 0.375)})
    with ResultStore(db) as store:
        assert store.lookup(low, ["k"])["k"].drift == 0.375


@pytest.fixture
def checked_tiny(tiny_qwen):
    loaded = replace(tiny_qwen, placement=replace(tiny_qwen.placement, checked=torch.bfloat16))
    loaded.low = checked.low_copy(loaded)
    return loaded


def test_classify_learning_from_a_checked_run_gives_float32s_learned_answers(tmp_path, capsys, monkeypatch, tiny_qwen,
                                                                              checked_tiny):
    """The law, end to end: `classify --person-labels` on a checked run (its low precision forced on, so any
    CPU runs it) exports the labels the float32 run exports. The labelled rows are scored in float32 first,
    and the rest read with what they teach: fewer answers go back to float32 than zero-shot (the learned
    part widens their margins). Run again on a database a zero-shot checked run wrote, the rows it kept
    in bfloat16 are settled where learning made them close."""
    from triage_app.cli import options

    texts, gold, labels = taught_file(60)
    path = write_csv(tmp_path / "t.csv", ["id", "text", "queue"],
                     [[r, t, labels.get(r, "")] for r, t in enumerate(texts)])
    monkeypatch.setattr(checked.Decision, "pays", property(lambda self: True))

    def classify(name, loaded, db, *more):
        monkeypatch.setattr(options, "load_model", lambda args: loaded)
        code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / f"{name}.csv", "--db", tmp_path / db,
                                "--stats-json", tmp_path / f"{name}.json", *LABELS, *more)
        assert code == 0, err
        return read_rows(tmp_path / f"{name}.csv"), json.loads((tmp_path / f"{name}.json").read_text()), err

    want, _, _ = classify("float32", tiny_qwen, "float32.db", "--person-labels", "queue")
    got, taught, err = classify("checked", checked_tiny, "checked.db", "--person-labels", "queue")
    assert [r["label"] for r in got] == [r["label"] for r in want]
    assert [r["source"] for r in got] == [r["source"] for r in want]
    assert any(f"the {len(labels)} labelled tickets scored in float32 first" in line for line in err)
    with ResultStore(tmp_path / "checked.db") as store:
        drifts = dict(store._db.execute("SELECT text_hash, drift FROM results WHERE dtype='bfloat16-checked'"))
    from triage_app.files.store import text_hash
    assert all(drifts[text_hash(texts[r])] == 0 for r in labels)             # the person's rows: float32's own
    assert any(d > 0 for d in drifts.values())                               # others kept in bfloat16

    _, zero_shot, _ = classify("zero-shot", checked_tiny, "zero-shot.db")
    assert taught["rescored"] < zero_shot["rescored"], (taught["rescored"], zero_shot["rescored"])

    # the zero-shot run's answers, learned from as they are stored: the person's rows kept in bfloat16 are
    # settled first, then any learning made close, until none is left
    from triage_app.cli.classify import learned_answers
    from triage_app.cli.learning import learning_parts
    from triage_app.engine.axes import PLAIN, Axes
    from triage_app.engine.encoder import SentenceEncoder
    from triage_app.files.clean import TextCleaning
    from triage_app.engine.build import classifier_for
    from triage_app.engine.config import RunSettings, Scoring
    from triage_app.run.job import run_job

    classifier = classifier_for(checked_tiny, LabelSet.from_names(LABELS[1].split(",")),
                                RunSettings(scoring=Scoring(method="direct")))
    with ResultStore(tmp_path / "zero-shot.db") as store:
        stored = sorted((p for step in run_job(classifier, store, texts) for p in step.predictions), key=lambda p: p.index)
        assert any(stored[r].drift > 0 for r in labels) and not zero_shot["done"] - len(texts)
        asked = []

        def settle(rows):
            asked.append(rows)
            return [p for step in run_job(classifier, store, texts, exact=rows) for p in step.predictions]

        # learned on what classify learns on: the file's embeddings and the encoder's similarity to the labels
        features, similarity = learning_parts(SentenceEncoder.bundled(), tmp_path / "zero-shot.db", texts,
                                              TextCleaning(), Axes.of(classifier.label_set), labels)
        predictions, _ = learned_answers(features, stored, classifier.label_set.names, labels, settle,
                                         similarity[PLAIN])
    assert {r for r in labels if stored[r].drift > 0} <= set(asked[0])
    # the person's rows answered by their labels (their scores are the model's own, as the window shows them)
    answered = {p.index: p.label for p in predictions}
    assert [labels.get(r, answered[r]) for r in range(len(texts))] == [r["label"] for r in want]


def test_the_window_settles_what_its_labels_made_close_and_shows_float32s_learned_answers(
        qtbot, make_window, tmp_path, monkeypatch, tiny_qwen, checked_tiny):
    """A checked run (low precision forced on) on a file a person has labelled: once it finishes, learning
    names the rows its bfloat16 scores could still decide, a short run scores them in float32 by itself,
    and every answer shown is then the one float32's scores and the same labels give."""
    from triage_app.engine.classifier import Classifier
    from triage_app.engine.config import Scoring
    from triage_app.files.clean import clean_texts

    monkeypatch.setattr(checked.Decision, "pays", property(lambda self: True))
    window = make_window()
    window.remembered.method = "direct"            # channel runs float32 on a checked placement
    with_model(qtbot, window, checked_tiny)
    names = window.label_set.names
    rng = np.random.default_rng(5)
    gold = [names[r % len(names)] for r in range(40)]
    texts = [f"{names.index(g)} " + " ".join(rng.choice(WORDS[list(WORDS)[names.index(g) % 3]].split(), 3)) for g in gold]
    open_file(qtbot, window, write_csv(tmp_path / "t.csv", ["text"], [[t] for t in texts]))
    labels = {r: gold[r] for r in range(0, 24, 2)}
    for row, label in labels.items():
        assert window.model.set_person_label(row, label)
    settled, ended, shots, stats = set(), [], [], []
    progress = Relay(window.worker.progress)

    def settling(axis, rows):   # after the window's own slot has started the run that settles them
        if window.running and window.latest.exact and not shots:
            shots.append((window.statusBar().currentMessage(), save_shot(window, "window-settling.png", tmp_path)))

    def run_ended(how):   # the run's own last statistics: a settling run may start before the test reads them
        ended.append(how)
        stats.append(progress.seen[-1].stats)
        settled.update(*window.latest.exact.values())

    window.learning.unsettled.connect(settling)
    window.run_ended.connect(run_ended)
    assert run_and_wait(qtbot, window, timeout=120_000) == "done"
    first = stats[0]
    shown = window.model.answers_of(None)
    drift = shown.lm_drift
    assert drift.max() > 0                                                   # some answers kept in bfloat16
    # a short run (or two: a retrain under way as the run ended asks too) settles them by itself, and
    # learning follows until nothing is left to settle
    qtbot.waitUntil(lambda: len(ended) >= 2 and not window.running and not window.learning.learning.busy
                    and shown.learned is not None and len(shown.learned.unsettled) == 0, timeout=90_000)
    assert set(ended) == {"done"} and settled
    assert {r for r in labels if drift[r] > 0} <= settled                    # the person's rows among them
    assert shown.lm_drift[sorted(settled)].max() == 0 and drift[sorted(settled)].min() > 0
    assert shots[0][0].startswith("Scoring ") and "answer(s) again in float32" in shots[0][0]

    clean = clean_texts(window.texts, window.remembered.cleaning)
    lm = np.full((len(texts), len(names)), np.nan)
    for batch in Classifier(tiny_qwen, window.label_set, scoring=Scoring(method="direct")).run(clean):
        for p in batch.predictions:
            lm[p.index] = p.scores
    want = learn(TicketFeatures(window.texts), lm, labels, names)
    expected = [labels.get(r, names[k]) for r, k in enumerate(want.labels)]
    assert [window.model.label_of(r) for r in range(len(texts))] == expected

    # taught, a run reads its answers with what the labels teach: fewer go back to float32, the same answers
    runs_before = len(stats)
    assert run_and_wait(qtbot, window, timeout=120_000, fresh=True) == "done"
    again = stats[runs_before]
    assert again.probes == first.probes and again.rescored < first.rescored, (again.rescored, first.rescored)
    qtbot.waitUntil(lambda: not window.running and not window.learning.learning.busy
                    and len(shown.learned.unsettled) == 0, timeout=90_000)
    assert [window.model.label_of(r) for r in range(len(texts))] == expected


def test_the_taught_bench_times_three_runs_and_every_learned_label_is_float32s(monkeypatch, checked_tiny):
    """bench --workload taught, on the tiny model: float32, checked with no labels, checked read zero-shot,
    checked read taught, each end to end through its own database, with the labels learned from every tenth
    ticket's queue."""
    from triage_app.bench.taught import compare_taught, report

    monkeypatch.setattr(checked.Decision, "pays", property(lambda self: True))
    result = compare_taught(checked_tiny, 60, log=lambda line: None)
    sides = result["sides"]
    assert list(sides) == ["float32", "checked, no labels", "checked, zero-shot read", "checked, taught read"]
    assert result["n"] == 60 and result["taught"] == 6 and result["labels"] == 5
    for name in list(sides)[1:]:
        assert sides[name]["labels_different"] == 0 and sides[name]["probes"] == 12
        assert sides[name]["kept"] > 0 and sides[name]["speedup"] > 0
    assert sides["checked, taught read"]["rescored_in_run"] < sides["checked, zero-shot read"]["rescored_in_run"]
    assert "labels different" in report(result) and "checked, taught read" in report(result)


def test_an_export_made_while_answers_wait_to_be_settled_says_so(qtbot, make_window, tmp_path):
    window = make_window()
    names = window.label_set.names
    texts, _, _ = taught_file(40)
    open_file(qtbot, window, write_csv(tmp_path / "t.csv", ["text"], [[t] for t in texts]))
    z = np.log(np.random.default_rng(2).dirichlet(np.ones(len(names)), size=len(texts)))
    messages = []
    window.exporting.message.connect(lambda text, ms: messages.append(text))
    for drift, note in ((0.0, False), (0.5, True)):
        learned = learn(TicketFeatures(window.texts), z, {}, names, drift=np.full(len(texts), drift))
        assert window.model.apply_learned(learned, window.fields.current)
        assert window.export_to(tmp_path / "out.csv") is not None
        said = f"{len(learned.unsettled):,} learned answers wait to be scored again in float32"
        assert (said in messages[-1]) == note and (len(learned.unsettled) > 0) == note, messages[-1]


def test_learning_with_labels_but_no_words_to_learn_from_settles_without_failing():
    """Labels on blank tickets: the weights say "learn" but there is no text model; nothing is combined."""
    texts = ["", " ", "", " ", "ok", "ok", "", ""]
    z = np.log(np.full((8, 2), 0.5))
    learned = learn(TicketFeatures(texts), z, {0: "a", 1: "a", 2: "b", 3: "b"}, ["a", "b"], drift=np.zeros(8))
    assert learned.text_scores is None and len(learned.unsettled) == 0


def test_a_stored_answer_kept_on_a_learned_margin_is_scored_again_by_a_run_that_reads_it_alone(tmp_path, checked_tiny,
                                                                                              tiny_qwen):
    """A taught run kept it where the learned part widened its margin; read zero-shot, its own margin is
    inside its drift, so a run without the learned part scores it again in float32 rather than resume it."""
    from triage_app.engine.build import classifier_for
    from triage_app.engine.classifier import Classifier
    from triage_app.engine.config import RunSettings, Scoring
    from triage_app.files.store import text_hash
    from triage_app.run.job import run_job, run_key

    names = ["billing", "technical", "account"]
    label_set = LabelSet.from_names(names)
    classifier = classifier_for(checked_tiny, label_set, RunSettings(scoring=Scoring(method="direct")))
    texts = ["invoice charge refund please", "login password help"]
    with ResultStore(tmp_path / "r.db") as store:
        narrow = StoredResult(names, np.log([0.36, 0.34, 0.30]).tolist(), False, False, 0.5)   # margin 0.06 < 0.5
        wide = StoredResult(names, np.log([0.90, 0.05, 0.05]).tolist(), False, False, 0.5)     # margin 2.9 > 0.5
        store.save(run_key(classifier), {text_hash(texts[0]): narrow, text_hash(texts[1]): wide})
        got = {p.index: p for step in run_job(classifier, store, texts) for p in step.predictions}
    float32 = {p.index: p for b in Classifier(tiny_qwen, label_set, scoring=Scoring(method="direct")).run(texts)
               for p in b.predictions}
    assert got[0].drift == 0 and got[0].scores == pytest.approx(float32[0].scores, abs=1e-5)
    assert got[1].drift == 0.5 and got[1].scores == wide.scores       # it stands: resumed as stored
