"""The triage-app command line: the window (no command, or a file), classify, eval, verify, bench, inspect."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from triage_app.engine import config  # the run's settings and their defaults; no torch
from triage_app.scale import command as scale_command  # light: imports neither ray nor torch

EXIT_BAD_INPUT = 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--self-test"]:
        from triage_app.selftest import main as self_test

        return self_test()
    parser = _parser()
    if _wants_window(argv, parser):
        from triage_app.ui.app import main as window

        return window(argv[1:] if argv[:1] == ["gui"] else argv)
    args = parser.parse_args(argv)
    from triage_app.engine.models import ModelNotAvailable
    from triage_app.files.reader import BadInput

    try:
        return args.func(args)
    except (BadInput, ModelNotAvailable, ValueError) as exc:
        return _refuse(str(exc))
    except OSError as exc:  # a file that cannot be read or written, however deep it was opened
        where = f"{exc.filename}: " if exc.filename else ""
        return _refuse(f"{where}{exc.strerror or exc}")
    except MemoryError:
        return _refuse("out of memory; try a smaller file or --limit")
    except RecursionError:
        return _refuse("the input is nested too deeply to read")
    except KeyboardInterrupt:
        print("triage-app: interrupted", file=sys.stderr)
        return 130


def _refuse(message: str) -> int:
    """Bad input gets one line on stderr and exit 2, whatever the message held."""
    print(f"triage-app: {' '.join(message.splitlines())}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _wants_window(argv: list[str], parser: argparse.ArgumentParser) -> bool:
    """`triage-app`, `triage-app FILE` and `triage-app gui ...` open the window."""
    return not argv or argv[0] == "gui" or (argv[0] not in parser.commands and not argv[0].startswith("-"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="triage-app", description="Classify support tickets with a local model. "
                                     "With no command, or with a ticket file, it opens the window.")
    parser.add_argument("--self-test", action="store_true",
                        help="check this install end to end, offline: window (offscreen), bundled sample and model, "
                             "export; exit 0 if it all works")
    sub = parser.add_subparsers(dest="command", required=True)
    parser.commands = sub.choices  # name -> subparser, filled in below
    sub.add_parser("gui", help="the window: triage-app gui [FILE] [--screenshot PNG [--run N]] "
                              "(also: triage-app [FILE])")

    classify = sub.add_parser("classify", help="label every ticket of a file (CSV, TSV, XLSX, JSON, JSONL)")
    classify.add_argument("input")
    classify.add_argument("-o", "--output", required=True, help="CSV, XLSX, JSON or JSONL, by its suffix")
    _ticket_args(classify)
    _label_args(classify)
    _model_args(classify)
    _run_args(classify)
    _cleaning_args(classify)
    classify.add_argument("--reference", action="store_true", help="the slow one-by-one loop (the definition of right)")
    classify.add_argument("--stats-json", help="write the final statistics here")
    classify.add_argument("--limit", type=int, help="only the first N tickets")
    classify.add_argument("--db", help="the results database (default: in the per-user data folder)")
    classify.add_argument("--fresh", action="store_true", help="ignore results of earlier runs")
    classify.add_argument("--excel-bom", action="store_true", help="CSV output with a UTF-8 BOM, for Excel")
    classify.add_argument("--review-below", type=float, default=None,
                          help="mark labels less confident than this as needs_review (default 0.7)")
    classify.add_argument("--learn-from", metavar="COLUMN",
                          help="a column of known labels: rows with a value there are a person's labels and teach "
                               "the learned layer; the rest are labelled by the language model and it together")
    scale_command.add_arguments(classify)
    classify.set_defaults(func=_classify)

    inspect = sub.add_parser("inspect", help="what Triage reads from a ticket file")
    inspect.add_argument("input")
    inspect.add_argument("--sheet", help="XLSX: the sheet to read (default: the first)")
    inspect.add_argument("--json", action="store_true")
    inspect.set_defaults(func=_inspect)

    bench = sub.add_parser("bench", help="time the engine's modes side by side")
    _model_args(bench)
    bench.add_argument("--n", type=int, default=600, help="tickets from the sample set")
    bench.add_argument("--workload", default="short-prompt", help="short-prompt, long-prefix or app")
    bench.add_argument("--modes", default="reference,buckets,prefix,prefix+buckets,fast")
    bench.add_argument("--batch-size", type=int, default=config.DEFAULT_BATCH_SIZE)
    bench.add_argument("--token-budget", type=int, default=config.DEFAULT_TOKEN_BUDGET)
    bench.add_argument("--method", choices=config.METHODS, default="direct",
                       help="the scoring method every mode uses (the published setups measured direct)")
    bench.add_argument("--json", help="write the results here")
    bench.set_defaults(func=_bench)

    verify = sub.add_parser("verify", help="check the fast path against the reference loop")
    verify.add_argument("input")
    verify.add_argument("--probes", type=int, default=16)
    _ticket_args(verify)
    _label_args(verify)
    _model_args(verify)
    _run_args(verify)
    _cleaning_args(verify)
    verify.set_defaults(func=_verify)

    evaluate = sub.add_parser("eval", help="label quality against a column of right answers")
    evaluate.add_argument("input")
    evaluate.add_argument("--gold-column",
                          help="the column with the right labels (default: category, label, queue, ...)")
    evaluate.add_argument("--examples-per-label", type=int,
                          help="take N few-shot examples per label from the file (held out of the evaluation)")
    evaluate.add_argument("--compare", action="store_true",
                          help="also compare scoring choices, 0/1/2/4 examples per label, aliases and "
                               "promoted corrections")
    evaluate.add_argument("--limit", type=int, help="evaluate on N tickets picked at random (seeded)")
    evaluate.add_argument("--json", help="write the results here")
    evaluate.add_argument("--learning-curve", action="store_true",
                          help="instead: accuracy after k = 0, 2, 5, 10, 20 of the gold column's labels per label "
                               "(zero-shot, learned alone, combined), the same test rows for every k")
    evaluate.add_argument("--draws", type=int, default=5, help="--learning-curve: seeded draws of the labels per k")
    evaluate.add_argument("--plot", metavar="PNG", help="--learning-curve: draw the curve into this PNG")
    _ticket_args(evaluate)
    _label_args(evaluate)
    _model_args(evaluate)
    _run_args(evaluate)
    _cleaning_args(evaluate)
    evaluate.set_defaults(func=_eval)
    return parser


def _ticket_args(p):
    p.add_argument("--text-column", help="default: the first of text, body, description, message, ...")
    p.add_argument("--with-subject", action="store_true", help="prepend the subject/title column to the text")
    p.add_argument("--sheet", help="XLSX: the sheet to read (default: the first)")


def _model_args(p):
    p.add_argument("--model", default=config.DEFAULT_MODEL,
                   help="HF id or alias (qwen2.5-0.5b, smollm2-135m, random:qwen2.5-0.5b), folder or .gguf")
    p.add_argument("--device", default="auto", choices=config.DEVICES)
    p.add_argument("--dtype", default="auto", choices=config.DTYPES)
    p.add_argument("--download", action="store_true", help="download the model if it is not cached")


def _label_args(p):
    group = p.add_mutually_exclusive_group()
    group.add_argument("--labels", help="comma-separated label names")
    group.add_argument("--labels-file", help="a label set saved as JSON")


def _run_args(p):
    p.add_argument("--batch-size", type=int, default=config.DEFAULT_BATCH_SIZE)
    p.add_argument("--token-budget", type=int, default=config.DEFAULT_TOKEN_BUDGET, help="most rows x tokens in one batch")
    p.add_argument("--max-ticket-tokens", type=int, default=config.DEFAULT_MAX_TICKET_TOKENS,
                   help="longer tickets keep their head")
    p.add_argument("--no-prefix-cache", action="store_true")
    p.add_argument("--no-buckets", action="store_true")
    p.add_argument("--full-head", action="store_true")
    p.add_argument("--method", choices=config.METHODS,
                   help="channel (the default): score the ticket after each label, more accurate with small "
                        "models, one pass per label; direct: score the label after the ticket, one pass")
    p.add_argument("--length", choices=config.LENGTHS, default="sum",
                   help="how a multi-token label's token log-probs combine")
    p.add_argument("--no-calibrate", action="store_true", help="keep the model's prior over the labels")
    p.add_argument("--temperature", type=float, default=1.0, help="confidence temperature (fit it with eval)")


def _load_model(args):
    from triage_app.engine.build import load_model

    return load_model(_model_choice(args), log=lambda line: print(line, file=sys.stderr))


def _model_choice(args) -> config.ModelChoice:
    return config.ModelChoice(args.model, args.device, args.dtype, args.download)


def _label_set(args):
    from triage_app.engine.labels import LabelSet

    if args.labels_file:
        return LabelSet.load(args.labels_file)
    if args.labels:
        return LabelSet.from_names(args.labels.split(","))
    return LabelSet.default()


# flag -> the cleaning step it switches off
KEEP_FLAGS = {"escapes": "--keep-escapes", "html": "--keep-html", "signatures": "--keep-signatures",
              "whitespace": "--keep-whitespace"}


def _cleaning_args(p):
    from triage_app.files.clean import STEPS

    group = p.add_argument_group("text cleaning (what the model reads; the output keeps the text as it was)")
    group.add_argument("--no-clean", action="store_true", help="the text exactly as exported, no step runs")
    for step, flag in KEEP_FLAGS.items():
        group.add_argument(flag, action="append_const", const=step, dest="keep",
                           help=f"do not {STEPS[step]}")
    group.add_argument("--cut-replies", action="store_true", help=f"also {STEPS['replies']}")


def _cleaning(args):
    """The TextCleaning the flags ask for; --no-clean with any other cleaning flag is refused."""
    from triage_app.files.clean import TextCleaning

    if args.no_clean and (args.keep or args.cut_replies):
        raise ValueError("--no-clean switches every cleaning step off; leave out the --keep-* and --cut-replies flags")
    if args.no_clean:
        return TextCleaning.off()
    cleaning = TextCleaning(replies=args.cut_replies)
    return cleaning.without(*args.keep) if args.keep else cleaning


def _settings(args, reference: bool = False) -> config.RunSettings:
    """The run options of classify, verify and eval as the engine's typed settings."""
    scoring = config.Scoring(args.length, not args.no_calibrate, args.temperature,
                             args.method or config.DEFAULT_METHOD)
    run = config.RunConfig(prefix_cache=not args.no_prefix_cache, buckets=not args.no_buckets,
                           full_head=args.full_head, reference=reference, batch_size=args.batch_size,
                           token_budget=args.token_budget)
    return config.RunSettings(_model_choice(args), scoring, args.max_ticket_tokens, run)


def _classifier(args, label_set=None, loaded=None):
    from triage_app.engine.build import classifier_for

    return classifier_for(loaded or _load_model(args), label_set or _label_set(args), _settings(args))


def _read_tickets(args):
    """The table (its first --limit rows) and its ticket texts, opened as the window opens a file."""
    from triage_app.files.opening import open_tickets

    opened = open_tickets(args.input, args.sheet, args.text_column, guess=False)
    table = opened.table
    if getattr(args, "limit", None):
        table.frame = table.frame.head(args.limit)
    for note in opened.notes:
        print(f"note: {note}", file=sys.stderr)
    return table, table.texts(opened.text_column, opened.subject_column if args.with_subject else None)


def _classify(args) -> int:
    from tqdm import tqdm

    from triage_app.files.export import (FORMATS, REVIEW_BELOW, export, renamed_input_columns, results_frame,
                                         same_file)
    from triage_app.files.store import ResultStore
    from triage_app.job import run_job

    for output in filter(None, (args.output, args.stats_json)):
        if same_file(args.input, output):
            raise ValueError(f"{output}: that is the input file; write the results to another")
    cleaning = _cleaning(args)
    settings = _settings(args, reference=args.reference)
    if scale_command.wants_ray(args):
        if args.learn_from:  # the learned layer needs every row's scores in one place
            raise ValueError("--learn-from works on one machine; leave out --ray")
        return scale_command.run(args, settings, _label_set(args), cleaning)
    if Path(args.output).suffix.lower().lstrip(".") not in FORMATS:
        raise ValueError(f"{args.output}: the output must end in .{', .'.join(FORMATS)}")
    table, texts = _read_tickets(args)
    label_set = _label_set(args)
    taught = _column_labels(table, args.learn_from, label_set.names) if args.learn_from else None
    renames = renamed_input_columns(table.frame.columns, label_set.names)
    if renames:
        print(f"note: the output keeps input column(s) {', '.join(renames)} as {', '.join(renames.values())}; "
              "Triage writes its own under those names", file=sys.stderr)
    predictions, stats = [], None
    # the database first: an unusable one fails in a second, not after the model has loaded
    with ResultStore(args.db) as store:
        print(f"results database: {store.path}", file=sys.stderr)
        classifier = _classifier(args, label_set)
        with tqdm(total=len(texts), unit="ticket", file=sys.stderr, dynamic_ncols=True) as bar:
            for step in run_job(classifier, store, texts, settings.run, fresh=args.fresh or args.reference,
                                cleaning=cleaning):
                predictions += step.predictions
                stats = step.stats
                bar.update(len(step.predictions))
                bar.set_postfix_str(f"{stats.items_per_s:.1f} items/s, padding {100 * stats.padding_fraction:.1f}%")
        manual = _person_labels(store, args, table, label_set.names)
    review_below = REVIEW_BELOW if args.review_below is None else args.review_below
    sources = None
    if taught is not None:
        manual = {**taught, **manual}  # a label set in the window is the person's latest word
        predictions, sources = _learned(texts, predictions, label_set.names, manual)
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


def _person_labels(store, args, table, names: list[str]) -> dict[int, str]:
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


def _column_labels(table, column: str, names: list[str]) -> dict[int, str]:
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


def _learned(texts: list[str], predictions: list, names: list[str], taught: dict[int, str]) -> tuple[list, list]:
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


def _inspect(args) -> int:
    from triage_app.files import reader

    table = reader.read_tickets(args.input, args.sheet)
    try:
        column = reader.detect_text_column(table)
    except reader.BadInput:
        column = None
    blank = int((table.frame[column].str.strip() == "").sum()) if column else 0
    info = {"file": str(table.path), "format": table.format, "rows": len(table.frame), "columns": table.columns,
            "text_column": column, "subject_column": reader.detect_subject_column(table),
            "encoding": table.encoding, "delimiter": table.delimiter, "sheet": table.sheet,
            "blank_texts": blank, "cleaning_keeps": _cleaning_keeps(table.frame[column].tolist()) if column else None,
            "warnings": table.warnings + ([] if column else ["no ticket text column found"])}
    if args.json:
        print(json.dumps(info, indent=2, ensure_ascii=False))
    else:
        for key, value in info.items():
            print(f"{key:>14}: {value}")
    return 0


INSPECT_SAMPLE = 1000  # texts the cleaning share is measured on: inspect stays quick on a big export


def _cleaning_keeps(texts: list[str]) -> float | None:
    """The share of characters the default cleaning keeps, over the first filled texts."""
    from triage_app.files.clean import clean_texts

    sample = [t.strip() for t in texts if t.strip()][:INSPECT_SAMPLE]
    before = sum(map(len, sample))
    return round(sum(map(len, clean_texts(sample))) / before, 3) if before else None


def _verify(args) -> int:
    from triage_app.engine.verify import verify
    from triage_app.files.clean import clean_texts

    cleaning = _cleaning(args)
    _, texts = _read_tickets(args)
    classifier = _classifier(args)
    report = verify(classifier, clean_texts(texts, cleaning), args.probes, _settings(args).run)
    for d in report.disagreements:
        kind = "near-tie" if d.near_tie else "DISAGREEMENT"
        print(f"  ticket {d.index}: reference {d.reference}, fast {d.fast} "
              f"(reference log-margin {d.reference_log_margin:.3g}) {kind}")
    print(report.summary())
    return 0 if report.ok else 1


def _eval(args) -> int:
    import random

    from dataclasses import replace

    from triage_app.engine.build import classifier_for
    from triage_app.files import reader
    from triage_app.quality.evaluate import GoldSet, run_eval
    from triage_app.quality.metrics import reliability_plot

    _check_curve_args(args)
    cleaning = _cleaning(args)
    table, texts = _read_tickets(args)
    column = (reader.check_column(table, args.gold_column) if args.gold_column
              else reader.detect_gold_column(table))
    if column is None:
        raise reader.BadInput(f"{table.path.name}: no column of right answers found; name it with --gold-column")
    gold = table.frame[column].str.strip().tolist()
    label_set = _eval_label_set(args, gold)
    keep = [r for r, (t, g) in enumerate(zip(texts, gold)) if t.strip() and g in label_set.names]
    if args.limit and args.limit < len(keep):
        keep = sorted(random.Random(0).sample(keep, args.limit))
    gold_set = GoldSet([texts[r] for r in keep], [gold[r] for r in keep]).cleaned(cleaning)
    loaded = _load_model(args)
    if args.learning_curve:
        return _eval_curve(args, loaded, gold_set, label_set, table, column)
    settings = _settings(args)
    make = lambda labels, scoring: classifier_for(loaded, labels, replace(settings, scoring=scoring))
    out = run_eval(make, gold_set, label_set, settings.scoring, settings.run, args.examples_per_label,
                   args.compare, log=lambda line: print(line, file=sys.stderr))
    out.update(model=loaded.name, dtype=loaded.placement.dtype_name, file=str(table.path), gold_column=column,
               cleaning=list(cleaning.steps))
    _print_eval(out, reliability_plot)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


def _check_curve_args(args) -> None:
    """Said before the model loads, not after the run."""
    if (args.plot or args.draws != 5) and not args.learning_curve:
        raise ValueError("--plot and --draws go with --learning-curve")
    if args.draws < 1:
        raise ValueError(f"--draws must be at least 1, not {args.draws}")
    if args.plot and Path(args.plot).suffix.lower() != ".png":
        raise ValueError(f"{args.plot}: the plot is a PNG; name it .png")


def _eval_curve(args, loaded, gold_set, label_set, table, column) -> int:
    from triage_app.quality.evaluate import learning_curve_eval

    settings = _settings(args)
    classifier = _classifier(args, label_set, loaded)
    curve, scored = learning_curve_eval(classifier, gold_set, settings.scoring, settings.run, args.draws,
                                        log=lambda line: print(line, file=sys.stderr))
    out = dict(curve.to_dict(), set=table.path.stem, model=loaded.name, dtype=loaded.placement.dtype_name,
               file=str(table.path), gold_column=column, n=len(gold_set.texts), lm_seconds=scored.seconds,
               cleaning=list(gold_set.cleaning.steps))
    print(f"{loaded.name} ({out['dtype']}): {len(gold_set.texts)} tickets, {len(curve.names)} labels; "
          f"{out['n_test']} test tickets, the same for every k; {curve.draws} seeded draws")
    print(curve.table())
    for target, met in curve.targets().items():
        print(f"{target}: {'yes' if met else 'NO'}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    if args.plot:
        _plot_curve(out, Path(args.plot))
    return 0


def _plot_curve(result: dict, png: Path) -> None:
    """The curve drawn as the docs draw theirs: the package's SVG, rendered by Qt offscreen."""
    from triage_app.learn.curve import curves_svg
    from triage_app.ui.images import svg_to_png

    svg_to_png(curves_svg([result]), png)


def _eval_label_set(args, gold):
    """The label set to judge: as given, or the default one, or the gold column's own labels."""
    from triage_app.engine.labels import LabelSet

    if args.labels or args.labels_file:
        return _label_set(args)
    found = sorted(set(g for g in gold if g))
    default = LabelSet.default()
    return default if set(found) <= set(default.names) else LabelSet.from_names(found)


def _print_eval(out, reliability_plot):
    from triage_app.quality.metrics import Report

    r = out["report"]
    report = Report.from_dict(r)
    s = out["scoring"]
    print(f"{out['model']} ({out['dtype']}), scoring: {s['method']}, {s['length']}"
          f"{', calibrated' if s['calibrate'] else ''}, temperature {s['temperature']:g}; "
          f"{out['examples']} few-shot example(s), prefix {out['prefix_tokens']} tokens; "
          f"text cleaning: {', '.join(out['cleaning']) or 'off'}")
    print(report.table())
    print("reliability (confidence bins):")
    print(reliability_plot(r["reliability"]))
    print(f"temperature fitted on the gold column: {out['fitted_temperature']:.2f} "
          f"(ECE {r['ece']:.3f} -> {out['ece_after_temperature']:.3f}, cross-fitted on halves); "
          f"use it with --temperature {out['fitted_temperature']:.2f}")
    if "scoring_grid" in out:
        print("\nscoring choices (same run):")
        for name, b in out["scoring_grid"].items():
            print(f"  {name:<24} accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}  ECE {b['ece']:.3f}")
        print("few-shot examples per label (examples from the file, same evaluation rows):")
        for k, b in out["few_shot"].items():
            print(f"  {k}: accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}  "
                  f"prefix {b['prefix_tokens']} tokens  {b['seconds']:.1f} s")
        b = out["other_method"]
        print(f"{b['method']} scoring instead: accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}  "
              f"ECE {b['ece']:.3f}  {b['seconds']:.1f} s (this run: {out['seconds']:.1f} s)")
        if "without_aliases" in out:
            b = out["without_aliases"]
            print(f"without aliases (label names scored): accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}")
        c = out["corrections"]
        print(f"corrections promoted to examples: {c['promoted']}; on the other {c['n']} tickets accuracy "
              f"{c['before']['accuracy']:.3f} -> {c['after']['accuracy']:.3f}, macro-F1 "
              f"{c['before']['macro_f1']:.3f} -> {c['after']['macro_f1']:.3f}")


def _bench(args) -> int:
    from dataclasses import asdict

    from triage_app.engine.bench import MODES, dense_rate, run_modes, table
    from triage_app.engine.workloads import workload

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ValueError(f"unknown mode(s) {', '.join(unknown)}: use {', '.join(MODES)}")
    loaded = _load_model(args)
    work = workload(args.workload, args.n)
    print(f"workload {work.name}: {len(work.texts)} tickets, {args.method} scoring", file=sys.stderr)
    results = run_modes(loaded, work, modes, args.batch_size, args.token_budget, args.method,
                        log=lambda line: print(line, file=sys.stderr))
    rate = dense_rate(loaded)
    print(table(results))
    print(f"dense-forward rate: {rate:.0f} tokens/s (32 x 100 real tokens, one unpadded batch)")
    out = {"model": loaded.name, "device": loaded.placement.device, "dtype": loaded.placement.dtype_name,
           "n": len(work.texts), "workload": work.name, "method": args.method, "dense_tokens_per_s": rate,
           "modes": {m: asdict(r) for m, r in results.items()}}
    if "fast" in results:
        fast = results["fast"]
        out["fast_efficiency"] = fast.real_tokens / rate / fast.seconds
        print(f"fast-path efficiency: {out['fast_efficiency']:.2f} of the dense-forward rate")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0
