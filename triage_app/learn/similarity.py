"""The sentence encoder as a zero-shot scorer: how near a ticket is to what each label says.

A label says what it is in its name, its description and its few-shot examples; each is
embedded by the same encoder as the tickets (engine/encoder.py, the caller's job: learn has no
torch), and the label's vector is the normalised mean of those (a prototype). A ticket's score
for a label is the cosine between the two, turned into log-probabilities by a temperature:
softmax(cos / T). With no labels from the person it is combined with the language model by a
fixed rule, log_softmax(z + ZERO_SHOT_WEIGHT x S); once the person has labelled a few tickets,
cross-validation weighs it against the language model and the learned part (learn/model.py).
Both constants were chosen on the development half of BANKING77 only (docs/learning/similarity.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax

from triage_app.engine.labels import LabelSet

# softmax(cos / T): fitted for the similarity's own log-loss (docs/learning/similarity.md)
TEMPERATURE = 0.05
# z + w x S with no person's labels: fitted against the bundled SmolLM2's channel scores
ZERO_SHOT_WEIGHT = 1.0


@dataclass(frozen=True, slots=True)
class LabelSimilarity:
    """The encoder's part for learn(): every ticket's similarity to each label, and the labels' prototypes
    it was measured against (learn() may take them as one more example of each label)."""

    scores: np.ndarray        # [N, L] log-probabilities softmax(cos / T)
    prototypes: np.ndarray    # [L, D] unit vectors

    @classmethod
    def of(cls, embeddings: np.ndarray, prototypes: np.ndarray) -> LabelSimilarity:
        return cls(similarity_scores(embeddings, prototypes), np.asarray(prototypes))


def label_texts(label_set: LabelSet) -> tuple[list[str], np.ndarray]:
    """Every text that says what a label is (its name, its description, its examples), and [X] the
    index of the label each says. The caller embeds them for label_vectors."""
    names = label_set.names
    texts, owners = [], []
    for k, label in enumerate(label_set.labels):
        for text in (label.name, label.description):
            if text.strip():
                texts.append(text)
                owners.append(k)
    for example in label_set.examples:
        if example.label in names and example.text.strip():
            texts.append(example.text)
            owners.append(names.index(example.label))
    return texts, np.asarray(owners, dtype=np.int64)


def label_vectors(text_vectors: np.ndarray, owners: np.ndarray, n_labels: int) -> np.ndarray:
    """[L, D] each label's prototype: the normalised mean of its texts' unit vectors [X, D]."""
    vectors = np.asarray(text_vectors, dtype=np.float64)
    sums = np.zeros((n_labels, vectors.shape[1]))                                     # [L, D]
    np.add.at(sums, owners, vectors)
    if not np.all(np.bincount(owners, minlength=n_labels)):
        missing = np.flatnonzero(np.bincount(owners, minlength=n_labels) == 0).tolist()
        raise ValueError(f"labels {missing} have no text to embed (a blank name)")
    return sums / np.linalg.norm(sums, axis=1, keepdims=True).clip(min=1e-12)


def similarity_scores(embeddings: np.ndarray, labels: np.ndarray, temperature: float = TEMPERATURE) -> np.ndarray:
    """[N, L] log-probabilities softmax(cos / T) from ticket embeddings [N, D] (L2-normalised, as the
    encoder gives them) and label prototypes [L, D]."""
    if not temperature > 0:
        raise ValueError(f"the similarity's temperature must be positive, not {temperature}")
    cosine = np.asarray(embeddings, dtype=np.float64) @ np.asarray(labels, dtype=np.float64).T   # [N, L]
    return log_softmax(cosine / temperature, axis=1)


def zero_shot(lm_scores: np.ndarray, similarity: np.ndarray, weight: float = ZERO_SHOT_WEIGHT) -> np.ndarray:
    """[N, L] the fixed rule with no person's labels: log_softmax(z + weight x S). A row the language
    model has not scored (NaN) stays unanswered: with no labels the language model's answer leads."""
    return log_softmax(np.asarray(lm_scores, dtype=np.float64) + weight * similarity, axis=1)
