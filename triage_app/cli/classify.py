"""classify: every ticket of a file labelled, the person's labels and the learned layer included, exported."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import triage_app.cli.options as options
from triage_app.scale import command as scale_command  # light: imports neither ray nor torch


def run(args) -> int:
    from tqdm import tqdm

    from triage_app.files.export import (FORMATS, REVIEW_BELOW, export, renamed_input_columns, results_frame,
                                         same_file)
    from triage_app.files.store import ResultStore
    from triage_app.job import run_job

    for output in filter(None, (args.output, args.stats_json)):
        if same_file(args.input, output):
            raise ValueError(f"{output}: that is the input file; write the results to another")
    cleaning = options.cleaning(args)
    settings = options.settings(args, reference=args.reference)
    if scale_command.wants_ray(args):
        if args.learn_from:  # the learned layer needs every row's scores in one place
            raise ValueError("--learn-from works on one machine; leave out --ray")
        return scale_command.run(args, settings, options.label_set(args), cleaning)
    if Path(args.output).suffix.lower().lstrip(".") not in FORMATS:
        raise ValueError(f"{args.output}: the output must end in .{', .'.join(FORMATS)}")
    table, texts = options.read_tickets(args)
    label_set = options.label_set(args)
    taught = column_labels(table, args.learn_from, label_set.names) if args.learn_from else None
    renames = renamed_input_columns(table.frame.columns, label_set.names)
    if renames:
        print(f"note: the output keeps input column(s) {', '.join(renames)} as {', '.join(renames.values())}; "
              "Triage writes its own under those names", file=sys.stderr)
    predictions, stats = [], None
    # the database first: an unusable one fails in a second, not after the model has loaded
    with ResultStore(args.db) as store:
        print(f"results database: {store.path}", file=sys.stderr)
        classifier = options.classifier(args, settings, label_set)
        with tqdm(total=len(texts), unit="ticket", file=sys.stderr, dynamic_ncols=True) as bar:
            for step in run_job(classifier, store, texts, settings.run, fresh=args.fresh or args.reference,
                                cleaning=cleaning):
                predictions += step.predictions
                stats = step.stats
                bar.update(len(step.predictions))
                bar.set_postfix_str(f"{stats.items_per_s:.1f} items/s, padding {100 * stats.padding_fraction:.1f}%")
        manual = person_labels(store, args, table, label_set.names)
    review_below = REVIEW_BELOW if args.review_below is None else args.review_below
    sources = None
    if taught is not None:
        manual = {**taught, **manual}  # a label set in the window is the person's latest word
        predictions, sources = learned_answers(texts, predictions, label_set.names, manual)
    export(results_frame(table.frame, predictions, label_set.names, manual, review_below, sources), args.output,
           excel_bom=args.excel_bom)
    print(f"{len(texts)} tickets ({step.resumed} from earlier runs): {stats.done} classified in {stats.seconds:.1f} s "
          f"({stats.items_per_s:.2f} items/s); padding {100 * stats.padding_fraction:.1f}% of tokens; prefix tokens "
          f"saved {stats.prefix_tokens_saved}; fallbacks {stats.fallbacks}; truncated {stats.truncated} "
          f"-> {args.output}", file=sys.stderr)
    if args.stats_json:
        data = dict(stats.to_dict(), resumed=step.resumed, rows=len(texts))
        Path(args.stats_json).write_text(json.dumps(data, indent=2) + "\n")
    return 0


def person_labels(store, args, table, names: list[str]) -> dict[int, str]:
    """The labels a person gave this file's rows in the window, those of these label names. Read as
    the file is now, never written: a ticket the window would find at another row is found here too,
    except with --limit, where the rest of the file is not read (only labels in place count)."""
    from triage_app.files.store import place
    from triage_app.files.ticket_keys import file_key, row_hashes

    stored = store.stored_person_labels(file_key(args.input, table.sheet))
    hashes = row_hashes(table.frame)
    if getattr(args, "limit", None):
        stored = [(row, h, label) for row, h, label in stored if row < len(hashes) and hashes[row] == h]
    found, _, _ = place(stored, hashes)
    return {row: label for row, label in found.items() if label in names}


def column_labels(table, column: str, names: list[str]) -> dict[int, str]:
    """Row -> label of the rows the column fills; values that are no label are named in one line and left out.

    Refused when no value is a label: the column is the wrong one, or the label set is.
    """
    from triage_app.files import reader
    from triage_app.learn import labels_from_column

    found = labels_from_column(table.frame[reader.check_column(table, column)], names)
    if found.message and not found.labels:
        raise ValueError(f"--learn-from {column}: no value is a label ({', '.join(names)}); {found.message}")
    if found.message:
        print(f"note: --learn-from {column}: {found.message}", file=sys.stderr)
    return found.labels


def learned_answers(texts: list[str], predictions: list, names: list[str], taught: dict[int, str]) -> tuple[list, list]:
    """The run's predictions after learning from the person's labels, and each row's source.

    A blank ticket the language model could not score stays without an answer: its words teach nothing.
    """
    from dataclasses import replace

    import numpy as np

    from triage_app.learn import MODEL, TicketFeatures, learn

    lm = np.full((len(texts), len(names)), np.nan)                                  # [N, L]
    for p in predictions:
        if p.scores:
            lm[p.index] = p.scores
    learned = learn(TicketFeatures(texts), lm, taught, names)
    print(learned.status(), file=sys.stderr)
    sources = learned.sources.copy()
    out = []
    for p in predictions:
        if p.scores:
            out.append(replace(p, scores=learned.scores[p.index].tolist()))
        else:
            out.append(p)
            if p.index not in taught:
                sources[p.index] = MODEL
    return out, sources.tolist()
