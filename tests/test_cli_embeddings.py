"""classify --person-labels on the sentence encoder's embeddings, labels first, none of these, and --prune's
needs_review (issue 34 items 3, 4, 6, 7 on the command line).

The tiny random Qwen2 scores the tickets (near chance); the bundled encoder, loaded once per session,
embeds them. Every reference is computed here from the same parts: the language model's own scores
(a classify without --person-labels), the embeddings the cache holds, learn().
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from cli_helpers import read_rows, run_main
from encoder_helpers import bundled_encoder
from test_cli_learn import LABELS, NAMES, tickets, write_csv

from triage_app.engine.labels import LabelSet
from triage_app.files.clean import TextCleaning
from triage_app.files.embeddings import EmbeddingCache
from triage_app.learn import TicketFeatures, learn
from triage_app.learn.none_of_these import NONE_OF_THESE, fit_none_of_these
from triage_app.run.embedded import file_embeddings, load_encoder
from triage_app.run.labels_first import model_counts, unsure_rows

N, TAUGHT = 36, 18    # the first TAUGHT rows carry a person's label


@pytest.fixture
def encoder(tiny_model):
    """The bundled encoder the command line loads too (SentenceEncoder.bundled: once per process)."""
    return bundled_encoder()


@pytest.fixture
def taught_file(tmp_path):
    texts, gold = tickets(N, seed=5)
    rows = [[f"T{r}", t, g if r < TAUGHT else ""] for r, (t, g) in enumerate(zip(texts, gold))]
    return write_csv(tmp_path / "t.csv", ["id", "text", "queue"], rows), texts, {r: gold[r] for r in range(TAUGHT)}


def classify(capsys, tmp_path, path, out: str, *more):
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / out, "--db", tmp_path / "r.db", *LABELS, *more)
    assert code == 0, err
    return read_rows(tmp_path / out), err


def probabilities(rows) -> np.ndarray:
    return np.array([[float(r[f"p_{n}"] or "nan") for n in NAMES] for r in rows])     # a blank ticket's: none


def lm_scores(capsys, tmp_path, path) -> np.ndarray:
    """[N, L] the language model's own log-probabilities, from a classify that learns nothing."""
    plain, _ = classify(capsys, tmp_path, path, "plain.csv")
    return np.log(probabilities(plain))


def reference(tmp_path, texts, encoder, lm, labels):
    """learn() on the embeddings the cache holds and the similarity to the label names, as classify should."""
    with EmbeddingCache(tmp_path / "r.db") as cache:
        found = file_embeddings(texts, TextCleaning(), encoder, cache, {"label": LabelSet.from_names(NAMES)})
    return learn(found.features, lm, labels, NAMES, similarity=found.similarity["label"])


def embedded_rows(db) -> dict[str, float]:
    """text hash -> when its vector was saved (an INSERT OR REPLACE would move it); none without the table."""
    with sqlite3.connect(db) as connection:
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'embeddings'").fetchone():
            return {}
        return dict(connection.execute("SELECT text_hash, created FROM embeddings"))


def test_learning_is_on_embeddings_and_a_second_classify_embeds_nothing(tmp_path, capsys, tiny_model, encoder,
                                                                        taught_file):
    path, texts, labels = taught_file
    lm = lm_scores(capsys, tmp_path, path)
    first, err = classify(capsys, tmp_path, path, "first.csv", "--person-labels", "queue")
    assert any("embedding" in line for line in err)
    stored = embedded_rows(tmp_path / "r.db")
    assert len(stored) == len(set(texts)) + len(NAMES)       # every distinct ticket and every label name, once
    want = reference(tmp_path, texts, encoder, lm, labels)   # reads the cache: embeds nothing more
    assert [r["label"] for r in first[TAUGHT:]] == want.label_names()[TAUGHT:]
    np.testing.assert_allclose(probabilities(first[TAUGHT:]), np.exp(want.scores[TAUGHT:]), atol=1e-6)
    second, _ = classify(capsys, tmp_path, path, "second.csv", "--person-labels", "queue")
    assert embedded_rows(tmp_path / "r.db") == stored        # not one vector saved again (created is when)
    assert second == first


def test_encoder_none_learns_on_tfidf_as_before(tmp_path, capsys, tiny_model, encoder, taught_file):
    path, texts, labels = taught_file
    lm = lm_scores(capsys, tmp_path, path)
    out, _ = classify(capsys, tmp_path, path, "none.csv", "--person-labels", "queue", "--encoder", "none")
    want = learn(TicketFeatures(texts), lm, labels, NAMES)
    assert [r["label"] for r in out] == want.label_names()
    np.testing.assert_allclose(probabilities(out[TAUGHT:]), np.exp(want.scores[TAUGHT:]), atol=1e-6)
    assert embedded_rows(tmp_path / "r.db") == {}


def test_labels_first_sends_nothing_the_weighing_leaves_out_and_answers_as_the_run_of_every_ticket(
        tmp_path, capsys, tiny_model, encoder, taught_file):
    # the bundled model on this file: cross-validation on the labelled rows leaves its scores out (a = 0), so
    # no unsure ticket is sent, and every answer is still the one the run of every ticket gives (the path that
    # sends, with a model that counts: tests/test_labels_first.py)
    path, texts, labels = taught_file
    lm = lm_scores(capsys, tmp_path, path)
    full, _ = classify(capsys, tmp_path, path, "full.csv", "--person-labels", "queue")
    alone = np.full_like(lm, np.nan)
    alone[:TAUGHT] = lm[:TAUGHT]
    first = reference(tmp_path, texts, encoder, alone, labels)
    sure = float(np.median(first.answers.confidence[TAUGHT:]))
    assert not model_counts(first)
    out, err = classify(capsys, tmp_path, path, "first.csv", "--person-labels", "queue", "--labels-first", repr(sure))
    read = np.array([r["read_by_model"] == "True" for r in out])
    assert read.tolist() == [r < TAUGHT for r in range(N)]      # the labelled rows fit the parts' weights
    assert [r["label"] for r in out] == [r["label"] for r in full]
    np.testing.assert_allclose(probabilities(out), probabilities(full), atol=1e-6)
    unsure = len(unsure_rows(first, sure))
    assert unsure and any(f"the {unsure} under {100 * sure:g}% sure are not sent" in line for line in err)
    assert f"{N} tickets, labels first: {TAUGHT} read by the language model ({TAUGHT} labelled, 0 unsure, {unsure} " \
           f"unsure not sent: the model's scores count for nothing on your labels), {N - TAUGHT} not -> " \
           f"{tmp_path / 'first.csv'}" in err


def test_labels_first_and_none_of_these_need_the_persons_labels(tmp_path, capsys, tiny_model, taught_file):
    path = taught_file[0]
    for flag in (["--labels-first"], ["--none-of-these"]):
        code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "o.csv", *flag, *LABELS)
        # refused once the database says the window gave the file no labels: before the model loads
        assert code == 2 and err[0].startswith("results database: ") and err[1:] == [
            f"triage-app: {flag[0]} answers from the person's labels: label tickets in the window, or name their "
            "column with --person-labels"]


def test_none_of_these_labels_the_unsure_and_leaves_them_out_of_the_updates(tmp_path, capsys, tiny_model, encoder,
                                                                            taught_file):
    path, texts, labels = taught_file
    # tickets that name no label (filler words only), unlabelled, after the file's own
    off_topic = ["please help today thanks", "hello again team", "urgent thanks again hello"]
    blank = ["", "   "]      # nothing to read: never "none of these", never a label (a hunt's finding)
    texts = texts + off_topic + blank
    rows = [[f"T{r}", t, labels.get(r, "")] for r, t in enumerate(texts)]
    path = write_csv(tmp_path / "t.csv", ["id", "text", "queue"], rows)
    lm = lm_scores(capsys, tmp_path, path)
    out, err = classify(capsys, tmp_path, path, "out.csv", "--person-labels", "queue", "--none-of-these",
                        "--updates", tmp_path / "up.csv", "--apply-above", "0")
    want = reference(tmp_path, texts, encoder, lm, labels)
    fitted = fit_none_of_these(want.cross_validated)
    misfit = [r for r in range(TAUGHT, len(texts)) if want.confidence[r] < fitted.threshold]
    assert misfit and [r for r, row in enumerate(out) if row["label"] == NONE_OF_THESE] == misfit
    assert f"none of these: {len(misfit)} tickets; {fitted.line()}" in err
    assert [(row["label"], row["source"]) for row in out[-2:]] == [("", "model")] * 2
    sent = {row["id"] for row in read_rows(tmp_path / "up.csv")}
    assert sent == {f"T{r}" for r in range(TAUGHT, len(texts) - 2) if r not in misfit}  # the person's: the file's already
    first, err = classify(capsys, tmp_path, path, "first.csv", "--person-labels", "queue", "--none-of-these",
                          "--labels-first")
    assert [(row["label"], row["source"]) for row in first[-2:]] == [("", "model")] * 2
    assert f"none of these: {len(misfit)} tickets; {fitted.line()}" in err


def test_an_encoder_folder_that_cannot_load_is_one_line_and_a_missing_bundle_falls_back(tmp_path, capsys,
                                                                                       monkeypatch, taught_file):
    from triage_app.cli import options
    from triage_app.engine import encoder

    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))
    code, _, err = run_main(capsys, "classify", taught_file[0], "-o", tmp_path / "o.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "queue", "--encoder", tmp_path / "nowhere", *LABELS)
    assert code == 2 and err[-1] == f"triage-app: {tmp_path / 'nowhere'}: no config.json, not a sentence encoder folder"
    monkeypatch.setattr(encoder, "BUNDLE", "no_such_encoder_package")
    said = []
    assert load_encoder("bundled", said.append) is None
    assert len(said) == 1 and said[0].startswith("note: the bundled sentence encoder is missing") \
        and said[0].endswith("learning on TF-IDF instead")


def test_a_pruned_run_leaves_needs_review_empty_where_its_bound_cannot_tell(tmp_path, capsys, tiny_model,
                                                                          taught_file):
    out, _ = classify(capsys, tmp_path, taught_file[0], "pruned.csv", "--prune")
    under = [float(r["confidence"]) < 0.7 for r in out]
    assert any(under)
    assert [r["needs_review"] for r in out] == ["" if u else "False" for u in under]


def test_eval_learning_curve_takes_the_encoder_classify_takes(tmp_path, capsys, tiny_model, encoder):
    texts, gold = tickets(60, seed=3)
    path = write_csv(tmp_path / "g.csv", ["text", "category"], list(zip(texts, gold)))
    for chosen, named in (("none", ""), ("bundled", ", sentence encoder all-MiniLM-L6-v2")):
        code, stdout, err = run_main(capsys, "eval", path, "--learning-curve", "--draws", "1", "--encoder", chosen,
                                     *LABELS)
        assert code == 0, err
        assert f"{named}: 60 tickets, 3 labels;" in stdout


def test_labels_first_never_sends_back_the_labels_the_window_took_from_the_files_column(tmp_path, capsys, tiny_model,
                                                                                         encoder, taught_file):
    """Labels ▸ Labels from a column stores the file's own values (origin file): an every-ticket run leaves them
    out of the updates, and so does labels first (it once sent them as a person's, over a helpdesk's newer value)."""
    from triage_app.files.opening import open_tickets
    from triage_app.files.store import ResultStore
    from triage_app.files.ticket_keys import file_key, row_hashes

    path, texts, labels = taught_file
    table = open_tickets(path, None, None, guess=False).table
    hashes, taken = row_hashes(table.frame), {TAUGHT: NAMES[0], TAUGHT + 1: NAMES[1]}
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path, table.sheet), {r: (hashes[r], label) for r, label in taken.items()},
                                from_file=set(taken))
    for flag in ([], ["--labels-first"]):
        classify(capsys, tmp_path, path, "out.csv", "--person-labels", "queue", "--updates", tmp_path / "up.csv",
                 "--apply-above", "0", *flag)
        sent = {row["id"] for row in read_rows(tmp_path / "up.csv")}
        assert sent and not sent & {f"T{r}" for r in taken}, flag


def test_a_ticket_the_person_marked_none_of_these_in_the_column_is_answered_so_and_never_sent(
        tmp_path, capsys, tiny_model, taught_file):
    """With --none-of-these, the column's "None of these" is the person's answer for the ticket (it was a value
    that is no label, left out, and the learned label went to the helpdesk); it tells how many such tickets the
    threshold catches."""
    path, texts, labels = taught_file
    rows = [[f"T{r}", t, labels.get(r, "")] for r, t in enumerate(texts)]
    rows[TAUGHT][2] = "None of these"                                 # a ticket that fits no queue, the person says
    path = write_csv(tmp_path / "t.csv", ["id", "text", "queue"], rows)
    out, err = classify(capsys, tmp_path, path, "out.csv", "--person-labels", "queue", "--none-of-these",
                        "--updates", tmp_path / "up.csv", "--apply-above", "0")
    assert (out[TAUGHT]["label"], out[TAUGHT]["person"], out[TAUGHT]["source"]) == (NONE_OF_THESE, "True", "person")
    assert f"T{TAUGHT}" not in {row["id"] for row in read_rows(tmp_path / "up.csv")}
    said = "\n".join(err)
    assert "of your misfits caught" in said and "not a label" not in said
    # labels first: the person's answer is neither a label the model reads first nor an unsure one it is sent
    first, err = classify(capsys, tmp_path, path, "first.csv", "--person-labels", "queue", "--none-of-these",
                          "--labels-first")
    said = "\n".join(err)
    assert (first[TAUGHT]["label"], first[TAUGHT]["source"]) == (NONE_OF_THESE, "person")
    assert first[TAUGHT]["read_by_model"] == "False" and f"({TAUGHT} labelled, " in said
    assert "of your misfits caught" in said and "none of these: 1 tickets" not in said


def test_labels_given_in_the_window_teach_the_rest_as_a_column_of_them_does(tmp_path, capsys, tiny_model, encoder,
                                                                           taught_file):
    # a hunt's finding: without --person-labels the window's labels were the answers of their rows only, and
    # every other ticket got the language model's answer, where the window answers from those labels
    from triage_app.files.opening import open_tickets
    from triage_app.files.store import ResultStore
    from triage_app.files.ticket_keys import file_key, ticket_row_hashes
    from triage_app.review.person_labels import PersonLabels

    path, texts, labels = taught_file
    column, _ = classify(capsys, tmp_path, path, "column.csv", "--person-labels", "queue")
    opened = open_tickets(path)
    person = PersonLabels(file_key(path), ticket_row_hashes(opened.table))
    with ResultStore(tmp_path / "window.db") as store:
        for row, label in labels.items():
            store.set_person_labels(person.file, person.give(row, label))
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "window.csv", "--db", tmp_path / "window.db",
                            *LABELS)
    assert code == 0, err
    window = read_rows(tmp_path / "window.csv")
    assert [r["source"] for r in window] == ["person"] * TAUGHT + ["learned"] * (N - TAUGHT)
    assert [r["label"] for r in window] == [r["label"] for r in column]
    np.testing.assert_allclose(probabilities(window), probabilities(column), atol=1e-6)
    # a person's row shows the language model's own scores, as the window does (the label is theirs)
    np.testing.assert_allclose(probabilities(window[:TAUGHT]), np.exp(lm_scores(capsys, tmp_path, path)[:TAUGHT]),
                               atol=1e-6)


def test_a_window_label_that_falls_on_no_ticket_changes_no_answer(tmp_path, capsys, tiny_model, taught_file):
    # a review's finding: a label whose ticket was edited since (not used) still turned learning on, and every
    # answer moved; with no label used the command line gives the language model's own answers
    from triage_app.files.store import ResultStore
    from triage_app.files.ticket_keys import file_key

    path = taught_file[0]
    plain, _ = classify(capsys, tmp_path, path, "plain.csv")
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path), {0: ("a ticket edited since", NAMES[0])})
    out, err = classify(capsys, tmp_path, path, "stale.csv")
    assert out == plain and any("no longer in this file" in line for line in err)
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "o.csv", "--db", tmp_path / "r.db", *LABELS,
                            "--labels-first")
    assert code == 2 and "answers from the person's labels" in err[-1]
