"""Next to label: the unlabelled tickets whose label would teach the most.

The least certain tickets (smallest top-1 minus top-2 probability) teach most, but the
20 least certain are often near-copies of one ticket, all predicted the same label. So the
queue takes a pool of the least certain, then fills itself label by label in turn (each
predicted label gets a place before any gets a second), each time picking the ticket that is
least certain and least like those already queued (cosine of TF-IDF): maximal marginal relevance.

Given sentence embeddings, the space itself is cut into regions (k-means over every ticket of the
file, fitted once and kept by TicketFeatures) and the queue takes the least certain ticket of each
region, regions the person's labels cover least first: near-duplicates share a region, so they are
not offered together, and a kind of ticket nobody has labelled yet comes before a well-taught one.

Before the model has run, the person's first labels may answer few tickets or none: the queue then goes on
with tickets not answered yet, spread over the regions the same way (a blank ticket is never offered).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from triage_app.learn.features import TicketFeatures
from triage_app.learn.model import PERSON, Learned


def next_to_label(learned: Learned, features: TicketFeatures, n: int = 20, pool: int | None = None,
                  redundancy: float = 0.5) -> list[int]:
    """Up to n ticket rows, best to label first. Deterministic: ties go to the lower row.

    pool: how many of the least certain tickets are considered (default 10 n); redundancy: how
    much likeness to a queued ticket (cosine, 0 to 1) counts against certainty's gap (0 to 1).
    """
    queue = _answered(learned, features, n, pool, redundancy)
    if len(queue) < n:      # too few answers yet (no run, and labels that answer little): the unanswered next
        queue += _unanswered(learned, features, n - len(queue))
    return queue


def _unanswered(learned: Learned, features: TicketFeatures, n: int) -> list[int]:
    """Up to n tickets with no answer yet and something to read, spread over the space where it has regions
    (the regions the person's labels cover least first), else in row order."""
    rows = np.flatnonzero((learned.sources != PERSON) & (learned.labels < 0) & ~features.blank)
    if features.are_embeddings and len(rows):
        return spread_over_regions(learned, features, rows, n)
    return rows[:n].tolist()


def _answered(learned: Learned, features: TicketFeatures, n: int, pool: int | None, redundancy: float) -> list[int]:
    open_rows = np.flatnonzero((learned.sources != PERSON) & (learned.labels >= 0))
    margin = learned.margin
    if features.are_embeddings:
        return spread_over_regions(learned, features, open_rows, n)
    order = open_rows[np.lexsort((open_rows, margin[open_rows]))]
    rows = order[:max(pool or 10 * n, n)]                                             # [P]
    if len(rows) == 0:
        return []
    x = features.rows(rows)
    # cosine either way: TF-IDF rows and sentence embeddings are both L2-normalised
    likeness = x @ x.T if x.shape[1] else np.zeros((len(rows), len(rows)))           # [P, P]
    likeness = likeness.toarray() if sparse.issparse(likeness) else likeness
    gap = 1.0 - margin[rows]                                                          # [P] larger: less certain
    predicted = learned.labels[rows]
    # turns: labels in the order of their least certain ticket
    turns = list(dict.fromkeys(predicted.tolist()))
    taken = np.zeros(len(rows), dtype=bool)
    nearest = np.zeros(len(rows))                                                    # [P] likeness to the queue
    queue: list[int] = []
    while len(queue) < min(n, len(rows)):
        for label in turns:
            free = np.flatnonzero(~taken & (predicted == label))
            if len(free) == 0:
                continue
            pick = free[np.argmax(gap[free] - redundancy * nearest[free])]
            queue.append(int(rows[pick]))
            taken[pick] = True
            nearest = np.maximum(nearest, likeness[pick])
            if len(queue) == n:
                break
    return queue


def spread_over_regions(learned: Learned, features: TicketFeatures, open_rows: np.ndarray, n: int) -> list[int]:
    """The least certain open ticket of each region, the least covered regions first (ties: the less
    certain region first); a second round through the regions only once every region has given one."""
    region = features.regions(2 * n)                                                 # [N] region of each row
    covered = np.bincount(region[learned.teaching.rows], minlength=int(region.max()) + 1)   # [R]
    margin = learned.margin
    by_certainty = open_rows[np.lexsort((open_rows, margin[open_rows]))]              # least certain first
    queue: list[int] = []
    left = by_certainty
    while len(queue) < n and len(left):
        _, first = np.unique(region[left], return_index=True)                        # each region's least certain
        picks = left[first]
        picks = picks[np.lexsort((picks, margin[picks], covered[region[picks]]))]
        queue += picks[:n - len(queue)].tolist()
        left = left[~np.isin(left, picks)]
    return queue
