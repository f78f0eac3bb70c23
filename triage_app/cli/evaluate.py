"""eval: label quality against a column of right answers, or the learning curve."""

from __future__ import annotations

import sys
from pathlib import Path

import triage_app.cli.options as options
from triage_app.engine.labels import folded


def run(args) -> int:
    from triage_app.files import reader
    from triage_app.quality.metrics import reliability_plot

    check_curve_args(args)
    options.at_least(args.limit, 1, "--limit")
    options.at_least(args.examples_per_label, 0, "--examples-per-label")
    options.refuse_pruned_confidences(args, {"eval": True})   # its calibration and gates read confidences
    cleaning = options.cleaning(args)
    table, texts = options.read_tickets(args)     # whole: --limit draws its tickets from every gold row
    axes = options.axes(args) if args.labels_file else None
    if axes is not None and not axes.is_plain:
        return run_axes(args, axes, table, texts, cleaning)
    column = (reader.check_column(table, args.gold_column) if args.gold_column
              else reader.detect_gold_column(table))
    if column is None:
        raise reader.BadInput(f"{table.path.name}: no column of right answers found; name it with --gold-column")
    gold = table.frame[column].str.strip().tolist()
    label_set = judged_label_set(args, gold)
    gold_set = gold_rows(args, texts, gold, label_set, cleaning, column)
    check_gold_rows(args, gold_set, label_set, column)
    loaded = options.load_model(args)
    if args.learning_curve:
        return learning_curve(args, loaded, gold_set, label_set, table, column)
    out = evaluated(args, loaded, gold_set, label_set, table, column, cleaning)
    print_eval(out, reliability_plot)
    if args.json:
        options.write_json(args.json, out)
    return 0


def run_axes(args, axes, table, texts, cleaning) -> int:
    """Each axis judged against its own gold column (--gold-column queue=COL,..., or the column named
    after the axis), one after the other on the same model."""
    from triage_app.quality.metrics import reliability_plot

    if args.learning_curve:
        raise ValueError("--learning-curve takes one label set, not several axes")
    columns = gold_columns(args, axes, table)
    golds = {axis.name: table.frame[columns[axis.name]].str.strip().tolist() for axis in axes}
    for axis in axes:
        if not {folded(g) for g in golds[axis.name]} & {folded(name) for name in axis.names}:
            raise ValueError(f"--gold-column {axis.name}={columns[axis.name]}: no value is one of the axis's "
                             f"labels ({', '.join(axis.names)})")
    gold_sets = {axis.name: gold_rows(args, texts, golds[axis.name], axis.label_set, cleaning,
                                      f"{axis.name}={columns[axis.name]}") for axis in axes}
    for axis in axes:
        check_gold_rows(args, gold_sets[axis.name], axis.label_set, f"{axis.name}={columns[axis.name]}")
    loaded = options.load_model(args)
    results = {}
    for axis in axes:
        gold_set = gold_sets[axis.name]
        print(f"axis {axis.name}, gold column {columns[axis.name]}:")
        results[axis.name] = evaluated(args, loaded, gold_set, axis.label_set, table, columns[axis.name], cleaning,
                                       axis, axes)
        print_eval(results[axis.name], reliability_plot)
        print()
    if args.json:
        options.write_json(args.json, {"axes": results})
    return 0


def gold_columns(args, axes, table) -> dict[str, str]:
    """Axis name -> its column of right answers: as --gold-column names it, or the column named like the axis."""
    from triage_app.files import reader

    named = options.per_axis(args.gold_column, axes, "--gold-column", options.column, plain_for_all=False)
    by_name = {c.strip().lower(): c for c in reversed(table.columns)}
    columns = {}
    for axis in axes:
        column = reader.check_column(table, named[axis.name]) if named[axis.name] else by_name.get(axis.name.lower())
        if column is None:
            raise reader.BadInput(f"{table.path.name}: no column of right answers for axis {axis.name}; "
                                  f"name it with --gold-column {axis.name}=COLUMN")
        columns[axis.name] = column
    return columns


def gold_rows(args, texts, gold, label_set, cleaning, column: str):
    """The rows with a ticket and a gold value (--limit of them, drawn seeded), cleaned. Values match labels
    as the accuracy tab matches them (quality.metrics.evaluate: ignoring case and surrounding spaces), and
    one that matches no label counts as wrong, as there, and is said; a learning curve learns from the
    labels alone (column: as --gold-column names it)."""
    import random
    from collections import Counter

    from triage_app.quality.evaluate import GoldSet
    from triage_app.quality.metrics import as_labels

    gold = as_labels(gold, label_set.names)
    keep = [r for r, (t, g) in enumerate(zip(texts, gold))
            if t.strip() and g and (g in label_set.names or not args.learning_curve)]
    unmatched = Counter(g for t, g in zip(texts, gold) if t.strip() and g and g not in label_set.names)
    if unmatched and set(gold) & set(label_set.names):    # none matching: refused (check_gold_rows)
        print(f"note: --gold-column {column}: {sum(unmatched.values())} row(s) hold a value that matches no label "
              f"({', '.join(f'{g}: {n}' for g, n in unmatched.most_common(5))}{', …' if len(unmatched) > 5 else ''}):"
              f" {'left out of the learning curve' if args.learning_curve else 'they count as wrong, as in the window'}",
              file=sys.stderr)
    if args.limit and args.limit < len(keep):
        keep = sorted(random.Random(0).sample(keep, args.limit))
    return GoldSet([texts[r] for r in keep], [gold[r] for r in keep]).cleaned(cleaning)


def check_gold_rows(args, gold_set, label_set, column: str) -> None:
    """Refused before the model loads: a gold column that holds none of the labels (the wrong column), or
    examples that hold out every gold row (quality/evaluate.run_eval holds out the same rows)."""
    from triage_app.quality.evaluate import FEW_SHOT_COUNTS, examples_from

    if not set(gold_set.gold) & set(label_set.names):
        raise ValueError(f"--gold-column {column}: no value is one of the labels ({', '.join(label_set.names)})")
    if args.learning_curve:
        return
    shots = args.examples_per_label or 0
    pool = max(max(FEW_SHOT_COUNTS) if args.compare or shots else 0, shots)
    if not examples_from(gold_set, label_set.names, shots, pool)[1]:
        raise ValueError(f"--examples-per-label {shots}{' --compare' if args.compare else ''}: the first {pool} "
                         f"tickets of each label are held out as examples, and column {column} has no more to "
                         f"evaluate on; ask for fewer")


def evaluated(args, loaded, gold_set, label_set, table, column, cleaning, axis=None, axes=None) -> dict:
    """One label set's eval on the gold rows, with what it ran on; an axis's own method, where it names
    one, and its prompt as a run of all the axes builds it (direct-fields names every field)."""
    from dataclasses import replace

    from triage_app.engine.build import axis_style, classifier_for
    from triage_app.engine.prompt import PromptStyle

    from triage_app.quality.evaluate import run_eval

    settings = options.settings(args) if axis is None else axis.settings(options.settings(args))
    style = PromptStyle() if axis is None else axis_style(axes, axis.name, options.settings(args))
    make = lambda labels, scoring: classifier_for(loaded, labels, replace(settings, scoring=scoring), style)
    with TicketBars() as bars:
        out = run_eval(make, gold_set, label_set, settings.scoring, settings.run, args.examples_per_label,
                       args.compare, log=lambda line: print(line, file=sys.stderr), progress=bars.update)
    out.update(model=loaded.name, dtype=loaded.placement.dtype_name, file=str(table.path), gold_column=column,
               cleaning=list(cleaning.steps))
    return out


class TicketBars:
    """A tqdm bar on stderr for each model pass, as classify shows one: a pass over 200 tickets takes
    minutes, and --compare makes several. update(done, total) is the passes' progress callback."""

    def __init__(self):
        self.bar = None

    def update(self, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None or self.bar.total != total or done < self.bar.n:
            self.close()
            self.bar = tqdm(total=total, unit="ticket", file=sys.stderr, dynamic_ncols=True)
        self.bar.update(done - self.bar.n)
        if done == total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def check_curve_args(args) -> None:
    """Said before the model loads, not after the run."""
    if (args.plot or args.draws != 5) and not args.learning_curve:
        raise ValueError("--plot and --draws go with --learning-curve")
    if args.draws < 1:
        raise ValueError(f"--draws must be at least 1, not {args.draws}")
    if args.plot and Path(args.plot).suffix.lower() != ".png":
        raise ValueError(f"{args.plot}: the plot is a PNG; name it .png")


def learning_curve(args, loaded, gold_set, label_set, table, column) -> int:
    from triage_app.quality.evaluate import learning_curve_eval

    settings = options.settings(args)
    classifier = options.classifier(args, settings, label_set, loaded)
    encoder = options.load_encoder(args)   # None: the curve learns on TF-IDF alone
    with TicketBars() as bars:
        embedded = curve_embeddings(args, encoder, gold_set, label_set, bars.update) if encoder else {}
        curve, scored = learning_curve_eval(classifier, gold_set, settings.scoring, settings.run, args.draws,
                                            log=lambda line: print(line, file=sys.stderr), progress=bars.update,
                                            **embedded)
    out = dict(curve.to_dict(), set=table.path.stem, model=loaded.name, dtype=loaded.placement.dtype_name,
               file=str(table.path), gold_column=column, n=len(gold_set.texts), lm_seconds=scored.seconds,
               cleaning=list(gold_set.cleaning.steps))
    named = f", sentence encoder {encoder.name}" if encoder else ""
    print(f"{loaded.name} ({out['dtype']}){named}: {len(gold_set.texts)} tickets, {len(curve.names)} labels; "
          f"{out['n_test']} test tickets, the same for every k; {curve.draws} seeded draws")
    print(curve.table())
    for target, met in curve.targets().items():
        print(f"{target}: {'yes' if met else 'NO'}")
    if args.json:
        options.write_json(args.json, out)
    if args.plot:
        plot_curve(out, Path(args.plot))
    return 0


def curve_embeddings(args, encoder, gold_set, label_set, progress) -> dict:
    """learning_curve_eval's encoder part, built by the function classify --person-labels builds its own
    with (run/embedded.py): the tickets' vectors through the results database's embedding cache, and the
    labels' similarity with their prototypes. So the curve's combined column is the product's answer."""
    from triage_app.cli.learning import say_encoder_advice
    from triage_app.files.clean import TextCleaning
    from triage_app.files.embeddings import EmbeddingCache
    from triage_app.run.embedded import file_embeddings

    say_encoder_advice(encoder, gold_set.texts)
    with EmbeddingCache(args.db) as cache:
        print(f"embedding cache: {cache.path}", file=sys.stderr)
        # the gold set's texts are cleaned already (GoldSet.cleaned): cleaning them again could change them
        found = file_embeddings(gold_set.texts, TextCleaning.off(), encoder, cache, {"curve": label_set}, progress)
    return {"embeddings": found.features.matrix, "similarity": found.similarity["curve"], "encoder": encoder.name}


def plot_curve(result: dict, png: Path) -> None:
    """The curve drawn as the docs draw theirs: the package's SVG, rendered by Qt offscreen."""
    from triage_app.quality.curve import curves_svg
    from triage_app.ui.images import svg_to_png

    from triage_app.files.export import write_or_fail

    write_or_fail(png, lambda tmp: svg_to_png(curves_svg([result]), Path(tmp)))     # whole or not at all


def judged_label_set(args, gold):
    """The label set to judge: as given, or the default one, or the gold column's own labels."""
    from triage_app.engine.labels import LabelSet

    if args.labels or args.labels_file:
        return options.label_set(args)
    spelled: dict[str, str] = {}
    for g in gold:        # one label per value whatever its case, as the values are matched (gold_rows)
        if g:
            spelled.setdefault(folded(g), g)
    found = sorted(spelled.values())
    default = LabelSet.default()
    return default if set(found) <= set(default.names) else LabelSet.from_names(found)


def print_eval(out, reliability_plot):
    from triage_app.quality.metrics import TEMPERATURE_ROWS, TEMPERATURES, Report

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
    print("confidence gates (applied at or above, the rest to a person): " + "; ".join(
        f"{g['threshold']:.2f}: {100 * g['applied']:.0f}% applied"
        + (f", {100 * g['accuracy']:.1f}% right" if g["accuracy"] is not None else "") for g in r.get("gates", [])))
    fitted = out["fitted_temperature"]
    if r["n"] < TEMPERATURE_ROWS or any(abs(fitted / bound - 1) < 0.01 for bound in TEMPERATURES):
        print(f"temperature: none to use, {fitted:.2f} fitted on {r['n']} row(s) (too few, or too one-sided: "
              f"{TEMPERATURE_ROWS} at least, and a fit inside {TEMPERATURES[0]:g}-{TEMPERATURES[1]:g})")
    else:
        print(f"temperature fitted on the gold column: {fitted:.2f} (ECE {r['ece']:.3f} -> "
              f"{out['ece_after_temperature']:.3f}, cross-fitted on halves); use it with --temperature {fitted:.2f}")
    if "scoring_grid" in out:
        print("\nscoring choices (same run):")
        for name, b in out["scoring_grid"].items():
            print(f"  {name:<24} accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}  ECE {b['ece']:.3f}")
        print("few-shot examples per label (examples from the file, same evaluation rows):")
        for k, b in out["few_shot"].items():
            print(f"  {k}: accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}  "
                  f"prefix {b['prefix_tokens']} tokens  {b['seconds']:.1f} s")
        for method, b in out["other_methods"].items():
            print(f"{method} scoring instead: accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}  "
                  f"ECE {b['ece']:.3f}  {b['seconds']:.1f} s (this run: {out['seconds']:.1f} s)")
        if "without_aliases" in out:
            b = out["without_aliases"]
            print(f"without aliases (label names scored): accuracy {b['accuracy']:.3f}  macro-F1 {b['macro_f1']:.3f}")
        c = out["corrections"]
        print(f"corrections promoted to examples: {c['promoted']}; on the other {c['n']} tickets accuracy "
              f"{c['before']['accuracy']:.3f} -> {c['after']['accuracy']:.3f}, macro-F1 "
              f"{c['before']['macro_f1']:.3f} -> {c['after']['macro_f1']:.3f}")
