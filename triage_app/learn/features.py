"""Every ticket of a file as TF-IDF words and bigrams, fitted once per file.

A retrain after a new label refits only the logistic regression: the vocabulary and the
[N, V] matrix stay as they are. The inverse document frequencies are fitted on every ticket
of the file, labelled or not, which is free information about which words are common.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer


class TicketFeatures:
    def __init__(self, texts: list[str]):
        # min_df=2: a word or bigram in one ticket alone can tell nothing about any other ticket,
        # and dropping them cuts the regression's columns (and its cost) by more than half
        self.vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2, dtype=np.float32)
        try:
            self.matrix: sparse.csr_matrix = self.vectorizer.fit_transform([str(t) for t in texts])   # [N, V]
        except ValueError:
            # no word anywhere (blank or punctuation-only tickets): no text to learn from
            self.matrix = sparse.csr_matrix((len(texts), 0), dtype=np.float32)

    @property
    def n(self) -> int:
        return self.matrix.shape[0]

    def rows(self, rows: np.ndarray) -> sparse.csr_matrix:
        return self.matrix[rows]
