"""The file's tickets as a graph: each ticket's nearest tickets by their sentence embeddings, and the
learned part's answers smoothed over it.

Tickets that say the same thing sit close together, labelled or not. Averaging each ticket's learned
probabilities with its neighbours' (the person's labelled tickets held at their labels) carries a
label to the paraphrases a handful of examples missed: on BANKING77's development half it added
points at every k tried, where label spreading alone lost (docs/learning/embeddings.md). learn()
takes it only where the labelled rows' cross-validated answers say it helps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

NEAREST = 10          # neighbours of each ticket
POOL = 5_000          # rows searched for them: every row of a file up to this size, a seeded sample past it
ROUNDS = 2            # each round halfway to the neighbours' mean
STEP = 256            # rows per product: each argpartition holds the GIL a few ms
SLICE = 4096          # rows smoothed per step


def copies(matrix: np.ndarray) -> np.ndarray:
    """[N] each row's first row with the same embedding: a ticket and its exact copies are one node of the graph."""
    rows = np.ascontiguousarray(matrix)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first[inverse.ravel()]


def nearest(matrix: np.ndarray, k: int = NEAREST, pool: int = POOL, seed: int = 0,
            same: np.ndarray | None = None) -> np.ndarray | None:
    """[N, k] each row's k most similar other tickets (dot product of L2-normalised rows: the cosine);
    None when the file has too few distinct tickets to have neighbours. A ticket's exact copies (same:
    copies(matrix)) are not its neighbours but the same node, with its neighbours: among a dozen copies
    tied at cosine 1, which ones were taken would be the rows' order, not what they say. Past `pool`
    rows the neighbours are searched among a seeded sample of that many: the cost stays N x pool (a
    100,000-ticket file searched whole would take minutes; docs/learning/embeddings.md), and a ticket's
    nearest among thousands still say what it is."""
    same = copies(matrix) if same is None else same
    firsts = np.unique(same)
    if len(firsts) < len(matrix):
        near = _nearest(matrix[firsts], k, pool, seed)
        return None if near is None else firsts[near[np.searchsorted(firsts, same)]]
    return _nearest(matrix, k, pool, seed)


def _nearest(matrix: np.ndarray, k: int, pool: int, seed: int) -> np.ndarray | None:
    n = len(matrix)
    k = min(k, n - 1)
    if k < 1:
        return None
    among = np.sort(np.random.default_rng(seed).permutation(n)[:pool]) if n > pool else np.arange(n)
    candidates = np.ascontiguousarray(matrix[among], dtype=np.float32).T                     # [D, P]
    itself = np.full(n, -1, dtype=np.int64)
    itself[among] = np.arange(len(among))
    out = np.empty((n, k), dtype=np.int64)
    for start in range(0, n, STEP):
        block = np.asarray(matrix[start:start + STEP], dtype=np.float32) @ candidates           # [B, P]
        own = itself[start:start + STEP]
        inside = np.flatnonzero(own >= 0)
        block[inside, own[inside]] = -np.inf                                                  # not its own neighbour
        out[start:start + STEP] = among[np.argpartition(block, block.shape[1] - k, axis=1)[:, -k:]]
    return out


def smoothed(probabilities: Callable[[np.ndarray], np.ndarray], rows: np.ndarray, near: np.ndarray,
             held: np.ndarray, targets: np.ndarray, n_labels: int, same: np.ndarray | None = None) -> np.ndarray:
    """[R, L] log-probabilities of `rows` after ROUNDS rounds of p <- (p + mean of p over the row's
    neighbours) / 2, the `held` rows set to their `targets` before each round. same (copies()): a held
    row's copies are held with it, at the mean of the labels the person gave the copies (two and two:
    half and half), whichever rows those are.

    probabilities: file rows [M] -> [M, L] the learned part's probabilities. Only the rows a round
    reads are computed: `rows`, their neighbours, and theirs, so a fold of cross-validation costs its
    held-out rows' neighbourhood, not the whole file; over every row it is the whole file's smoothing."""
    reach = [np.unique(rows)]
    for _ in range(ROUNDS):
        reach.append(np.union1d(reach[-1], near[reach[-1]].ravel()))
    every = reach[-1]                                                                   # sorted file rows
    p = np.asarray(probabilities(every), dtype=np.float64)                               # [E, L]
    p = p / p.sum(axis=1, keepdims=True)
    position = lambda r: np.searchsorted(every, r)                                     # noqa: E731
    fixed_at, labels = _held(every, held, targets, n_labels, same)
    for step in range(ROUNDS):
        p[fixed_at] = labels
        inner = position(reach[ROUNDS - 1 - step])                                      # the rows still read
        around = position(near[every[inner]])                                           # [I, K]
        moved = np.empty((len(inner), p.shape[1]))
        # a slice at a time: the neighbours' rows of a big file at once take gigabytes (docs/learning/embeddings.md)
        for at in range(0, len(inner), SLICE):
            moved[at:at + SLICE] = 0.5 * p[inner[at:at + SLICE]] + 0.5 * p[around[at:at + SLICE]].mean(axis=1)
        p[inner] = moved
    return np.log(np.maximum(p[position(rows)], 1e-300))


def _held(every: np.ndarray, held: np.ndarray, targets: np.ndarray, n_labels: int,
          same: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The positions in `every` held, and the labels they are held at ([H, L]): the held rows', or, given
    copies, every copy's at the mean of its node's held rows'."""
    one_hot = np.eye(n_labels)[targets]
    if same is None:
        fixed = np.isin(held, every)
        return np.searchsorted(every, held[fixed]), one_hot[fixed]
    nodes, node_of = np.unique(same[held], return_inverse=True)
    sums = np.zeros((len(nodes), n_labels))
    np.add.at(sums, node_of.ravel(), one_hot)
    at = np.minimum(np.searchsorted(nodes, same[every]), len(nodes) - 1)
    fixed = np.flatnonzero(nodes[at] == same[every]) if len(nodes) else np.array([], dtype=np.int64)
    return fixed, sums[at[fixed]] / sums[at[fixed]].sum(axis=1, keepdims=True)
