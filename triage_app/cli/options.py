"""The options of a command as the engine's typed settings: built here, once per command, and checked
where they are made (engine/config.py's dataclasses check their own bounds)."""

from __future__ import annotations

import sys

from triage_app.engine import config


def load_model(args):
    from triage_app.engine import build

    return build.load_model(model_choice(args), log=lambda line: print(line, file=sys.stderr))


def load_encoder(args):
    """The sentence encoder --encoder names (run/embedded.py): None to learn on TF-IDF."""
    from triage_app.run.embedded import load_encoder as load

    return load(getattr(args, "encoder", config.BUNDLED_ENCODER), log=lambda line: print(line, file=sys.stderr))


def model_choice(args) -> config.ModelChoice:
    return config.ModelChoice(args.model, args.device, args.dtype, args.download)


def label_set(args):
    """The one label set of a command that takes one; a file of several axes is refused."""
    chosen = axes(args)
    if len(chosen) > 1:
        raise ValueError(f"{args.labels_file} holds {len(chosen)} axes ({', '.join(chosen.names)}); "
                         "this command takes one label set")
    return chosen.first.label_set


def axes(args):
    """The axes the options name: a label-set file's, or the one plain axis of --labels or the default set."""
    from triage_app.engine.axes import Axes
    from triage_app.engine.labels import LabelSet

    if args.labels_file:
        return Axes.load(args.labels_file)
    if args.labels:
        return Axes.of(LabelSet.from_names(args.labels.split(",")))
    return Axes.of(LabelSet.default())


def per_axis(spec: str | None, axes, flag: str, parse, default=None, plain_for_all: bool = True) -> dict:
    """`queue=0.8,priority=0.6` as {axis name: value}, each value read by parse(text, flag); an axis not
    named gets default. A plain value (no `=`) is every axis's, or, where not plain_for_all, only the
    one axis's of a one-axis run."""
    if spec is None:
        return {name: default for name in axes.names}
    if "=" not in spec:
        if not plain_for_all and len(axes) > 1:
            raise ValueError(f"{flag} {spec}: name the axis, as in {axes.names[0]}={spec}")
        value = parse(spec.strip(), flag)
        return {name: value for name in axes.names}
    given = {}
    for part in spec.split(","):
        name, _, text = (s.strip() for s in part.partition("="))
        if not name or not text:
            raise ValueError(f"{flag} {spec}: write AXIS=VALUE, comma-separated (axes: {', '.join(axes.names)})")
        if name not in axes.names:
            raise ValueError(f"{flag}: no axis {name!r}; the axes are {', '.join(axes.names)}")
        if name in given:
            raise ValueError(f"{flag}: axis {name!r} is named twice")
        given[name] = parse(text, flag)
    return {name: given.get(name, default) for name in axes.names}


def probability(text: str, flag: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{flag}: {text!r} is not a number from 0 to 1") from None
    if not 0 <= value <= 1:  # NaN fails here too
        raise ValueError(f"{flag}: {text} is not from 0 to 1")
    return value


def column(text: str, flag: str) -> str:
    return text


def at_least(value: int | None, least: int, flag: str) -> None:
    """A count a person gave, refused under its least before anything is read: --limit 0 would read as no
    limit at all, a negative one as a slice from the end, --probes 0 as a verify that checks nothing."""
    if value is not None and value < least:
        raise ValueError(f"{flag} must be at least {least}, not {value}")


def refuse_pruned_confidences(args, readers: dict[str, object]) -> None:
    """--prune leaves the labels that cannot win unfinished: the label is exact, the confidence and every
    probability only a lower or upper bound. readers: option -> its value, for the options that read a
    confidence or a probability (or a command that always does -> True); one given with --prune is refused,
    before the model loads."""
    given = [flag for flag, value in readers.items() if value is not None]
    if args.prune and given:
        instead = f"--prune or {given[0]}" if given[0].startswith("-") else "--prune"
        raise ValueError(f"--prune leaves the labels that cannot win unfinished (confidences and probabilities are "
                         f"bounds), and {given[0]} reads them: leave out {instead}")


def write_json(path: str, data) -> None:
    """A command's statistics or results, written whole or not at all (files/export.write_text)."""
    import json

    from triage_app.files.export import write_text

    write_text(path, json.dumps(data, indent=2) + "\n")


def cleaning(args):
    """The TextCleaning the flags ask for; --no-clean with any other cleaning flag is refused."""
    from triage_app.files.clean import TextCleaning

    if args.no_clean and (args.keep or args.cut_replies):
        raise ValueError("--no-clean switches every cleaning step off; leave out the --keep-* and --cut-replies flags")
    if args.no_clean:
        return TextCleaning.off()
    steps = TextCleaning(replies=args.cut_replies)
    return steps.without(*args.keep) if args.keep else steps


def settings(args, reference: bool = False) -> config.RunSettings:
    """The run options of classify, verify and eval as the engine's typed settings."""
    scoring = config.Scoring(args.length, not args.no_calibrate, args.temperature,
                             args.method or config.DEFAULT_METHOD)
    run = config.RunConfig(prefix_cache=not args.no_prefix_cache, buckets=not args.no_buckets,
                           full_head=args.full_head, prune=args.prune, reference=reference,
                           batch_size=args.batch_size, token_budget=args.token_budget)
    limit = config.METHOD_LIMIT if args.max_ticket_tokens is None else args.max_ticket_tokens
    return config.RunSettings(model_choice(args), scoring, limit, run)


def classifier(args, run_settings: config.RunSettings, labels=None, loaded=None):
    """The command's classifier, on the settings it built once (settings(args)); the model loaded
    here unless given, the label set the options name unless given."""
    from triage_app.engine.build import classifier_for

    return classifier_for(loaded or load_model(args), labels or label_set(args), run_settings)


def read_tickets(args, first: int | None = None):
    """The table (its first `first` rows; None: all) and its ticket texts, opened as the window opens a file."""
    from triage_app.files.opening import open_tickets

    opened = open_tickets(args.input, args.sheet, args.text_column, guess=False, limit=first)
    table = opened.table
    for note in opened.notes:
        print(f"note: {note}", file=sys.stderr)
    # a column found by a word of its name ("Ticket #" once was): a wrong pick is seen before the run, not after
    if not args.text_column and opened.text_column.strip().lower() != "text":
        print(f"note: ticket text from column {opened.text_column!r}", file=sys.stderr)
    if args.with_subject and opened.subject_column is None:
        from triage_app.files.reader import SUBJECT_COLUMNS

        print(f"note: --with-subject: no subject column found (looked for {', '.join(SUBJECT_COLUMNS)}); the text "
              "is read alone", file=sys.stderr)
    texts = table.texts(opened.text_column, opened.subject_column if args.with_subject else None)
    if not any(text.strip() for text in texts):   # the wrong column, most likely: said before a run of nothing
        print(f"note: {table.path.name}: column {opened.text_column!r} is blank on every row; name the tickets' "
              "text with --text-column", file=sys.stderr)
    return table, texts
