"""A file's embedding as the window runs it (ui/background/embedding.TicketEmbedding, no Qt): each distinct
cleaned text embedded once, shortest first across the whole file, and every row's vector in row order,
through steps small enough here that each of them (cleaning, ordering, chunks, the final copy) runs often."""

from __future__ import annotations

import numpy as np

from encoder_helpers import bundled_encoder
from triage_app.files.clean import TextCleaning, model_texts
from triage_app.files.embeddings import EmbeddingCache
from triage_app.ui.background import embedding

TEXTS = ["Refund please", "My card was charged twice for one order, please send the money back",
         "Refund please", "Login fails", "The parcel never came and tracking has not moved for a week",
         "Password reset link expired", "Login fails", "Where is my parcel?",
         "I was charged twice", "Cancel my subscription before the next renewal date, thank you"]


def test_each_distinct_text_is_embedded_once_shortest_first_and_every_row_gets_its_vector(tmp_path, monkeypatch):
    monkeypatch.setattr(embedding, "CLEAN_ROWS", 3)
    monkeypatch.setattr(embedding, "CHUNK", 2)
    encoder = bundled_encoder()
    asked: list[str] = []
    batch = encoder.embed_batch
    monkeypatch.setattr(encoder, "embed_batch", lambda texts: asked.extend(texts) or batch(texts))
    cleaning = TextCleaning()
    job = embedding.TicketEmbedding(1, TEXTS, cleaning)
    with EmbeddingCache(tmp_path / "results.sqlite3") as cache:
        job.start(encoder, cache, stop=lambda: False, report=lambda progress: None)
        for _ in job.running:
            pass
        vectors = job.vectors()

    clean = model_texts(TEXTS, cleaning)
    distinct = list(dict.fromkeys(clean))
    assert sorted(asked) == sorted(distinct), "a text embedded twice, or one left out"
    assert [len(t) for t in asked] == sorted(len(t) for t in asked), "not shortest first across the file"
    assert job.total == job.fresh == len(distinct)
    assert vectors.shape == (len(TEXTS), encoder.dimensions) and vectors.dtype == np.float32
    alone = encoder.embed(clean)                                     # [N, D] each row on its own
    assert np.allclose(vectors, alone, atol=2e-3), "a row got another text's vector"
