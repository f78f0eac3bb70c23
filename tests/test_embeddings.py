"""The embedding cache, in a real results database: a ticket is embedded once, whatever comes after."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from encoder_helpers import bundled_encoder

from triage_app.files.embeddings import EmbeddingCache, embedded
from triage_app.files.store import ResultStore, text_hash

pytestmark = pytest.mark.model     # loads the encoder: not in scripts/test --fast

TEXTS = ["My card hasn't arrived yet", "reset password", "My card hasn't arrived yet", "Where is my refund?"]


@pytest.fixture(scope="session")
def minilm():
    return bundled_encoder()


class Counting:
    """The real encoder, counting the texts it is asked to embed."""

    def __init__(self, encoder):
        self.encoder, self.asked = encoder, []
        self.identity, self.dimensions = encoder.identity, encoder.dimensions

    def embed_batches(self, texts, batch_size=32):
        self.asked += list(texts)
        return self.encoder.embed_batches(texts, batch_size)


def test_a_ticket_is_embedded_once_across_runs_and_restarts(tmp_path, minilm):
    path = tmp_path / "results.sqlite3"
    counting = Counting(minilm)
    with EmbeddingCache(path) as cache:
        first = embedded(TEXTS, counting, cache, batch_size=2)
    assert sorted(counting.asked) == sorted(set(TEXTS))     # the repeated ticket embedded once
    np.testing.assert_array_equal(first[0], first[2])
    counting.asked.clear()
    with EmbeddingCache(path) as cache:                      # a restart: a new connection, same file
        again = embedded(TEXTS + ["top up failed"], counting, cache)
    assert counting.asked == ["top up failed"]
    np.testing.assert_array_equal(again[:4], first)          # fresh or read back, the same features
    np.testing.assert_allclose(first, minilm.embed(TEXTS), atol=2e-3)


def test_a_ticket_with_nothing_to_read_gets_no_vector_and_learning_leaves_it_unanswered(tmp_path, minilm):
    # a hunt's finding: a blank ticket was embedded like any text, and learning labelled it
    from triage_app.learn import MODEL, PERSON, TicketFeatures, learn

    counting = Counting(minilm)
    texts = ["", *TEXTS, "   "]
    with EmbeddingCache(tmp_path / "results.sqlite3") as cache:
        vectors = embedded(texts, counting, cache)
        assert cache.count(minilm.identity) == 3 and "" not in counting.asked
    assert not vectors[[0, -1]].any() and vectors[1:-1].any(axis=1).all()
    features = TicketFeatures(texts, vectors)
    assert features.blank.tolist() == [True, False, False, False, False, True]
    learned = learn(features, np.full((6, 2), np.nan), {1: "card", 2: "account", 0: "card"}, ["card", "account"])
    assert np.isnan(learned.scores[-1]).all() and learned.labels[-1] < 0 and learned.sources[-1] == MODEL
    assert learned.label_names()[0] == "card" and learned.sources[0] == PERSON     # a person's label stays theirs
    assert np.isfinite(learned.scores[3:5]).all()


def test_vectors_are_kept_as_float16_keyed_by_text_and_encoder(tmp_path, minilm):
    path = tmp_path / "results.sqlite3"
    with EmbeddingCache(path) as cache:
        embedded(TEXTS, minilm, cache)
        assert cache.count(minilm.identity) == 3
        assert cache.lookup("another-encoder:0000", [text_hash(TEXTS[0])]) == {}
    rows = sqlite3.connect(path).execute("SELECT text_hash, length(vector) FROM embeddings").fetchall()
    assert {size for _, size in rows} == {384 * 2}
    assert {key for key, _ in rows} == {text_hash(t) for t in TEXTS}


def test_the_cache_shares_the_results_database(tmp_path, minilm):
    path = tmp_path / "results.sqlite3"
    with ResultStore(path):
        pass
    with EmbeddingCache(path) as cache:
        embedded(TEXTS[:1], minilm, cache)
    with ResultStore(path):      # the store still opens the file, its tables untouched
        pass
    tables = {name for (name,) in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"results", "person_labels", "embeddings"} <= tables


def test_a_stop_keeps_the_finished_batches(tmp_path, minilm):
    from triage_app.engine.encoder import EmbeddingCancelled
    path = tmp_path / "results.sqlite3"
    with EmbeddingCache(path) as cache:
        with pytest.raises(EmbeddingCancelled):
            embedded(TEXTS, minilm, cache, batch_size=1, stop=lambda: True)
        assert cache.count(minilm.identity) == 1


def test_a_database_that_is_not_one_is_named_in_one_line(tmp_path):
    from triage_app.files.store_errors import StoreUnavailable
    path = tmp_path / "results.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailable, match="results.sqlite3"):
        EmbeddingCache(path)
