"""What each command takes: the argument parser, and the option groups commands share."""

from __future__ import annotations

import argparse

import triage_app.cli.bench as bench_command
import triage_app.cli.classify as classify_command
import triage_app.cli.evaluate as eval_command
import triage_app.cli.inspect_file as inspect_command
import triage_app.cli.verify as verify_command
from triage_app.engine import config  # the run's settings and their defaults; no torch
from triage_app.paths import resource
from triage_app.scale import command as scale_command  # light: imports neither ray nor torch

# flag -> the cleaning step it switches off
KEEP_FLAGS = {"escapes": "--keep-escapes", "html": "--keep-html", "signatures": "--keep-signatures",
              "whitespace": "--keep-whitespace"}
# The files a command reads and writes, (option, argument, what it holds[, what to do instead]): cli.main
# holds them to files/output_paths.py before the command runs. The database first: it holds a person's labels.
# a model or encoder named by its file or folder (an alias or a Hugging Face id is none: cli._path)
MODEL_READS = (("--model", "model", "the model"), ("--encoder", "encoder", "the sentence encoder"))
READS = (("", "input", "the input file"), ("--labels-file", "labels_file", "the label set"), *MODEL_READS)
OTHER_FILE = "write the results to another"
JSON_OUTPUTS = ("--stats-json", "--json")   # written as JSON whatever the name says: a .json name is asked
DATABASE = ("--db", "db", "the results database", "keep the results database in another file")


def build_parser() -> argparse.ArgumentParser:
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
    ticket_args(classify)
    label_args(classify)
    model_args(classify)
    run_args(classify)
    cleaning_args(classify)
    classify.add_argument("--reference", action="store_true", help="the slow one-by-one loop (the definition of right)")
    classify.add_argument("--stats-json", help="write the final statistics here")
    classify.add_argument("--limit", type=int, help="only the first N tickets")
    classify.add_argument("--db", help="the results database (default: in the per-user data folder)")
    classify.add_argument("--fresh", action="store_true", help="ignore results of earlier runs")
    classify.add_argument("--excel-bom", action="store_true", help="CSV output with a UTF-8 BOM, for Excel")
    classify.add_argument("--review-below", metavar="P | AXIS=P,...",
                          help="mark labels less confident than this as needs_review (default 0.7); with several "
                               "axes, one for all or per axis: queue=0.8,priority=0.6")
    classify.add_argument("--person-labels", "--learn-from", metavar="COLUMN | AXIS=COLUMN,...",
                          help="a column of known labels: rows with a value there are a person's labels and teach "
                               "the learned layer; the rest are labelled by the language model and it together. "
                               "With several axes, a column per axis: queue=queue_known,priority=prio_known")
    learn_args(classify)
    updates = classify.add_argument_group("the helpdesk's way back (docs/helpdesk_updates.md)")
    updates.add_argument("--updates", metavar="F.csv|F.json",
                         help="also write, per ticket id, the fields sure enough to set in the helpdesk")
    updates.add_argument("--apply-above", metavar="P | AXIS=P,...",
                         help="--updates: set a field where the label is at least this sure (default 0.7 each), "
                              "or where a person set it; per axis: queue=0.8,priority=0.7")
    updates.add_argument("--id-column", help="--updates: the ticket id column (default: id, ticket_id, number, ...)")
    scale_command.add_arguments(classify)
    classify.set_defaults(func=classify_command.run, reads=READS, writes=(
        DATABASE, ("-o", "output", "the export", OTHER_FILE), ("--updates", "updates", "the updates", OTHER_FILE),
        ("--stats-json", "stats_json", "the statistics", OTHER_FILE)))

    inspect = sub.add_parser("inspect", help="what Triage reads from a ticket file")
    inspect.add_argument("input")
    inspect.add_argument("--sheet", help="XLSX: the sheet to read (default: the first)")
    inspect.add_argument("--json", action="store_true")
    inspect.set_defaults(func=inspect_command.run)

    bench = sub.add_parser("bench", help="time the engine's modes side by side")
    model_args(bench)
    bench.add_argument("--n", type=int, default=600, help="tickets from the sample set")
    bench.add_argument("--workload", default="short-prompt", help="short-prompt, long-prefix, app, many-labels, export (float32 against checked bfloat16), "
                            "taught (the same once a person has labelled every tenth ticket) "
                            "or axes (three axes in one pass against one run per axis)")
    bench.add_argument("--modes", default="reference,buckets,prefix,prefix+buckets,fast")
    bench.add_argument("--batch-size", type=int, default=config.DEFAULT_BATCH_SIZE)
    bench.add_argument("--token-budget", type=int, default=config.DEFAULT_TOKEN_BUDGET)
    bench.add_argument("--method", choices=config.METHODS, default="direct",
                       help="the scoring method every mode uses (the published setups measured direct)")
    bench.add_argument("--json", help="write the results here")
    bench.set_defaults(func=bench_command.run, reads=MODEL_READS,
                       shipped=(("--workload", str(resource("")), "the files Triage ships"),),   # its workloads
                       writes=(("--json", "json", "the results", OTHER_FILE),))

    verify = sub.add_parser("verify", help="check the fast path against the reference loop")
    verify.add_argument("input")
    verify.add_argument("--probes", type=int, default=16)
    ticket_args(verify)
    label_args(verify)
    model_args(verify)
    run_args(verify)
    cleaning_args(verify)
    verify.set_defaults(func=verify_command.run)

    evaluate = sub.add_parser("eval", help="label quality against a column of right answers")
    evaluate.add_argument("input")
    evaluate.add_argument("--gold-column", metavar="COLUMN | AXIS=COLUMN,...",
                          help="the column with the right labels (default: category, label, queue, ...); with "
                               "several axes, one per axis (default: the column named like the axis)")
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
    evaluate.add_argument("--db", help="the results database, whose embedding cache --learning-curve reads and "
                                       "fills (default: in the per-user data folder)")
    encoder_arg(evaluate)
    ticket_args(evaluate)
    label_args(evaluate)
    model_args(evaluate)
    run_args(evaluate)
    cleaning_args(evaluate)
    evaluate.set_defaults(func=eval_command.run, reads=READS, writes=(
        DATABASE, ("--json", "json", "the results", OTHER_FILE), ("--plot", "plot", "the plot", OTHER_FILE)))
    return parser


def learn_args(p):
    group = p.add_argument_group("learning from a person's labels (docs/learning/labels_first.md)")
    encoder_arg(group)
    group.add_argument("--labels-first", type=float, nargs="?", const=config.LABELS_FIRST_SURE, metavar="P",
                       help="with --person-labels: answer from the person's labels, and let the language model read "
                            f"only the tickets whose learned answer is under P sure (default {config.LABELS_FIRST_SURE})")
    group.add_argument("--none-of-these", action="store_true",
                       help="with --person-labels: label 'none of these' the tickets whose answer is less sure than a "
                            "threshold fitted on the person's labels (left out of --updates)")


def encoder_arg(p):
    p.add_argument("--encoder", default=config.BUNDLED_ENCODER, metavar="bundled|none|FOLDER",
                   help="learn a person's labels on this sentence encoder's embeddings: the bundled all-MiniLM-L6-v2 "
                        "(default), a folder of your own, or none (TF-IDF words)")


def ticket_args(p):
    p.add_argument("--text-column", help="default: the first of text, body, description, message, ...")
    p.add_argument("--with-subject", action="store_true", help="prepend the subject/title column to the text")
    p.add_argument("--sheet", help="XLSX: the sheet to read (default: the first)")


def model_args(p):
    p.add_argument("--model", default=config.DEFAULT_MODEL,
                   help="HF id or alias (qwen2.5-0.5b, smollm2-135m, random:qwen2.5-0.5b), folder or .gguf")
    p.add_argument("--device", default="auto", choices=config.DEVICES)
    p.add_argument("--dtype", default="auto", choices=config.DTYPES)
    p.add_argument("--download", action="store_true", help="download the model if it is not cached")


def label_args(p):
    group = p.add_mutually_exclusive_group()
    group.add_argument("--labels", help="comma-separated label names")
    group.add_argument("--labels-file", help="a label set saved as JSON; classify and eval also take several axes "
                                             "({\"axes\": [{\"name\": \"queue\", \"labels\": [...]}, ...]})")


def run_args(p):
    p.add_argument("--batch-size", type=int, default=config.DEFAULT_BATCH_SIZE)
    p.add_argument("--token-budget", type=int, default=config.DEFAULT_TOKEN_BUDGET, help="most rows x tokens in one batch")
    p.add_argument("--max-ticket-tokens", type=int, metavar="K",
                   help="longer tickets keep their head, with every method (default: each method's own: channel "
                        f"reads a ticket's first {config.own_ticket_tokens('channel')} tokens, the others up to "
                        f"{config.DEFAULT_MAX_TICKET_TOKENS}; 0: all the model's context allows)")
    p.add_argument("--no-prefix-cache", action="store_true")
    p.add_argument("--no-buckets", action="store_true")
    p.add_argument("--full-head", action="store_true")
    p.add_argument("--prune", action="store_true",
                   help="direct, --length sum: leave labels that cannot win unfinished (the label is exact; other "
                        "labels' probabilities are bounds; the confidence a lower bound, so needs_review is "
                        "False where it reaches 0.7 and empty where it cannot tell)")
    p.add_argument("--method", choices=config.METHODS,
                   help="channel (the default): score the ticket after each label, more accurate with small "
                        "models, one pass per label; direct: score the label after the ticket, one pass")
    p.add_argument("--length", choices=config.LENGTHS, default="sum",
                   help="how a multi-token label's token log-probs combine")
    p.add_argument("--no-calibrate", action="store_true", help="keep the model's prior over the labels")
    p.add_argument("--temperature", type=float, default=1.0, help="confidence temperature (fit it with eval)")


def cleaning_args(p):
    from triage_app.files.clean import STEPS

    group = p.add_argument_group("text cleaning (what the model reads; the output keeps the text as it was)")
    group.add_argument("--no-clean", action="store_true", help="the text exactly as exported, no step runs")
    for step, flag in KEEP_FLAGS.items():
        group.add_argument(flag, action="append_const", const=step, dest="keep",
                           help=f"do not {STEPS[step]}")
    group.add_argument("--cut-replies", action="store_true", help=f"also {STEPS['replies']}")
