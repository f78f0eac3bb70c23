"""The file's embedding features: every ticket's sentence vector and its similarity to each label.

What the command line, the bench (and the window's worker, in time) learn a person's labels on
(issue 34): the file's cleaned texts embedded once per distinct text, read from and saved to the
results database's embedding cache (files/embeddings.py), so a second run embeds nothing; the
learned part's features are those vectors (learn.TicketFeatures), and each label set's similarity
scores (learn/similarity.py) a third part for learn() to weigh. No Qt here.

Which encoder: the bundled all-MiniLM-L6-v2 (hash-checked), none (TF-IDF, as before embeddings), or
a folder of the person's own, loaded through the same SentenceEncoder path (no hashes to check: it
is theirs). A missing bundled encoder falls back to TF-IDF with a line; an encoder the person named
that cannot load is refused (EncoderRefused, one line).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from triage_app.engine.config import BUNDLED_ENCODER
from triage_app.engine.encoder import BATCH, EncoderRefused, SentenceEncoder
from triage_app.engine.labels import LabelSet
from triage_app.files.clean import TextCleaning, model_texts
from triage_app.files.embeddings import EmbeddingCache, embedded
from triage_app.learn import LabelSimilarity, TicketFeatures, label_texts, label_vectors


@dataclass(frozen=True, slots=True)
class FileEmbeddings:
    """What a file's embeddings give learning: its features, and per label set (by name) the encoder's
    similarity to each label with the labels' prototypes (learn.LabelSimilarity)."""

    features: TicketFeatures
    similarity: dict[str, LabelSimilarity]


def load_encoder(spec: str, log: Callable[[str], None] = lambda line: None) -> SentenceEncoder | None:
    """spec: bundled, none, or a folder. None: learn on TF-IDF (asked for, or the bundled one missing,
    said in a line); a folder that cannot load raises EncoderRefused."""
    try:
        return SentenceEncoder.chosen(spec)
    except EncoderRefused as exc:
        if spec != BUNDLED_ENCODER:
            raise
        log(f"note: {exc}; learning on TF-IDF instead")
        return None


def file_embeddings(texts: list[str], cleaning: TextCleaning, encoder: SentenceEncoder, cache: EmbeddingCache,
                    label_sets: Mapping[str, LabelSet], progress: Callable[[int, int], None] | None = None,
                    stop: Callable[[], bool] | None = None) -> FileEmbeddings:
    """The file's features and each label set's similarity. Each distinct cleaned text is embedded once,
    length-sorted in batches of BATCH, and only if the cache lacks it; progress(done, total) counts
    distinct texts, the stored ones first; stop() between batches raises EmbeddingCancelled."""
    vectors = embedded(model_texts(texts, cleaning), encoder, cache, BATCH, progress, stop)     # [N, D]
    similarity = {name: label_similarity(vectors, label_set, encoder, cache) for name, label_set in label_sets.items()}
    return FileEmbeddings(TicketFeatures(texts, vectors), similarity)


def label_similarity(vectors: np.ndarray, label_set: LabelSet, encoder: SentenceEncoder,
                     cache: EmbeddingCache) -> LabelSimilarity:
    """Each ticket's similarity to the label set's prototypes (its names, descriptions, examples), and those."""
    texts, owners = label_texts(label_set)
    prototypes = label_vectors(embedded(texts, encoder, cache), owners, len(label_set.names))   # [L, D]
    return LabelSimilarity.of(vectors, prototypes)
