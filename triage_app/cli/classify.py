"""classify: every ticket of a file labelled, the person's labels and the learned layer included, exported."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import triage_app.cli.learning as learning
import triage_app.cli.options as options
from triage_app.scale import command as scale_command  # light: imports neither ray nor torch


def run(args) -> int:
    from triage_app.files.export import FORMATS, REVIEW_BELOW
    from triage_app.files.store import ResultStore

    # which files it writes: checked by cli.main before this runs (files/output_paths.py)
    options.at_least(args.limit, 1, "--limit")
    if args.labels_first is not None:      # before the encoder embeds every ticket, not after
        options.probability(str(args.labels_first), "--labels-first")
    options.refuse_pruned_confidences(args, {"--review-below": args.review_below, "--updates": args.updates,
                                             "--person-labels": args.person_labels})
    cleaning = options.cleaning(args)
    settings = options.settings(args, reference=args.reference)
    axes = options.axes(args)
    review = options.per_axis(args.review_below, axes, "--review-below", options.probability, REVIEW_BELOW)
    if scale_command.wants_ray(args):
        return on_ray(args, settings, axes, review, cleaning)
    if Path(args.output).suffix.lower().lstrip(".") not in FORMATS:
        raise ValueError(f"{args.output}: the output must end in .{', .'.join(FORMATS)}")
    table, texts = options.read_tickets(args, args.limit)      # --limit: the first N tickets
    taught = person_labels_in_columns(table, args.person_labels, axes, args.none_of_these)
    gates = updates_gates(args, table, axes)
    note_renamed_columns(table, axes)
    # the database first: an unusable one fails in a second, not after the model has loaded
    with ResultStore(args.db) as store:
        print(f"results database: {store.path}", file=sys.stderr)
        taught = learning.with_window_labels(store, args.input, table, texts, axes, bool(args.limit), taught)
        learning.check_learning_flags(args, axes, taught)
        encoder = options.load_encoder(args) if taught else None   # a folder it refuses: before the model loads
        loaded = options.load_model(args)
        features, similarity = learning.learning_parts(encoder, store.path, texts, cleaning, axes, taught)
        from triage_app.engine.build import axes_classifiers

        classifiers = axes_classifiers(loaded, axes, settings)
        found = (labels_first_run if args.labels_first is not None else every_ticket)(
            args, store, table, texts, axes, classifiers, settings, cleaning, taught, features, similarity, review)
    # built before the export, written right after it: an interrupt between them left the last run's updates
    pending = gates and updates_of(table, [learning.without_rows(*pair) for pair in zip(found.answers, found.misfits)], gates)
    export_answers(table, axes, found.answers, args, found)
    found.summary(args, axes, texts, cleaning)
    if gates:
        write_updates(pending, gates, args.updates)
    return 0


@dataclass(slots=True)
class Answered:
    """What a classify run gives each axis, in the axes' order."""

    answers: list                       # AxisAnswers
    misfits: list[list[int]]            # rows answered "none of these" (--none-of-these)
    steps: list = field(default_factory=list)     # the run's last JobProgress (every ticket read)
    firsts: list = field(default_factory=list)    # ScoredFirst (every ticket read)
    read: list | None = None            # run/labels_first.LabelsFirst, what each axis read (labels first)

    def summary(self, args, axes, texts: list[str], cleaning) -> None:
        if self.read is not None:
            return learning.labels_first_summary(self.read, axes, len(texts), args.output, args.stats_json)
        # a run that reads nothing stored scored them again itself
        first = [0 if args.fresh or args.reference else f.rows(texts, cleaning) for f in self.firsts]
        for axis, step, k in zip(axes, self.steps, first):
            print_summary(step, len(texts), args.output, "" if axes.is_plain else f"{axis.name}: ", k)
        if args.stats_json:
            write_stats(args.stats_json, axes, self.steps, len(texts), first)


def every_ticket(args, store, table, texts, axes, classifiers, settings, cleaning, taught, features, similarity,
                 review) -> Answered:
    """The language model reads every ticket; the person's labels, where given, are learned and weighed."""
    from triage_app.files.ticket_keys import file_key

    stored_as = [stored_field(store, file_key(args.input, table.sheet), axis.name, axes.names) for axis in axes]
    windows, from_file = zip(*(person_labels(store, args, table, texts, axis, name)
                               for axis, name in zip(axes, stored_as)))
    firsts = labelled_first(axes, classifiers, store, texts, settings, cleaning, features, taught, windows, similarity)
    runs = classified(axes.names, classifiers, store, texts, settings, args, cleaning,
                      weighed={a.name: f.weighed for a, f in zip(axes, firsts) if f.weighed is not None})
    out = Answered([], [], firsts=firsts)
    for axis, classifier, window, stored, (predictions, step) in zip(axes, classifiers, windows, from_file, runs):
        settle = lambda rows, a=axis.name, c=classifier: classified(  # noqa: E731
            [a], [c], store, texts, settings, args, cleaning, exact={a: rows})[0][0]
        answers, misfit = axis_answers(axis, features, predictions, window, taught.get(axis.name), review[axis.name],
                                       settle, stored, similarity[axis.name], args.none_of_these,
                                       "" if axes.is_plain else f"{axis.name}: ")
        out.answers.append(answers)
        out.misfits.append(misfit)
        out.steps.append(step)
    return out


def labels_first_run(args, store, table, texts, axes, classifiers, settings, cleaning, taught, features, similarity,
                     review) -> Answered:
    """--labels-first: each axis answered from the person's labels, the language model reading only the
    tickets they leave unsure (run/labels_first.py)."""
    from triage_app.files.axes_export import AxisAnswers
    from triage_app.files.ticket_keys import file_key

    out, key = Answered([], [], read=[]), file_key(args.input, table.sheet)
    for axis, classifier in zip(axes, classifiers):
        name = stored_field(store, key, axis.name, axes.names)
        window, stored = person_labels(store, args, table, texts, axis, name)
        labels = {**taught[axis.name], **window}
        run_some = lambda names, cs, some, exact: classified(  # noqa: E731
            names, cs, store, some, settings, args, cleaning, exact=exact)
        prefix = "" if axes.is_plain else f"{axis.name}: "
        found = learning.labels_first_answers(axis, classifier, features, similarity[axis.name], labels, texts,
                                              cleaning, args.labels_first, run_some, prefix)
        print(prefix + found.learned.status(), file=sys.stderr)
        misfit = learning.misfits(found.learned, found.predictions, prefix, labels, axis.names) \
            if args.none_of_these else []
        sources = answered_sources(found.predictions, found.learned, labels)
        out.answers.append(AxisAnswers(axis, found.predictions, labels, sources, review[axis.name],
                                       files_own(taught[axis.name], window, stored)))
        out.misfits.append(misfit)
        out.read.append(found)
    return out


def on_ray(args, settings, axes, review, cleaning) -> int:
    import argparse

    from triage_app.engine.axes import PLAIN

    if not axes.is_plain:
        raise ValueError("--ray runs one plain label set; several axes run on one machine, leave out --ray")
    if args.person_labels:  # the learned layer needs every row's scores in one place
        raise ValueError("--person-labels works on one machine; leave out --ray")
    if args.updates:
        raise ValueError("--updates works on one machine; leave out --ray")
    ray_args = argparse.Namespace(**{**vars(args), "review_below": review[PLAIN]})  # scale reads a number
    return scale_command.run(ray_args, settings, axes.first.label_set, cleaning)


def labelled_first(axes, classifiers: list, store, texts: list[str], settings, cleaning, features, taught: dict,
                   windows: list[dict], similarity: dict) -> list:
    """Per axis, its labelled rows scored first and what they teach a checked run of its own
    (run/taught.py scored_first); nothing for an axis without labels, or one that shares a pass, in float32."""
    from triage_app.run.fields import passes
    from triage_app.run.taught import ScoredFirst, scored_first

    alone = {part[0] for part in passes(classifiers, settings.run) if len(part) == 1}
    return [scored_first(c, store, texts, settings.run, cleaning, features, {**taught[axis.name], **window},
                         _say, similarity[axis.name]) if axis.name in taught and k in alone else ScoredFirst(None)
            for k, (axis, c, window) in enumerate(zip(axes, classifiers, windows))]


def classified(names: list[str], classifiers: list, store, texts: list[str], settings, args, cleaning, exact=None,
               weighed=None) -> list[tuple]:
    """Each named axis's (predictions, last step), run as run/fields.py decides, with a progress bar per part.
    exact: per axis, rows learning settles (run/job.py), after the run, which stored every other row;
    weighed: per axis, the learned part a checked run reads its answers with."""
    from tqdm import tqdm

    from triage_app.run.fields import PartStarted, run_fields

    found = {name: ([], None) for name in names}
    fresh = (args.fresh or args.reference) and not exact
    bar = None
    try:
        for event in run_fields(names, classifiers, store, texts, settings.run, fresh, cleaning, exact, weighed):
            if isinstance(event, PartStarted):
                if bar is not None:
                    bar.close()
                bar = tqdm(total=len(texts), unit="ticket", file=sys.stderr, dynamic_ncols=True)
                continue
            for name, step in zip(event.names, event.steps):
                found[name] = (found[name][0] + step.predictions, step)
            bar.update(event.slowest.rows_done - bar.n)     # a ticket is done once every field has it
            stats = event.slowest.stats
            bar.set_postfix_str(f"{len(event.names)} axes in one pass, {stats.items_per_s:.1f} items/s"
                                if len(event.names) > 1 else
                                f"{stats.items_per_s:.1f} items/s, padding {100 * stats.padding_fraction:.1f}%")
    finally:
        if bar is not None:
            bar.close()
    return [found[name] for name in names]


def axis_answers(axis, features, predictions, window: dict[int, str], taught: dict[int, str] | None, review_below,
                 settle=None, from_file: frozenset[int] = frozenset(), similarity=None, none_of_these: bool = False,
                 axis_prefix: str = "") -> tuple:
    """One axis's answers: the model's, the person's (the window's win over the file's column), and the
    learned layer's where the file's column taught it (similarity: the encoder's, a part it weighs);
    settle: rows -> their predictions in float32. And the rows answered "none of these", where asked."""
    from triage_app.files.axes_export import AxisAnswers

    own = files_own(taught or {}, window, from_file)
    if taught is None:
        return AxisAnswers(axis, predictions, window, None, review_below, own), []
    labels = {**taught, **window}  # a label set in the window is the person's latest word
    predictions, sources, learned = learned_axis(features, predictions, axis.names, labels, settle, similarity,
                                                 axis_prefix)
    misfit = learning.misfits(learned, predictions, axis_prefix, labels, axis.names) if none_of_these else []
    return AxisAnswers(axis, predictions, labels, sources, review_below, own), misfit


def files_own(taught: dict[int, str], window: dict[int, str], stored: frozenset[int]) -> frozenset[int]:
    """The person rows whose label the file already holds, never sent back in --updates: the --person-labels
    column's where the window gave none or the same, and the window's own labels taken from the file's column."""
    same = {row for row, label in window.items() if taught.get(row) == label}
    return frozenset(set(taught) - set(window)) | same | (stored & window.keys())


def export_answers(table, axes, answers: list, args, found=None) -> None:
    """A plain label set keeps today's columns (results_frame); several axes get theirs named after them.
    found (Answered): the rows answered "none of these", and those the language model read (labels first)."""
    from triage_app.files.axes_export import axes_frame
    from triage_app.files.export import export, results_frame

    if axes.is_plain:
        a = answers[0]
        frame = results_frame(table.frame, a.predictions, a.names, a.person_labels, a.review_below, a.sources)
    else:
        frame = axes_frame(table.frame, answers)
    named = (lambda axis, column: column) if axes.is_plain else (lambda axis, column: f"{axis.name}_{column}")
    for k, axis in enumerate(axes):
        label = "label" if axes.is_plain else axis.name
        if found is not None:
            learning.mark_misfits(frame, label, found.misfits[k])
        if found is not None and found.read is not None:
            frame[named(axis, learning.READ_COLUMN)] = found.read[k].read.tolist()
        if args.prune:
            learning.honest_review(frame, named(axis, "needs_review"), named(axis, "confidence"))
    notes: list[str] = []
    export(frame, args.output, excel_bom=args.excel_bom, notes=notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def print_summary(step, rows: int, output: str, axis: str, first: int = 0) -> None:
    """first: rows scored first, as a person's labelled ones (taught_job.scored_first), which the run resumed."""
    stats = step.stats
    firsts = f", {first} labelled, scored first" if first else ""
    print(f"{axis}{rows} tickets ({step.resumed - first} from earlier runs{firsts}): {stats.done} classified in "
          f"{stats.seconds:.1f} s ({stats.items_per_s:.2f} items/s); padding {100 * stats.padding_fraction:.1f}% "
          f"of tokens; prefix tokens saved {stats.prefix_tokens_saved}; fallbacks {stats.fallbacks}; truncated "
          f"{stats.truncated} -> {output}", file=sys.stderr)


def write_stats(path: str, axes, steps: list, rows: int, first: list[int]) -> None:
    """One axis: today's statistics; several: each axis's under its name. resumed: from earlier runs;
    scored_first: the labelled rows scored before the run (print_summary)."""
    one = lambda step, k: dict(step.stats.to_dict(), resumed=step.resumed - k, scored_first=k, rows=rows)
    data = (one(steps[0], first[0]) if axes.is_plain
            else {"axes": {a.name: one(s, k) for a, s, k in zip(axes, steps, first)}, "rows": rows})
    options.write_json(path, data)


def note_renamed_columns(table, axes) -> None:
    """Said before the run; several axes whose columns would collide are refused here."""
    from triage_app.files.axes_export import renamed_note

    line = renamed_note(table.frame.columns, axes)
    if line:
        print(f"note: {line}", file=sys.stderr)


def person_labels_in_columns(table, spec: str | None, axes, none_of_these: bool = False) -> dict[str, dict[int, str]]:
    """Axis name -> the labels its --person-labels column gives, for the axes that have one; with --none-of-these,
    a value "none of these" too: the person's answer for that ticket, as a label's is."""
    from triage_app.learn import NONE_OF_THESE

    columns = options.per_axis(spec, axes, "--person-labels", options.column, plain_for_all=False)
    return {axis.name: column_labels(table, columns[axis.name], axis.names + [NONE_OF_THESE] * none_of_these)
            for axis in axes if columns[axis.name] is not None}


def updates_gates(args, table, axes) -> tuple[str, dict[str, float]] | None:
    """--updates: the id column and each axis's --apply-above, checked before the model loads."""
    from triage_app.files import reader, updates

    if args.updates is None:
        if args.apply_above is not None or args.id_column:
            raise ValueError("--apply-above and --id-column go with --updates")
        return None
    updates.check_path(args.updates, axes.names)
    above = options.per_axis(args.apply_above, axes, "--apply-above", options.probability, updates.APPLY_ABOVE)
    column = reader.check_column(table, args.id_column) if args.id_column else updates.detect_id_column(table.columns)
    if column is None:
        raise reader.BadInput(f"{table.path.name}: no ticket id column found (looked for "
                              f"{', '.join(updates.ID_COLUMNS)}); name it with --id-column")
    return column, above


def updates_of(table, answers: list, gates: tuple[str, dict[str, float]]):
    """The updates (files/updates.Updates) of these AxisAnswers, with the axes' names, not yet written."""
    from triage_app.files import updates

    return updates.updates(table.frame[gates[0]].tolist(), answers, gates[1]), [a.axis.name for a in answers]


def write_updates(pending, gates: tuple[str, dict[str, float]], path: str) -> None:
    """updates_of's updates written, and said: the tickets and fields the file holds."""
    from triage_app.files import updates

    (found, names), (column, above) = pending, gates
    updates.write(found, names, path)
    written = found.written
    per_axis = ", ".join(f"{n} {sum(n in r['fields'] for r in written)} at {above[n]:g}+" for n in names)
    print(f"updates: {len(written)} tickets, {sum(len(r['fields']) for r in written)} fields ({per_axis}; "
          f"id column {column}) -> {path}", file=sys.stderr)
    if found.without_id:
        print(f"note: {found.without_id} row(s) with a field to set have no id; left out of {path}", file=sys.stderr)
    for note in found.notes:
        print(f"note: {note}", file=sys.stderr)


def stored_field(store, file: str, name: str, names: list[str]) -> str:
    """The name the axis's labels are stored under for this file: a field the window renamed is said, and
    followed (one name per field per file; names: the label set's fields, two of which may have swapped)."""
    now = store.field_now(file, name, others=tuple(names))
    if now != name:
        print(f"note: the field {name!r} of this file was renamed {now!r} in the window; its labels are read "
              f"from there (rename it in the label-set file too)", file=sys.stderr)
    return now


def person_labels(store, args, table, texts: list[str], axis, stored_as: str | None = None) -> tuple[dict, frozenset]:
    """The labels a person gave this file's rows on this axis (stored under stored_as: its name unless the window
    renamed it, stored_field), of its label names, read as the window reads them (files/label_places.labels_as_read;
    with --limit, of the rows read); and the rows whose label the window took from the file's own column."""
    from triage_app.files.label_places import labels_as_read
    from triage_app.files.ticket_keys import file_key, ticket_row_hashes

    found = labels_as_read(store, file_key(args.input, table.sheet), ticket_row_hashes(table), texts,
                           stored_as or axis.name, bool(getattr(args, "limit", None)))
    learning.say_unused(axis, [label for label in found.labels.values() if label not in axis.names], found.not_found)
    return {row: label for row, label in found.labels.items() if label in axis.names}, found.from_file


def column_labels(table, column: str, names: list[str]) -> dict[int, str]:
    """Row -> label of the rows the column fills; values that are no label are named in one line and left out.

    Refused when no value is a label: the column is the wrong one, or the label set is.
    """
    from triage_app.files import reader
    from triage_app.learn import labels_from_column

    found = labels_from_column(table.frame[reader.check_column(table, column)], names)
    if found.message and not found.labels:
        raise ValueError(f"--person-labels {column}: no value is a label ({', '.join(names)}); {found.message}")
    if found.message:
        print(f"note: --person-labels {column}: {found.message}", file=sys.stderr)
    return found.labels


def learned_answers(features, predictions: list, names: list[str], taught: dict[int, str],
                    settle=None, similarity=None) -> tuple[list, list]:
    """The run's predictions after learning from the person's labels, and each row's source (learned_axis)."""
    return learned_axis(features, predictions, names, taught, settle, similarity)[:2]


def learned_axis(features, predictions: list, names: list[str], taught: dict[int, str], settle=None,
                 similarity=None, axis_prefix: str = "") -> tuple[list, list, object]:
    """The run's predictions after learning from the person's labels, each row's source, and the Learned; where
    a checked low precision's scores could decide a learned answer, those rows settled in float32 first.

    A blank ticket the language model could not score stays without an answer: its words teach nothing.
    """
    from dataclasses import replace

    from triage_app.run.taught import settled

    predictions, learned = settled(features, predictions, names, taught, settle, lambda line: _say(axis_prefix + line),
                                   similarity)
    print(axis_prefix + learned.status(), file=sys.stderr)
    # a person's row keeps the model's scores, as the window shows them (review/answers.py): the label is theirs
    out = [replace(p, scores=learned.scores[p.index].tolist()) if p.scores and p.index not in taught else p
           for p in predictions]
    return out, answered_sources(out, learned, taught), learned


def answered_sources(predictions: list, learned, taught: dict[int, str]) -> list:
    """Each row's source: learned's, but the model's for a blank ticket nobody labelled (it has no answer), and
    the person's where they answered "none of these" (no label of the set: learning left it aside)."""
    from triage_app.learn import MODEL, NONE_OF_THESE, PERSON

    sources = learned.sources.copy()
    for p in predictions:
        if not p.scores and p.index not in taught:
            sources[p.index] = MODEL
    sources[[row for row, label in taught.items() if label == NONE_OF_THESE]] = PERSON
    return sources.tolist()


def _say(line: str) -> None:
    print(line, file=sys.stderr)
