"""The learned layer on its own: fixed language-model scores, real TF-IDF and regression, no model run."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from triage_app.learn import (LEARNED, MODEL, PERSON, LearnConfig, TicketFeatures, labels_from_column, learn,
                              next_to_label)
from triage_app.engine.prediction import Prediction
from triage_app.learn import features as features_module
from triage_app.engine.prediction import Answers
from triage_app.quality.curve import learning_curve, split

NAMES = ["billing", "technical", "account"]
WORDS = {"billing": "invoice charge refund price receipt card",
         "technical": "error crash bug outage slow timeout",
         "account": "login password user profile email permission"}
FILLER = "please help today thanks hello again urgent team".split()


def tickets(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """n tickets cycling through the labels: three of the label's words among filler."""
    rng = np.random.default_rng(seed)
    gold = [NAMES[i % len(NAMES)] for i in range(n)]
    texts = [" ".join(rng.choice(WORDS[g].split(), 3).tolist() + rng.choice(FILLER, 4).tolist()) for g in gold]
    return texts, gold


def lm_scores(gold: list[str], right: float, seed: int = 1) -> np.ndarray:
    """[N, L] log-probabilities whose argmax is the gold label on `right` of the rows, the next label elsewhere."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 0.3, (len(gold), len(NAMES)))
    for r, g in enumerate(gold):
        k = NAMES.index(g) if rng.random() < right else (NAMES.index(g) + 1) % len(NAMES)
        logits[r, k] += 1.5
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


def gold_index(gold):
    return np.array([NAMES.index(g) for g in gold])


@pytest.fixture(scope="module")
def ticket_file():
    texts, gold = tickets(300)
    return texts, gold, TicketFeatures(texts), lm_scores(gold, 0.6)


def test_no_labels_is_exactly_the_zero_shot_answer(ticket_file):
    _, _, features, z = ticket_file
    learned = learn(features, z, {}, NAMES)
    assert np.array_equal(learned.scores, z)
    assert np.array_equal(learned.labels, z.argmax(axis=1))
    assert set(learned.sources) == {MODEL}
    assert learned.estimate is None and not learned.weights.is_learning


def test_same_labels_give_the_same_predictions(ticket_file):
    _, gold, features, z = ticket_file
    taught = {r: gold[r] for r in range(0, 300, 7)}
    first, second = learn(features, z, taught, NAMES), learn(features, z, dict(reversed(taught.items())), NAMES)
    assert np.array_equal(first.scores, second.scores) and np.array_equal(first.labels, second.labels)
    assert first.weights == second.weights and first.estimate == second.estimate


def test_the_learned_part_counts_more_as_labels_accumulate(ticket_file):
    _, gold, features, z = ticket_file
    truth = gold_index(gold)
    few = learn(features, z, {r: gold[r] for r in range(6)}, NAMES)
    many = learn(features, z, {r: gold[r] for r in range(90)}, NAMES)
    # the learned part's share of the weights grows with the labels: with 90 the words alone tell these labels,
    # and the weighing keeps the learned part alone (learn/weights.py: the simplest parts within a standard error)
    share = [w.learned / (w.lm + w.learned) for w in (few.weights, many.weights)]
    assert share[1] >= share[0] and many.weights.lm == 0   # the words alone tell these labels
    rest = np.arange(90, 300)
    lm_wrong = rest[z[rest].argmax(axis=1) != truth[rest]]
    assert len(lm_wrong) > 50
    # where the language model is wrong, the combined answer follows the learned part
    assert np.mean(many.labels[lm_wrong] == truth[lm_wrong]) > 0.95
    assert np.mean(many.labels[rest] == truth[rest]) > np.mean(z[rest].argmax(axis=1) == truth[rest]) + 0.3
    assert set(many.sources[rest]) == {LEARNED} and set(many.sources[:90]) == {PERSON}
    assert len(many.changed_since(few)) > 0
    assert set(many.changed_since(few)) == set(np.flatnonzero(many.labels != few.labels))


def test_labels_the_person_gave_are_the_answer_on_their_rows(ticket_file):
    _, gold, features, z = ticket_file
    wrong = {r: NAMES[(NAMES.index(gold[r]) + 1) % 3] for r in range(3)}     # a person may disagree with the words
    taught = {**{r: gold[r] for r in range(3, 60)}, **wrong}
    learned = learn(features, z, taught, NAMES)
    assert [learned.label_names()[r] for r in range(3)] == [wrong[r] for r in range(3)]
    assert np.all(learned.confidence[:60] == 1.0)


def test_a_label_with_no_examples_can_still_be_answered_by_the_model(ticket_file):
    _, gold, features, _ = ticket_file
    z = lm_scores(gold, 1.0)                                                     # the model is right everywhere
    taught = {r: gold[r] for r in range(60) if gold[r] != "account"}
    learned = learn(features, z, taught, NAMES)
    assert learned.teaching.per_label["account"] == 0
    accounts = np.array([r for r in range(60, 300) if gold[r] == "account"])
    assert np.mean(learned.labels[accounts] == NAMES.index("account")) > 0.9
    assert "account 0" in learned.status()


def test_a_label_with_one_example(ticket_file):
    _, gold, features, z = ticket_file
    one_account = next(r for r in range(300) if gold[r] == "account")
    taught = {**{r: gold[r] for r in range(60) if gold[r] != "account"}, one_account: "account"}
    learned = learn(features, z, taught, NAMES)
    assert learned.teaching.per_label["account"] == 1
    assert learned.estimate is not None and learned.estimate.n == len(taught)
    assert np.isfinite(learned.scores).all()
    assert not learned.skip_advice().offer and "the fewest has 1" in learned.skip_advice().reason


def test_with_and_without_prototypes_are_judged_on_the_rows_both_answer():
    """A review's finding: without the prototypes a label's only example has no held-out answer, with them it has
    one: the two log-losses were of different rows, the harder row counted against the prototypes alone."""
    for seed in range(4):
        rng = np.random.default_rng(seed)
        centres, gold = rng.normal(size=(2, 32)), np.arange(40) % 2
        vectors = centres[gold] + 3.0 * rng.normal(size=(40, 32))
        features = TicketFeatures([f"ticket {r}" for r in range(40)],
                                  (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32))
        prototypes = (centres / np.linalg.norm(centres, axis=1, keepdims=True)).astype(features.matrix.dtype)
        taught = {0: "A", 2: "A", 1: "B"}        # B once: no fold without the prototypes answers its row
        learned = learn(features, np.full((40, 2), np.nan), taught, ["A", "B"], prototypes=prototypes)
        assert learned.took_prototypes and learned.estimate.n == len(learned.cross_validated[1]) == 2


@pytest.mark.parametrize("lone", NAMES[:2])
def test_two_labels_one_of_them_once_the_estimate_rests_on_rows_a_model_answered(ticket_file, lone):
    """Every fold that holds out the lone label's one row trains on the other label alone: no model answers
    that row, and it must not count (as right where its label comes first, as a tie's argmax would have it)."""
    from triage_app.learn.regression import held_out
    from triage_app.learn.teaching import Teaching

    _, gold, features, _ = ticket_file
    names = NAMES[:2]
    other = next(name for name in names if name != lone)
    rows = [r for r in range(300) if gold[r] == other][:2] + [next(r for r in range(300) if gold[r] == lone)]
    taught = {r: gold[r] for r in rows}
    unscored = np.full((features.n, len(names)), np.nan)     # labels given before any run
    p, _ = held_out(features, Teaching.from_labels(taught, names), LearnConfig())
    answered = np.isfinite(p).all(axis=1)
    assert np.allclose(np.exp(p[answered]).sum(axis=1), 1)   # distributions: means over the repeats that answered
    lone_row = list(Teaching.from_labels(taught, names).rows).index(rows[-1])
    assert not answered[lone_row]
    learned = learn(features, unscored, taught, names)
    assert learned.estimate.n == int(answered.sum()) < len(taught) and learned.estimate.fewest == 0
    assert len(learned.cross_validated[1]) == learned.estimate.n
    assert not learned.skip_advice().offer


def test_one_example_of_each_label_cannot_be_cross_validated_so_nothing_changes(ticket_file):
    _, gold, features, z = ticket_file
    learned = learn(features, z, {0: gold[0], 1: gold[1], 2: gold[2]}, NAMES)
    assert learned.estimate is None and not learned.weights.is_learning
    assert np.array_equal(learned.scores, z)
    assert list(learned.sources[:3]) == [PERSON] * 3 and set(learned.sources[3:]) == {MODEL}


def test_all_labels_the_same(ticket_file):
    _, gold, features, z = ticket_file
    taught = {r: "billing" for r in range(0, 60, 3)}
    learned = learn(features, z, taught, NAMES)
    assert learned.text_model is None and not learned.weights.is_learning
    assert np.array_equal(learned.scores, z)
    assert "the learned part needs two" in learned.status()
    assert set(learned.sources[list(taught)]) == {PERSON}


def test_a_label_renamed_or_removed_after_it_was_taught_is_ignored_and_reported(ticket_file):
    _, gold, features, z = ticket_file
    taught = {r: gold[r] for r in range(60)}
    renamed = {**taught, **{r: "payments" for r in range(60) if gold[r] == "billing"}}
    learned, without = learn(features, z, renamed, NAMES), learn(
        features, z, {r: g for r, g in taught.items() if g != "billing"}, NAMES)
    assert learned.teaching.ignored == {"payments": 20}
    assert np.array_equal(learned.scores, without.scores)
    assert "not in the label set, ignored: 'payments' 20" in learned.status()


def test_thousands_of_labels_at_once():
    texts, gold = tickets(3000, seed=3)
    features, z = TicketFeatures(texts), lm_scores(gold, 0.5)
    start = time.perf_counter()
    learned = learn(features, z, {r: gold[r] for r in range(2000)}, NAMES)
    seconds = time.perf_counter() - start
    assert learned.teaching.n == 2000 and learned.weights.is_learning
    assert np.mean(learned.labels[2000:] == gold_index(gold)[2000:]) > 0.95
    assert seconds < 10


def test_a_column_whose_values_are_not_labels_says_which_in_one_line():
    column = ["Billing", " technical ", "", None, "Payments", "payments", "Payments", "misc", "account"]
    found = labels_from_column(column, NAMES)
    assert found.labels == {0: "billing", 1: "technical", 8: "account"}
    assert found.blank == 2 and found.unknown == {"Payments": 2, "misc": 1, "payments": 1}
    assert found.message == ("4 rows have a value that is not a label, not learned from: "
                             "'Payments' (2), 'misc' (1), 'payments' (1)")
    assert "\n" not in found.message
    assert labels_from_column(["billing", "account"], NAMES).message is None


def test_tickets_the_model_has_not_scored_are_answered_by_the_learned_part(ticket_file):
    _, gold, features, z = ticket_file
    skipped = z.copy()
    skipped[200:] = np.nan
    learned = learn(features, skipped, {r: gold[r] for r in range(90)}, NAMES)
    assert np.mean(learned.labels[200:] == gold_index(gold)[200:]) > 0.95
    assert set(learned.sources[200:]) == {LEARNED}
    untaught = learn(features, skipped, {}, NAMES)
    assert set(untaught.labels[200:]) == {-1} and np.isnan(untaught.confidence[200:]).all()


def test_rows_scored_after_learning_combine_as_a_retrain_would(ticket_file):
    """The window shows a run's new batch through the active Learned instead of the raw model answer."""
    _, gold, features, z = ticket_file
    z = lm_scores(gold, 1.0)                                                     # a model right everywhere
    early = z.copy()
    early[200:] = np.nan                                                         # not scored yet
    taught = {r: gold[r] for r in range(90) if gold[r] != "account"}            # every part is weighed
    learned, retrained = learn(features, early, taught, NAMES), learn(features, z, taught, NAMES)
    rows = np.arange(200, 300)
    assert np.allclose(learned.combine(rows, z[rows]), retrained.scores[rows])
    assert not np.allclose(learned.scores[rows], retrained.scores[rows])       # the model's part counts
    untaught = learn(features, early, {}, NAMES)
    assert np.array_equal(untaught.combine(rows, z[rows]), z[rows])              # nothing learned: the model's


def test_skipping_the_model_is_offered_only_when_the_learned_part_alone_is_as_good(ticket_file):
    _, gold, features, _ = ticket_file
    useless = lm_scores(gold, 0.34)
    taught = {r: gold[r] for r in range(60)}
    assert learn(features, useless, taught, NAMES).skip_advice().offer
    assert not learn(features, useless, {r: gold[r] for r in range(9)}, NAMES).skip_advice().offer
    # a perfect model and words that say nothing: the model must stay
    noise = TicketFeatures([f"ticket number {r} hello" for r in range(300)])
    advice = learn(noise, lm_scores(gold, 1.0), taught, NAMES).skip_advice()
    assert not advice.offer
    # enough labels, but the model has scored only a few of them (a run just started): too soon to compare
    early = useless.copy()
    early[list(taught)[6:]] = np.nan
    advice = learn(features, early, taught, NAMES).skip_advice()
    assert not advice.offer and "scored too few" in advice.reason


def test_estimate_is_cross_validated_with_a_spread(ticket_file):
    _, gold, features, z = ticket_file
    learned = learn(features, z, {r: gold[r] for r in range(30)}, NAMES)
    e = learned.estimate
    assert e.n == 30 and 0.8 < e.combined <= 1.0 and 0 < e.spread < 0.1
    assert e.zero_shot == pytest.approx(np.mean(z[:30].argmax(axis=1) == gold_index(gold)[:30]))
    assert "cross-validated" in learned.status() and "per label: billing 10, technical 10, account 10" in learned.status()


def test_next_to_label_spreads_across_labels_and_kinds_of_tickets():
    texts, gold = tickets(120, seed=5)
    z = lm_scores(gold, 0.8)
    # 20 copies of one ticket, the least certain of all: a queue by margin alone would be only them
    copies = list(range(100, 120))
    for r in copies:
        texts[r] = "invoice refund charge please help today thanks"
        z[r] = np.log([0.34, 0.33, 0.33])
    features = TicketFeatures(texts)
    learned = learn(features, z, {r: gold[r] for r in range(30)}, NAMES)
    queue = next_to_label(learned, features, n=10)
    assert len(queue) == len(set(queue)) == 10
    assert not set(queue) & set(range(30))
    assert sum(r in copies for r in queue) <= 2
    assert len({learned.labels[r] for r in queue}) == 3
    assert queue == next_to_label(learned, features, n=10)


def test_next_to_label_is_led_by_the_least_certain():
    texts, gold = tickets(60, seed=6)
    z = lm_scores(gold, 0.9)
    z[17] = np.log([0.34, 0.33, 0.33])
    features = TicketFeatures(texts)
    learned = learn(features, z, {}, NAMES)
    assert next_to_label(learned, features, n=5)[0] == 17


def test_learning_curve_shape_and_the_same_test_rows_for_every_k():
    texts, gold = tickets(150, seed=7)
    z = lm_scores(gold, 0.5)
    curve = learning_curve(texts, gold, z, NAMES, ks=(0, 2, 5), draws=2)
    assert [p.k for p in curve.points] == [0, 2, 5]
    pools, test = split(gold, NAMES, 5, 0.5, 0)
    assert curve.test_rows == test.tolist() and len(test) == 75
    assert not set(test) & {int(r) for rows in pools.values() for r in rows}
    for p in curve.points:
        assert all(len(v) == 2 for v in p.accuracy.values())
    assert curve.points[0].mean("learned") is None
    assert curve.points[0].mean("combined") == curve.points[0].mean("zero_shot") == pytest.approx(
        np.mean(z[test].argmax(axis=1) == gold_index(gold)[test]))
    assert curve.points[2].mean("combined") > curve.points[0].mean("combined") + 0.3
    data = curve.to_dict()
    assert data["n_test"] == 75 and len(data["points"]) == 3 and "| 5 |" in curve.table()


def test_learn_config_checks_itself():
    with pytest.raises(ValueError, match="at least 2 folds"):
        LearnConfig(folds=1)


def test_the_learned_layer_imports_neither_qt_nor_torch():
    import subprocess
    import sys

    code = ("import sys, triage_app.learn, triage_app.quality.curve, triage_app.learn.queue; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'PySide6', 'pyqtgraph')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def same_up_to_column_order(a, b) -> bool:
    """Two [N, V] matrices hold the same values in each row, whatever order their columns are in."""
    return a.shape == b.shape and all(
        a[r].nnz == b[r].nnz and np.allclose(np.sort(a[r].data), np.sort(b[r].data), atol=1e-6) for r in range(a.shape[0]))


ANY_WORDS = ["refund", "card", "login", "error", "the", "my", "app", "crash", "password", "invoice", "é", "ñandú", "x"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(ANY_WORDS), max_size=12).map(" ".join), max_size=40),
       st.integers(min_value=1, max_value=7))
def test_features_are_scikit_learns_tfidf_built_a_slice_at_a_time(texts, slice_rows):
    """Sliced (so that the window never waits on one long call) and never sorted, the features are still
    TfidfVectorizer(words + bigrams, sublinear tf, min_df=2)'s, whatever the slices' size."""
    original = features_module.SLICE
    features_module.SLICE = slice_rows
    try:
        ours = TicketFeatures(texts).matrix
    finally:
        features_module.SLICE = original
    try:
        theirs = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2, dtype=np.float32).fit_transform(texts)
    except ValueError:       # no word shared by two tickets: nothing to learn from
        theirs = np.zeros((len(texts), 0))
    assert ours.shape == (len(texts), theirs.shape[1])
    assert same_up_to_column_order(ours, theirs) if theirs.shape[1] else ours.nnz == 0


def test_answers_pick_the_label_a_prediction_picks_even_where_probabilities_tie():
    """Two log-probabilities a hair apart can have the same probability: the answer is still the
    larger one, as Prediction.label (and the export) has it, in learning and the table alike."""
    a = -0.5601892823991825
    scores = np.array([[a, np.nextafter(a, 0), -5.0], [np.nan, -1.0, -1.0], [-0.1, -3.0, -3.0]])
    assert np.exp(scores[0, 0]) == np.exp(scores[0, 1])
    read = Answers.of(scores)
    assert read.index.tolist() == [1, -1, 0]
    names = ["x", "y", "z"]
    assert names[read.index[0]] == Prediction(0, names, scores[0].tolist()).label
    assert np.isnan(read.confidence[1]) and np.isnan(read.margin[1]) and read.margin[0] == 0.0
    assert np.isnan(Answers.of(scores[:, :1]).margin).all()                             # one label: no margin


@given(st.sampled_from(["Facturación", "Técnico", "Ärger", "billing"]), st.sampled_from(["NFC", "NFD"]),
       st.sampled_from([str.lower, str.upper, str.title, str]))
def test_a_column_value_names_the_label_whatever_its_case_and_accent_spelling(name, form, case):
    """A macOS file writes "é" as two code points (NFD): to a person it is the label's name, as LabelSet says."""
    import unicodedata

    names = [unicodedata.normalize("NFC", name), "other"]
    value = f" {case(unicodedata.normalize(form, name))} "
    assert labels_from_column([value, "", "?"], names).labels == {0: names[0]}


def test_with_many_labels_the_summary_names_those_taught_not_every_label():
    """80 labels listed one by one filled the window's learning line past the table (a hunt's screenshot)."""
    from triage_app.learn.teaching import SHOWN, Teaching

    names = [f"category_{k:02d}" for k in range(80)]
    assert Teaching.from_labels({0: names[3], 1: names[3], 2: names[7]}, names).summary() == \
        "3 labels (on 2 of 80 labels: category_03 2, category_07 1)"
    many = Teaching.from_labels({k: names[k] for k in range(SHOWN + 5)}, names).summary()
    assert many.endswith(", 5 more)") and many.count("category_") == SHOWN
    assert Teaching.from_labels({0: "a"}, ["a", "b", "c"]).summary() == "1 labels (per label: a 1, b 0, c 0)"
