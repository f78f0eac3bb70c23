"""Several axes in one pass over each ticket: the prefix and the ticket once, every axis's own tokens after it.

Each axis of a ticket-first method (engine/methods/direct_after.py's TicketFirstMethod: direct-after, whose question
is the axis's label list, or direct-fields, engine/methods/direct_fields.py, whose "question" is a short cue naming
the field) reads the same prefix and the same ticket tokens; only the question after the ticket, and
the labels after that, differ. So a batch runs the ticket rows once, after the prefix cache, and
feeds every axis's question tokens followed by its label trie as branches of one trie in the same
forward (tree attention, engine/forward.py): a branch node sees the prefix, its own ticket and its
own ancestors, exactly the context it has in that axis's own prompt. Questions start with the same
tokens (the end of the ticket's turn, the next turn's start), so the trie shares those between axes;
identical tokens in identical context, so exact.

Per axis the token log-probs are those of its own one-axis run, up to rounding (the batched sums go
in another order); each axis's scores are then decided with its own classifier's scoring and prior,
as its one-axis run decides them. A ticket whose cut between ticket and question is not clean for
every axis, or whose ticket tokens differ between axes (cut at different limits), runs each axis
alone, through that axis's own classifier.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F

from triage_app.engine.methods.direct_after import TicketFirstMethod
from triage_app.engine.batches import padded_width, plan_buckets
from triage_app.engine.checked import CheckedClassifier, float32_twins
from triage_app.engine.classifier import Classifier, account, encode_chunks
from triage_app.engine.config import RunConfig
from triage_app.engine.forward import LabelTree, batch_attention_mask, batch_input_ids, batch_position_ids, decoder_of
from triage_app.engine.prediction import Prediction
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.stats import RunStats


@dataclass(slots=True)
class AxesBatch:
    predictions: list[list[Prediction]]   # per axis, in the classifiers' order
    stats: RunStats                       # the whole pass's statistics, shared by every axis


@dataclass(frozen=True, slots=True)
class Branches:
    """Every axis's question then its labels, as one trie; where each axis's labels sit in it."""

    tree: LabelTree
    spans: tuple[tuple[int, int, int, int], ...]   # per axis: first label, label count, question length, depth

    @classmethod
    def of(cls, questions: list[list[int]], label_ids: list[list[list[int]]]) -> Branches:
        spans, first = [], 0
        for question, labels in zip(questions, label_ids):
            spans.append((first, len(labels), len(question), max(map(len, labels))))
            first += len(labels)
        tree = LabelTree.build([q + ids for q, labels in zip(questions, label_ids) for ids in labels])
        return cls(tree, tuple(spans))

    @property
    def scoring_nodes(self) -> list[int]:
        """The nodes whose next-token distribution scores a label token (not a question token)."""
        return sorted({self.tree.steps[first + l][q + j][0] for first, count, q, _ in self.spans
                       for l in range(count) for j in range(len(self.tree.steps[first + l]) - q)})


def can_share(classifiers: list[Classifier]) -> bool:
    """Axes that one pass can run: all of one ticket-first method (direct-after, or direct-fields of one
    run), on one model, with one prefix. Checked ones run it as the float32 classifiers they are checked
    against (checked.float32_twins): one float32 pass beats each axis alone in a checked low precision
    (docs/bench/axes_checked.txt). Ticket limits may differ (a longer question leaves less room): a ticket
    cut differently for two axes runs each axis alone."""
    methods = [c.method for c in classifiers]
    return (len(classifiers) > 1 and all(map(shares_a_pass, classifiers))
            and len({type(m) for m in methods}) == 1 and len({id(c.loaded) for c in classifiers}) == 1
            and len({tuple(m.prompt.ids) for m in methods}) == 1)


def shares_a_pass(classifier: Classifier) -> bool:
    """An axis one pass could run with others: a plain or checked classifier whose own tokens follow the ticket."""
    return isinstance(classifier.method, TicketFirstMethod) and type(classifier) in (Classifier, CheckedClassifier)


class AxesPass:
    """Several ticket-first classifiers (one per axis) run as one: one ticket pass per batch."""

    def __init__(self, classifiers: list[Classifier]):
        if not can_share(classifiers):
            raise ValueError("one pass runs two or more axes of one ticket-first method (direct-after, "
                             "direct-fields) on one model and one prefix")
        self.classifiers = classifiers = float32_twins(classifiers)
        self.prompts = [c.method.prompt for c in classifiers]
        self.branches = Branches.of([p.question_ids for p in self.prompts], [p.label_ids for p in self.prompts])
        self.loaded = classifiers[0].loaded
        self._prefix: PrefixCache | None = None

    def run(self, texts: list[str], config: RunConfig = RunConfig()) -> Iterator[AxesBatch]:
        """Every axis's predictions for texts, a batch at a time (Classifier.run's, axis by axis).
        config.prune is not used: every axis's whole trie is scored (the exact scores)."""
        start = time.perf_counter()
        stats = self.classifiers[0].new_stats(len(texts))
        blank = [i for i, t in enumerate(texts) if not str(t).strip()]
        if blank:
            stats.done = len(blank)
            yield AxesBatch([[Prediction(i, c.label_set.names, None) for i in blank] for c in self.classifiers], stats)
        keep = [i for i, t in enumerate(texts) if str(t).strip()]
        if not keep:
            return
        priors = [c.log_prior(c.content_free(config)) if c.scoring.calibrate else None for c in self.classifiers]
        for chunk in encode_chunks(keep):
            yield from self._chunk(texts, chunk, priors, config, stats, start)

    def _chunk(self, texts, chunk, priors, config, stats, start) -> Iterator[AxesBatch]:
        encoded = [p.encode([texts[i] for i in chunk]) for p in self.prompts]   # per axis, per ticket
        parts, alone = {}, []
        for k, i in enumerate(chunk):
            found = [p.ticket_part(enc[k]) for p, enc in zip(self.prompts, encoded)]
            if found[0] is not None and all(f == found[0] for f in found):
                parts[i] = (found[0], encoded[0][k].truncated)
            else:
                alone.append(i)
        stats.truncated += sum(t.truncated for t in encoded[0])
        order = list(parts)
        T = self.branches.tree.size
        buckets = plan_buckets(order, [len(parts[i][0]) + T for i in order], uses_prefix=True, sort=config.buckets,
                               max_rows=config.batch_size, token_budget=config.token_budget,
                               width_step=self.loaded.placement.width_step)
        for bucket in buckets:
            rows = [parts[i][0] for i in bucket.items]
            per_axis = score_branches(self.loaded.model, rows, self.branches, self._prefix_cache(stats),
                                      self.loaded.placement.width_step)
            predictions = [[Prediction(i, c.label_set.names, s.tolist(), parts[i][1], False)
                            for i, s in zip(bucket.items, c.probabilities(lp, prior))]
                           for c, lp, prior in zip(self.classifiers, per_axis, priors)]
            width = padded_width(max(map(len, rows)), self.loaded.placement.width_step)
            account(stats, start, rows=len(rows), processed=len(rows) * (width + T),
                     real=sum(map(len, rows)) + len(rows) * T)
            stats.prefix_tokens_saved += self._prefix.length * len(rows)
            yield AxesBatch(predictions, stats)
        if alone:
            yield self._alone(texts, alone, config, stats, start)

    def _alone(self, texts, items, config, stats, start) -> AxesBatch:
        """Tickets whose ticket/question cut is not clean for every axis: each axis runs them alone."""
        per_axis = []
        for c in self.classifiers:
            found = [p for batch in c.run([texts[i] for i in items], config) for p in batch.predictions]
            per_axis.append([replace(p, index=items[p.index]) for p in found])
        stats.fallbacks += len(items)
        account(stats, start, rows=len(items), processed=0, real=0)
        return AxesBatch(per_axis, stats)

    def _prefix_cache(self, stats: RunStats) -> PrefixCache:
        if self._prefix is None:
            ids = self.prompts[0].ids
            self._prefix = PrefixCache(decoder_of(self.loaded.model), ids, self.loaded.placement.device)
            stats.tokens_processed += len(ids)
            stats.prefix_tokens = len(ids)
        return self._prefix


# (inference mode here, not around the caller's loop: a generator would leak it into its consumer)
@torch.inference_mode()
def score_branches(model, rows: list[list[int]], branches: Branches, prefix: PrefixCache,
                   width_step: int = 1) -> list[torch.Tensor]:
    """Per axis, the log-prob of each of its label tokens for right-padded ticket rows after the
    prefix: [B, L_a, D_a], NaN past a label's end. Only the nodes that score a label token go
    through the head (the questions' own tokens are inputs, never scored)."""
    device, tree = model.device, branches.tree
    lengths = torch.tensor([len(r) for r in rows], device=device)                 # [B]
    B, S, P = len(rows), padded_width(int(lengths.max()), width_step), prefix.length
    hidden = decoder_of(model)(input_ids=batch_input_ids(rows, tree, S, device),              # [B, S+T]
                               attention_mask=batch_attention_mask(lengths, tree, S, P, device),  # [B, 1, S+T, P+S+T]
                               position_ids=batch_position_ids(lengths, tree, S, P, device),
                               cache=prefix.expand(B), use_cache=True).last_hidden_state        # [B, S+T, H]
    nodes = branches.scoring_nodes
    column = {n: k for k, n in enumerate(nodes)}
    head = model.get_output_embeddings()
    logprobs = F.log_softmax(head(hidden[:, [S + n for n in nodes]]).float(), dim=-1)         # [B, N, V]
    out = []
    for first, count, q, depth in branches.spans:
        axis = torch.full((B, count, depth), float("nan"), device=device)         # [B, L_a, D_a]
        for l in range(count):
            for j, (node, token) in enumerate(tree.steps[first + l][q:]):
                axis[:, l, j] = logprobs[:, column[node], token]
        out.append(axis)
    return out

