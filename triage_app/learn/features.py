"""Every ticket of a file as TF-IDF words and bigrams, fitted once per file.

A retrain after a new label refits only the logistic regression: the vocabulary and the
[N, V] matrix stay as they are. The inverse document frequencies are fitted on every ticket
of the file, labelled or not, which is free information about which words are common.

It is built in slices of rows because it runs beside the window's event loop: TfidfVectorizer
on a whole 100k-ticket file sorts its vocabulary and converts every index in single calls that
hold the GIL, which froze the window for over a second (docs/learning/README.md). Here the
words and bigrams are scikit-learn's (CountVectorizer's analyzer), counted a slice at a time,
numbered in the order they first appear (never sorted), and weighed as TfidfTransformer weighs them,
a slice at a time: the same columns as TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True,
min_df=2), in another order.
Every step over the whole file is a slice at a time or one call short enough (the stalls it
leaves are measured in docs/learning/README.md).

Given sentence embeddings (files.embeddings.embedded: [N, D], L2-normalised), the features are those
instead: a dense matrix the same regression learns from, with no vocabulary to fit. With a handful
of labels per label they tell paraphrases apart where words cannot (docs/learning/embeddings.md).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

from triage_app.learn.neighbours import copies, nearest
from triage_app.quiet import silenced

SLICE = 500                 # rows per call that holds the GIL: a few ms each
SHARDS = 256                # dicts the vocabulary is spread over (see _counts)
REGION_SAMPLE = 10_000      # tickets the regions of the embedding space are fitted on


class TicketFeatures:
    """blank: [N] the tickets with nothing to read, which learning never answers."""

    def __init__(self, texts: list[str], embeddings: np.ndarray | None = None):
        self._regions: dict[int, np.ndarray] = {}
        self._near: tuple[np.ndarray | None] | None = None
        self._copies: np.ndarray | None = None
        if embeddings is not None:
            self.matrix = _embedding_matrix(texts, embeddings)                           # [N, D]
            # files.embeddings.embedded gives a text with nothing to read no vector (a row of zeros)
            self.blank = ~self.matrix.any(axis=1)
            return
        self.blank = np.array([not str(t).strip() for t in texts], dtype=bool)          # [N] nothing to read
        slices, width = _counts([str(t) for t in texts])                            # [S, every term] each
        # min_df=2: a word or bigram in one ticket alone can tell nothing about any other ticket,
        # and dropping them cuts the regression's columns (and its cost) by more than half
        found = np.zeros(width, dtype=np.int64)                                      # [every term] tickets holding it
        for s in slices:
            np.add.at(found, s.indices.astype(np.intp), 1)   # a slice at a time: one bincount held the GIL
        shared = found >= 2
        columns = int(shared.sum())
        kept = np.full(width, -1, dtype=np.int64)                                   # [every term] new column or -1
        kept[shared] = np.arange(columns)
        counts = [_columns(s, kept, columns) for s in slices]
        if not columns:   # no word shared by two tickets (blank or punctuation-only): nothing to learn from
            self.matrix = sparse.csr_matrix((len(texts), 0), dtype=np.float32)
            return
        idf = _idf(found[shared], len(texts))                                        # [V]
        self.matrix: sparse.csr_matrix = _stacked([_weighed(c, idf) for c in counts], columns)   # [N, V]

    @classmethod
    def both(cls, texts: list[str], embeddings: np.ndarray) -> TicketFeatures:
        """The words' TF-IDF and the sentence embedding side by side, one sparse matrix [N, V + D]."""
        out = cls(texts)
        out.matrix = sparse.hstack([out.matrix, sparse.csr_matrix(_embedding_matrix(texts, embeddings))], format="csr")
        return out

    @property
    def n(self) -> int:
        return self.matrix.shape[0]

    @property
    def are_embeddings(self) -> bool:
        return not sparse.issparse(self.matrix)

    def rows(self, rows: np.ndarray) -> sparse.csr_matrix | np.ndarray:
        return self.matrix[rows]

    def regions(self, count: int) -> np.ndarray:
        """[N] each ticket's region of the embedding space: k-means into `count` regions (fewer on a
        small file), seeded, fitted once per count and kept: the embeddings never change with the labels."""
        count = max(1, min(count, self.n))
        if count not in self._regions:
            self._regions[count] = _regions(self.matrix, count)
        return self._regions[count]

    def neighbours(self) -> np.ndarray | None:
        """[N, K] each ticket's nearest tickets (learn/neighbours.py), found once and kept: the embeddings
        never change with the labels. None for TF-IDF (its nearest are not what a ticket means) and for a
        file too small to have neighbours."""
        if self._near is None:
            with threadpool_limits(limits=1):       # as _regions: no spinning threads on a busy CPU
                self._near = (nearest(self.matrix, same=self.copies()) if self.are_embeddings else None,)
        return self._near[0]

    def copies(self) -> np.ndarray:
        """[N] each ticket's first row with the same embedding (learn/neighbours.copies), found once and kept."""
        if self._copies is None:
            self._copies = copies(self.matrix)
        return self._copies


def _embedding_matrix(texts: list[str], embeddings: np.ndarray) -> np.ndarray:
    matrix = np.asarray(embeddings, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(texts):
        raise ValueError(f"embeddings of shape {matrix.shape} for {len(texts)} tickets: one row per ticket needed")
    return matrix


def _regions(matrix: np.ndarray, count: int) -> np.ndarray:
    if not isinstance(matrix, np.ndarray):
        raise ValueError("regions of the space need sentence embeddings, not TF-IDF")
    # fitted on a seeded sample: regions for a queue of tens need no more, and k-means over all of
    # a 100,000-ticket file would hold up its first queue
    sample = np.random.default_rng(0).permutation(len(matrix))[:REGION_SAMPLE] if len(matrix) > REGION_SAMPLE \
        else np.arange(len(matrix))
    kmeans = KMeans(n_clusters=count, random_state=0, n_init=1, max_iter=30)
    # one thread: OpenMP's threads spin waiting for each other on a busy CPU (docs/learning/embeddings.md)
    # duplicates can leave fewer distinct points than regions
    with silenced(ConvergenceWarning), threadpool_limits(limits=1):
        kmeans.fit(matrix[sample])
        return np.concatenate([kmeans.predict(matrix[i:i + 10 * SLICE]) for i in range(0, len(matrix), 10 * SLICE)]
                              ).astype(np.int64)


def _counts(texts: list[str]) -> tuple[list[sparse.csr_matrix], int]:
    """Slices of [SLICE, T]: how often each ticket holds each word and bigram, T numbered as they first appear."""
    analyze = CountVectorizer(ngram_range=(1, 2)).build_analyzer()
    # A dict that outgrows its table copies every entry in one call that holds the GIL: with one
    # vocabulary of a big file's million-odd terms, that alone stalled the window. Spread over
    # SHARDS dicts (by the term's hash, which Python caches on the string), each copy is small.
    # A new term in any of them takes the next column, so columns still number first appearances.
    new_column = itertools.count().__next__
    shards = [defaultdict(new_column) for _ in range(SHARDS)]
    parts = []
    for start in range(0, len(texts), SLICE):
        columns, ends = [], [0]
        for text in texts[start:start + SLICE]:
            terms = analyze(text)
            # shards[hash(term) % SHARDS][term] for each term, in C calls (cheaper than a generator's)
            homes = map(shards.__getitem__, map(SHARDS.__rmod__, map(hash, terms)))
            columns.extend(map(defaultdict.__getitem__, homes, terms))
            ends.append(len(columns))
        parts.append((np.asarray(columns, dtype=np.int64), np.asarray(ends, dtype=np.int64)))
    width = new_column()                                                             # one past the last column
    while shards:      # freed one dict at a time: freeing every term at once holds the GIL as long
        shards.pop()
    slices = [sparse.csr_matrix((np.ones(len(c), np.float32), c, e), shape=(len(e) - 1, width)) for c, e in parts]
    for s in slices:
        s.sum_duplicates()                                                           # a term twice in a ticket: 2
    return slices, width


def _idf(found: np.ndarray, n: int) -> np.ndarray:
    """[V] TfidfTransformer(smooth_idf=True)'s inverse document frequencies, in its float32 steps, from
    the tickets holding each term as counted a slice at a time: its fit reads them off the whole
    matrix, stacked in one call (the stall it made is in docs/files.md)."""
    df = found.astype(np.float32) + np.float32(1)                                 # [V] smoothed
    idf = np.full_like(df, n + 1)
    idf /= df
    np.log(idf, out=idf)
    idf += 1.0
    return idf


def _weighed(counts: sparse.csr_matrix, idf: np.ndarray) -> sparse.csr_matrix:
    """A slice's counts [S, V] weighed as TfidfTransformer(sublinear_tf=True).transform weighs them."""
    x = counts.copy()
    np.log(x.data, out=x.data)
    x.data += 1.0
    x.data *= idf[x.indices]
    return normalize(x, norm="l2", copy=False)


def _stacked(slices: list[sparse.csr_matrix], width: int) -> sparse.csr_matrix:
    """[N, width] the slices' rows one under another, copied a slice at a time: sparse.vstack copies
    every row in calls over the whole matrix."""
    nnz, rows = sum(s.nnz for s in slices), sum(s.shape[0] for s in slices)
    index = np.int32 if max(nnz, width) < np.iinfo(np.int32).max else np.int64
    data, indices = np.empty(nnz, np.float32), np.empty(nnz, index)
    indptr = np.zeros(rows + 1, index)
    at = row = 0
    for s in slices:
        data[at:at + s.nnz], indices[at:at + s.nnz] = s.data, s.indices
        indptr[row + 1:row + 1 + s.shape[0]] = s.indptr[1:] + at
        at, row = at + s.nnz, row + s.shape[0]
    return sparse.csr_matrix((data, indices, indptr), shape=(rows, width))


def _columns(x: sparse.csr_matrix, kept: np.ndarray, width: int) -> sparse.csr_matrix:
    """x's columns where kept >= 0, numbered kept: scipy's x[:, cols] walks every column in one long call."""
    at = kept[x.indices]                                                             # [nnz] new column, or -1
    keep = at >= 0
    ends = np.concatenate([[0], np.cumsum(keep)])[x.indptr]                          # [rows + 1]
    return sparse.csr_matrix((x.data[keep], at[keep], ends), shape=(x.shape[0], width))
