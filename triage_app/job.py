"""A file's run: the engine's results, saved after every batch and resumed after a crash.

Texts are cleaned first (files/clean.py): the model reads the cleaned text, the rows keep their
place in the original texts, and the export writes the originals. Identical cleaned texts are
classified once and fanned out to every row that has them; texts already in the result store
(same prompt and cleaning, same model weights, dtype and device) are not classified again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from triage_app.engine.classifier import Classifier, Prediction
from triage_app.engine.config import RunConfig
from triage_app.engine.stats import RunStats
from triage_app.files.clean import TextCleaning, clean_texts
from triage_app.files.store import ResultStore, RunKey, StoredResult, text_hash


@dataclass(slots=True)
class JobProgress:
    predictions: list[Prediction]   # rows finished by this step (row index = ticket index)
    rows_done: int
    rows_total: int
    resumed: int                    # rows answered from earlier runs
    stats: RunStats                 # the engine's statistics over the texts it classified


def run_key(classifier: Classifier, cleaning: TextCleaning = TextCleaning()) -> RunKey:
    """The key results are stored under. Cleaning switched off keeps the key results had before
    cleaning existed, so `--no-clean` resumes a database written then."""
    loaded = classifier.loaded
    prompt = f"{classifier.fingerprint}|{cleaning.fingerprint}" if cleaning.steps else classifier.fingerprint
    return RunKey(prompt, loaded.identity, loaded.placement.dtype_name, loaded.placement.device)


def run_job(classifier: Classifier, store: ResultStore | None, texts: list[str], config: RunConfig = RunConfig(),
            fresh: bool = False, cleaning: TextCleaning = TextCleaning()) -> Iterator[JobProgress]:
    """Yield after the stored results are read, then after every batch. Stop iterating to cancel.

    texts are the tickets as exported; the model reads them cleaned as `cleaning` says, and each
    prediction's index is the row in texts.

    store None: a run without the database (it was unavailable and the user went on): nothing is
    resumed, nothing saved. The store's StoreUnavailable comes out of the first step (lookup) or
    of any later one (the batch's save), before that batch is yielded.
    """
    key = run_key(classifier, cleaning)
    names = classifier.label_set.names
    clean = [t.strip() for t in clean_texts([str(t) for t in texts], cleaning)]
    rows_of: dict[str, list[int]] = {}
    for row, text in enumerate(clean):
        rows_of.setdefault(text_hash(text), []).append(row)
    stored = {} if fresh or store is None else store.lookup(key, rows_of)
    resumed = [Prediction(row, names, r.scores, r.truncated, r.fallback)
               for h, r in stored.items() for row in rows_of[h]]
    todo = [h for h in rows_of if h not in stored]
    first_text = [clean[rows_of[h][0]] for h in todo]
    done = len(resumed)
    stats = RunStats(total=len(todo))
    yield JobProgress(resumed, done, len(texts), done, stats)
    for batch in classifier.run(first_text, config):
        results = {todo[p.index]: p for p in batch.predictions}
        if store is not None:
            store.save(key, {h: StoredResult(names, p.scores, p.truncated, p.fallback)
                             for h, p in results.items() if not p.is_blank})
        fanned = [Prediction(row, names, p.scores, p.truncated, p.fallback)
                  for h, p in results.items() for row in rows_of[h]]
        done += len(fanned)
        yield JobProgress(fanned, done, len(texts), len(resumed), batch.stats)
