"""classify's learning from a person's labels: the features it learns on (the sentence encoder's, or
TF-IDF), the labels-first run, and the "none of these" answer. The decisions are run/'s and learn/'s;
here they get their progress bar, their lines on stderr and their columns in the export."""

from __future__ import annotations

import sys

import numpy as np

import triage_app.cli.options as options
from triage_app.files.export import READ_COLUMN


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def say_encoder_advice(encoder, texts: list[str]) -> None:
    """A file mostly not in English, read by the bundled encoder: which encoder would read it better."""
    from triage_app.engine.encoder import MINILM
    from triage_app.learn.language import encoder_advice

    if encoder.name == MINILM and (advice := encoder_advice(texts)):
        _say(f"note: {advice} Give its folder to --encoder.")


def learning_parts(encoder, store_path, texts: list[str], cleaning, axes, taught: dict) -> tuple[object, dict]:
    """The features the person's labels are learned on, and per axis the encoder's similarity (None with
    TF-IDF, encoder None): the file's cleaned texts embedded once, through --db's embedding cache
    (run/embedded.py)."""
    from triage_app.learn import TicketFeatures

    if encoder is None or not taught:
        return (TicketFeatures(texts) if taught else None), {axis.name: None for axis in axes}
    say_encoder_advice(encoder, texts)
    from tqdm import tqdm

    from triage_app.files.embeddings import EmbeddingCache
    from triage_app.run.embedded import file_embeddings

    with EmbeddingCache(store_path) as cache, tqdm(unit="ticket", file=sys.stderr, dynamic_ncols=True,
                                                   desc=f"embedding ({encoder.name})") as bar:
        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        found = file_embeddings(texts, cleaning, encoder, cache, {a.name: a.label_set for a in axes}, progress)
    return found.features, found.similarity


def labels_first_answers(axis, classifier, features, similarity, labels: dict[int, str], texts: list[str], cleaning,
                         threshold: float, classified, axis_prefix: str = ""):
    """One axis answered labels first (run/labels_first.py); classified(names, classifiers, texts, exact) runs
    the language model over some texts as classify runs it (a progress bar, the store). Its lines start with
    axis_prefix (the field's name, with several)."""
    from dataclasses import replace

    from triage_app.files.clean import model_texts
    from triage_app.run.labels_first import labels_first

    def score(rows: list[int], exact: bool = False) -> list:
        exact_rows = {axis.name: range(len(rows))} if exact else None
        predictions = classified([axis.name], [classifier], [texts[r] for r in rows], exact_rows)[0][0]
        return [replace(p, index=rows[p.index]) for p in predictions]

    blank = [row for row, text in enumerate(model_texts(texts, cleaning)) if not text.strip()]
    return labels_first(features, axis.names, labels, score, similarity, threshold, blank,
                        settle=lambda rows: score(rows, exact=True), log=lambda line: _say(axis_prefix + line))


def with_window_labels(store, path: str, table, texts: list[str], axes, limited: bool, taught: dict) -> dict:
    """Per axis, the labels its --person-labels column gives, and none of its own for an axis whose labels given in
    the window fall on this file's tickets, of its label names: they teach the rest here as they do in the window
    (classify reads them). A label that is not used (its ticket gone, its name set aside) changes nothing. A moved
    file's labels are followed first (follow_moved), on the same hashes."""
    from triage_app.files.label_places import labels_as_read
    from triage_app.files.ticket_keys import file_key, ticket_row_hashes

    hashes = ticket_row_hashes(table)
    follow_moved(store, path, table, hashes)
    key, out = file_key(path, table.sheet), dict(taught)
    for axis in (a for a in axes if a.name not in taught):
        stored_as = store.field_now(key, axis.name, others=tuple(axes.names))
        if set(labels_as_read(store, key, hashes, texts, stored_as, limited).labels.values()) & set(axis.names):
            out[axis.name] = {}
    return out


def check_learning_flags(args, axes, taught: dict) -> None:
    """--labels-first and --none-of-these learn from the person's labels: refused, before the model loads,
    without a --person-labels column or labels given in the window for every axis."""
    for flag, given in (("--labels-first", args.labels_first is not None), ("--none-of-these", args.none_of_these)):
        missing = [a.name for a in axes if a.name not in taught]
        if given and missing:
            raise ValueError(f"{flag} answers from the person's labels: label tickets in the window, or name their "
                             "column with --person-labels"
                             + ("" if axes.is_plain else f" for every axis (missing: {', '.join(missing)})"))
    if args.none_of_these:
        from triage_app.learn import NONE_OF_THESE, label_named_so

        for axis in axes:   # the answer it writes would read as that label's, in the export and the updates
            taken = label_named_so(axis.names)
            if taken:
                raise ValueError(f"--none-of-these answers {NONE_OF_THESE!r}, and "
                                 f"{'the label set' if axes.is_plain else f'axis {axis.name}'} has a label {taken!r}; "
                                 "rename that label, or leave out --none-of-these")


def labels_first_summary(found: list, axes, rows: int, output: str, stats_json: str | None) -> None:
    """Per axis (found: its LabelsFirst), how many tickets the language model read and why; --stats-json too."""

    read = {axis.name: int(f.read.sum()) for axis, f in zip(axes, found)}
    for axis, f in zip(axes, found):
        name = "" if axes.is_plain else f"{axis.name}: "
        held = f", {f.not_sent} unsure not sent: the model's scores count for nothing on your labels" if f.not_sent else ""
        _say(f"{name}{rows} tickets, labels first: {read[axis.name]} read by the language model "
             f"({read[axis.name] - f.unsure} labelled, {f.unsure} unsure{held}), {rows - read[axis.name]} not "
             f"-> {output}")
    if stats_json:
        unsure = {axis.name: f.unsure for axis, f in zip(axes, found)}
        not_sent = {axis.name: f.not_sent for axis, f in zip(axes, found)}
        options.write_json(stats_json, {"rows": rows, READ_COLUMN: read, "unsure": unsure, "unsure_not_sent": not_sent})


def misfits(learned, predictions: list, axis_prefix: str, given: dict[int, str] | None = None,
            names: list[str] = ()) -> list[int]:
    """--none-of-these: the rows (not the person's, not a blank ticket's: predictions, the answers written)
    whose combined answer is under the threshold fitted on the cross-validated answers
    (learn/none_of_these.py), said in one line with how many of the tickets the person marked "none of these"
    (given them no label of names) it would have caught."""
    marked = [row for row, label in (given or {}).items() if label not in names]
    from triage_app.learn import PERSON
    from triage_app.learn.none_of_these import fit_none_of_these

    fitted = fit_none_of_these(learned.cross_validated, learned.confidence[list(marked)] if marked else None)
    if fitted is None:
        _say(f"{axis_prefix}none of these: too few labels to cross-validate a threshold; every ticket keeps its label")
        return []
    rows = len(predictions)
    answered = np.array([bool(p.scores) for p in predictions], dtype=bool)
    found = np.flatnonzero(fitted.fits_none(learned.confidence[:rows]) & (learned.sources[:rows] != PERSON) & answered)
    found = found[~np.isin(found, list(marked))]        # the person's own answer there already
    _say(f"{axis_prefix}none of these: {len(found)} tickets; {fitted.line()}")
    return found.tolist()


def mark_misfits(frame, column: str, rows: list[int]) -> None:
    from triage_app.learn.none_of_these import NONE_OF_THESE

    if rows:
        frame.loc[frame.index[rows], column] = NONE_OF_THESE


def without_rows(answers, rows: list[int]):
    """The axis's answers less those rows' model answers: what the updates file leaves out."""
    from dataclasses import replace

    if not rows:
        return answers
    gone = set(rows)
    return replace(answers, predictions=[p for p in answers.predictions if p.index not in gone])


def honest_review(frame, column: str, confidence: str) -> None:
    """--prune: a confidence is a lower bound (engine/methods/prune.py), so one at or over --review-below
    needs no review, and one under it cannot tell: left empty, never a True it does not know."""
    unknown = frame[column].astype(bool) & frame[confidence].notna()
    frame[column] = frame[column].astype(object)
    frame.loc[unknown, column] = None


def follow_moved(store, path: str, table, hashes) -> None:
    """A file moved or renamed (or its sheet): the labels given it where it was are its own here
    (files.moved_labels), said. hashes: the table's (files.ticket_keys.ticket_row_hashes)."""
    from triage_app.files.moved_labels import SAID
    from triage_app.files.ticket_keys import file_key

    moved = store.follow_moved(file_key(path, table.sheet), hashes)
    if moved:
        _say(f"note: {SAID.format(moved)}")


def say_unused(axis, outside: list[str], not_found: int) -> None:
    """The window's labels this run leaves out, in a line each: they stay in the database, and count again
    once their label is back in the set, or their ticket in the file."""
    from collections import Counter

    from triage_app.engine.axes import PLAIN

    field = "" if axis.name == PLAIN else f"{axis.name}: "
    if outside:
        named = ", ".join(f"{name!r} {n}" for name, n in Counter(outside).most_common())
        _say(f"note: {field}{len(outside)} of your labels given in the window are for labels not in this label set "
             f"({named}): not used; rename them back in the label set to use them")
    if not_found:
        _say(f"note: {field}{not_found} of your labels given in the window are for tickets no longer in this "
             f"file (edited or removed): not used")

