"""A file's run: the engine's results, saved after every batch and resumed after a crash.

Texts are cleaned first (files/clean.py): the model reads the cleaned text, the rows keep their
place in the original texts, and the export writes the originals. Identical cleaned texts are
classified once and fanned out to every row that has them; texts already in the result store
(same prompt and cleaning, same model weights, dtype and device) are not classified again.

An edit costs what it changes. Where each label is scored on a prompt of its own (channel), each
label's raw score is stored under that label's own key (label_keys), so adding, describing or giving
examples to one label scores that label alone, and removing one scores nothing. A text the ticket limit
does not cut is kept under the key of the limit every result had before methods had their own
(label_keys_of), so a channel run at its own shorter limit still finds what a run at that one stored for
every ticket short enough, and runs the model again only for those it now cuts. What a user sees is
normalised over the whole set and calibrated by the set's prior, so it is decided again from the raw
scores on every run (run/label_scores.py), never stored. Direct scoring reads every label in one prompt:
its results stay keyed by the whole set (run_key). So does a checked low precision (engine/checked.py):
whether a low-precision score may stand depends on the whole set's margin; its answers are stored under
its own dtype name ("bfloat16-checked"), never mixed with float32's, each with the drift it beat; rows
named `exact` whose stored answer is such a low-precision one are scored again in float32 (learning asks
for them: learn/model.py, Learned.unsettled). A pruned run's answers (RunConfig.prune) hold bounds for
the labels that could not win: they are kept under a key of their own, which only a pruned run reads.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace

import numpy as np

from triage_app.engine.checked import CheckedClassifier, Weighed, read_stands
from triage_app.engine.classifier import Classifier, Prediction
from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS, RunConfig
from triage_app.engine.prompt import may_exceed
from triage_app.engine.scoring import CONTENT_FREE
from triage_app.engine.stats import RunStats
from triage_app.files.clean import TextCleaning, model_texts
from triage_app.files.store import ResultStore, RunKey, StoredResult, text_hash
from triage_app.run.label_scores import LabelKeys, RawScores

# the key of a text read by its tokens where it was read whole before (distinct_texts): its hash, and this
READ_BY_TOKENS = "+tokens"


@dataclass(slots=True)
class JobProgress:
    predictions: list[Prediction]   # rows finished by this step (row index = ticket index)
    rows_done: int
    rows_total: int
    resumed: int                    # rows answered from earlier runs
    stats: RunStats                 # the engine's statistics over the texts it classified
    pairs: int = 0                  # (ticket, label) scores the model computed for this job's tickets so far


def run_key(classifier: Classifier, cleaning: TextCleaning = TextCleaning()) -> RunKey:
    """The key a whole label set's results are stored under. Cleaning switched off keeps the key
    results had before cleaning existed, so `--no-clean` resumes a database written then."""
    prompt = f"{classifier.fingerprint}|{cleaning.fingerprint}" if cleaning.steps else classifier.fingerprint
    return _key(classifier, prompt)


def label_keys(classifier: Classifier, cleaning: TextCleaning = TextCleaning()) -> list[RunKey] | None:
    """Per label, the key its raw scores are stored under; None where one label's score depends on
    the whole set (the method reads every label in one prompt)."""
    prints = classifier.label_fingerprints
    return None if prints is None else [_key(classifier, f"{p}|{cleaning.fingerprint}") for p in prints]


def label_keys_of(classifier: Classifier, texts: dict[str, str],
                  cleaning: TextCleaning = TextCleaning()) -> LabelKeys:
    """Per label, the keys the texts ({hash: text}) are kept under: a text the limit cuts under this
    classifier's (label_keys); one it leaves whole, and that DEFAULT_MAX_TICKET_TOKENS leaves whole too,
    under the keys of the classifier at that limit, which every result had before methods had limits of
    their own. Its tokens are the same under both, and so are its scores. Tokenizes the texts that may be
    longer than the limit (prompt.may_exceed), no prompt: cheap next to scoring them (docs/quality/channel_tokens.md)."""
    stored = classifier.with_limit(DEFAULT_MAX_TICKET_TOKENS)
    cut = classifier.cut(list(texts.values()), min(classifier.ticket_limit, stored.ticket_limit))
    whole = frozenset(h for h, is_cut in zip(texts, cut) if not is_cut)
    return LabelKeys(label_keys(classifier, cleaning), label_keys(stored, cleaning), whole)


def _key(classifier: Classifier, prompt: str) -> RunKey:
    loaded = classifier.loaded
    return RunKey(prompt, loaded.identity, loaded.placement.dtype_name, loaded.placement.device)


def run_job(classifier: Classifier, store: ResultStore | None, texts: list[str], config: RunConfig = RunConfig(),
            fresh: bool = False, cleaning: TextCleaning = TextCleaning(),
            exact: Collection[int] = (), weighed: Weighed | None = None) -> Iterator[JobProgress]:
    """Yield after the stored results are read, then after every batch. Stop iterating to cancel.

    texts are the tickets as exported; the model reads them cleaned as `cleaning` says, and each
    prediction's index is the row in texts.

    exact: rows whose answer must carry float32's own scores: a stored checked low-precision answer of
    theirs (a drift not 0) is scored again, in float32, and stored in its place. weighed: the learned part
    a checked low precision reads its answers with (engine/checked.py), its extra per row of texts.

    store None: a run without the database (it was unavailable and the user went on): nothing is
    resumed, nothing saved. The store's StoreUnavailable comes out of the first step (lookup) or
    of any later one (the batch's save), before that batch is yielded.
    """
    clean, rows_of = distinct_texts(texts, cleaning, [classifier])
    unique = {h: clean[rows[0]] for h, rows in rows_of.items()}
    if classifier.label_fingerprints is None:
        exact = set(exact)
        settle = {h for h, rows in rows_of.items() if not exact.isdisjoint(rows)}
        yield from _whole_set(classifier, store, unique, rows_of, config, fresh, cleaning, settle, weighed)
    else:   # float32's own scores, every one (a checked classifier stores by the whole set)
        yield from _by_label(classifier, store, unique, rows_of, config, fresh, cleaning)


def _whole_set(classifier, store, unique, rows_of, config, fresh, cleaning, settle, weighed) -> Iterator[JobProgress]:
    key = whole = run_key(classifier, cleaning)
    names = classifier.label_set.names
    total = sum(map(len, rows_of.values()))
    if config.prune:   # a pruned answer's unfinished labels hold bounds: kept apart, never read as scores
        key = replace(whole, prompt_hash=f"{whole.prompt_hash}|pruned")
    stored = {} if fresh or store is None else store.lookup(whole, rows_of)
    if config.prune and store is not None and not fresh:   # every label finished serves a pruned run as well
        stored |= store.lookup(key, [h for h in rows_of if h not in stored])
    # a stored low-precision answer stands only as this run reads it (another run may have kept it on a
    # learned part's margin); one that does not is scored again in float32, as those learning settles
    settle = settle | _unstood(stored, rows_of, weighed)
    stored = {h: r for h, r in stored.items() if not (h in settle and r.drift != 0)}
    resumed = fan_out(rows_of, names, stored)
    todo = [h for h in rows_of if h not in stored]
    done = len(resumed)
    yield JobProgress(resumed, done, total, done, RunStats(total=len(todo)))
    pairs = 0
    for batch in _run(classifier, todo, unique, rows_of, config, settle, weighed):
        results = {todo[p.index]: StoredResult(names, p.scores, p.truncated, p.fallback, p.drift)
                   for p in batch.predictions}
        scored = {h: r for h, r in results.items() if r.scores is not None}
        if store is not None:
            store.save(key, scored)
        fanned = fan_out(rows_of, names, results)
        done, pairs = done + len(fanned), pairs + len(scored) * len(names)
        yield JobProgress(fanned, done, total, len(resumed), batch.stats, pairs)


def _unstood(stored: dict[str, StoredResult], rows_of: dict[str, list[int]], weighed: Weighed | None) -> set[str]:
    """The stored texts whose low-precision answer does not stand as a run with weighed reads it."""
    low = [h for h, r in stored.items() if r.drift != 0 and r.scores]
    if not low:
        return set()
    scores, drift = np.array([stored[h].scores for h in low]), np.array([stored[h].drift for h in low])
    keep = read_stands(scores, drift, weighed, [rows_of[h][0] for h in low])
    return {h for h, k in zip(low, keep) if not k}


def _run(classifier, todo: list[str], unique, rows_of, config: RunConfig, settle: set[str], weighed: Weighed | None):
    """The classifier's run of the todo texts, one run, so its statistics are the whole run's: a checked one
    answers those to settle in float32 and reads the rest with the learned part where there is one (a
    plain classifier's answers are float32's own already)."""
    texts = [unique[h] for h in todo]
    if not isinstance(classifier, CheckedClassifier):
        return classifier.run(texts, config)
    extra = None if weighed is None else Weighed(weighed.lm, weighed.extra[[rows_of[h][0] for h in todo]])
    return classifier.run(texts, config, weighed=extra, exact=[k for k, h in enumerate(todo) if h in settle])


def _by_label(classifier, store, unique, rows_of, config, fresh, cleaning) -> Iterator[JobProgress]:
    """Each text's missing labels alone are scored, grouped by which labels they miss; every answer is
    decided from the raw scores of the whole set (stored or new) and the set's prior."""
    names = classifier.label_set.names
    total = sum(map(len, rows_of.values()))
    blank = [h for h, text in unique.items() if not text]
    texts = [h for h, text in unique.items() if text]
    raw, legacy, log_prior = _known(classifier, store, {h: unique[h] for h in texts}, config, fresh, cleaning)
    # after the prior: a ticket that reads like a content-free one has its scores by now
    decide = [h for h in texts if h not in legacy]
    complete, todo = [h for h in decide if not raw.missing(h)], [h for h in decide if raw.missing(h)]
    stats = classifier.new_stats(len(todo) + len(blank))
    resumed = fan_out(rows_of, names, legacy | _decided(classifier, raw, complete, log_prior))
    done = len(resumed)
    yield JobProgress(resumed, done, total, done, stats)
    if blank:
        stats.done += len(blank)
        fanned = fan_out(rows_of, names, {h: StoredResult(names, None, False, False) for h in blank})
        done += len(fanned)
        yield JobProgress(fanned, done, total, len(resumed), stats)
    pairs = 0
    for labels, group in raw.groups(todo).items():
        for scored in classifier.score([unique[h] for h in group], list(labels), config, stats):
            hashes = [group[t.index] for t in scored.tickets]
            raw.add(hashes, labels, scored)
            fanned = fan_out(rows_of, names, _decided(classifier, raw, hashes, log_prior))
            done, pairs = done + len(fanned), pairs + len(hashes) * len(labels)
            yield JobProgress(fanned, done, total, len(resumed), stats, pairs)


def _known(classifier, store, texts, config, fresh, cleaning):
    """What the store holds for the texts ({hash: text}): each label's raw scores, and whole-set answers
    stored before labels had keys of their own; and the set's prior, from every label's content-free
    scores (any label lacking them is scored on them now)."""
    free = {text_hash(t): t for t in CONTENT_FREE}
    keys = label_keys_of(classifier, texts | free, cleaning)
    raw = RawScores(classifier.label_set.names, keys, store, list(texts) + list(free), fresh)
    partial = [h for h in texts if raw.missing(h)]
    legacy = {} if fresh or store is None or not partial else _legacy(classifier, store, keys, partial, cleaning)
    log_prior = _log_prior(classifier, raw, free, config) if len(legacy) < len(texts) else None
    return raw, legacy, log_prior


def _legacy(classifier, store, keys: LabelKeys, hashes: list[str], cleaning) -> dict[str, StoredResult]:
    """A text stored under the whole set's key (as every channel result was before) is this very set's
    answer: kept while the set is unchanged; a whole text's also under the key at the limit of then."""
    found = store.lookup(run_key(classifier, cleaning), hashes)
    then = classifier.with_limit(DEFAULT_MAX_TICKET_TOKENS)
    if then is not classifier:
        found |= store.lookup(run_key(then, cleaning), [h for h in hashes if h in keys.read_whole and h not in found])
    # a per-label method always runs float32 (build.classifier_for): its answers are float32's own, whatever
    # dtype name the placement gave their key
    return {h: replace(r, truncated=r.truncated and classifier.flags_cuts, drift=0.0) for h, r in found.items()}


def _log_prior(classifier: Classifier, raw: RawScores, free: dict[str, str], config: RunConfig):
    """The set's prior over its labels, from each label's content-free scores (only new labels' are run)."""
    if not classifier.scoring.calibrate:
        return None
    for labels, group in raw.groups(list(free)).items():
        for scored in classifier.score([free[h] for h in group], list(labels), config):
            raw.add([group[t.index] for t in scored.tickets], labels, scored)
    return classifier.log_prior(raw.token_logprobs(list(free)))


def _decided(classifier: Classifier, raw: RawScores, hashes: list[str], log_prior) -> dict[str, StoredResult]:
    if not hashes:
        return {}
    return raw.results(hashes, classifier.probabilities(raw.token_logprobs(hashes), log_prior), classifier.flags_cuts)


def distinct_texts(texts: list[str], cleaning: TextCleaning,
                   classifiers: list[Classifier] = ()) -> tuple[list[str], dict[str, list[int]]]:
    """The texts as the model reads them (cleaned), and per distinct one (its key: its hash) the rows that hold
    it: each is scored once and fanned out (fan_out). A text that a classifier's ticket limit cuts though it has
    no more characters than the limit (a CJK character, an emoji: several tokens each) is keyed apart
    (READ_BY_TOKENS): until the limit counted its tokens it was read whole, and results stored then are not
    its results now."""
    clean = model_texts(texts, cleaning)
    rows_of: dict[str, list[int]] = {}
    for row, text in enumerate(clean):
        rows_of.setdefault(text_hash(text), []).append(row)
    anew = set()
    for classifier in classifiers:
        limit = classifier.ticket_limit
        maybe = [h for h, rows in rows_of.items() if len(clean[rows[0]]) <= limit and may_exceed(clean[rows[0]], limit)]
        anew |= {h for h, cut in zip(maybe, classifier.cut([clean[rows_of[h][0]] for h in maybe])) if cut}
    return clean, {h + READ_BY_TOKENS if h in anew else h: rows for h, rows in rows_of.items()} if anew else rows_of


def fan_out(rows_of: dict[str, list[int]], names: list[str], results: dict[str, StoredResult]) -> list[Prediction]:
    """Each text's result to every row that holds the text."""
    return [Prediction(row, names, r.scores, r.truncated, r.fallback, r.drift)
            for h, r in results.items() for row in rows_of[h]]
