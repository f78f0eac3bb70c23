"""`classify ... --ray [ADDRESS]`: the command line's way onto a Ray cluster.

The classify command adds these arguments with add_arguments(parser) and hands over to run(args)
when wants_ray(args); the rest of its arguments (model, labels, run options) mean what they mean
locally. `python -m triage_app.scale.command` is the same command on its own.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

LOCAL = "local"  # --ray without an address: start a Ray instance on this machine


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scale out on Ray (pip install 'triage-app[ray]')")
    group.add_argument("--ray", nargs="?", const=LOCAL, metavar="ADDRESS",
                       help="run on Ray Data: alone, a local Ray instance; with ADDRESS (auto, host:port, "
                            "ray://host:10001) join that cluster. Put it after INPUT, or write --ray=ADDRESS")
    group.add_argument("--actors", type=int, default=1, help="model copies working at once (Ray)")
    group.add_argument("--cpus-per-actor", type=int,
                       help="CPUs (torch threads) per actor (Ray; default: this machine's cores / actors, "
                            "1 on a cluster)")
    group.add_argument("--rows-per-block", type=int, default=512,
                       help="tickets per block an actor classifies at once; buckets form inside a block (Ray)")


def wants_ray(args: argparse.Namespace) -> bool:
    return getattr(args, "ray", None) is not None


def run(args: argparse.Namespace) -> int:
    from triage_app import cli
    from triage_app.files.export import REVIEW_BELOW
    from triage_app.scale.ray_job import classify_with_ray
    from triage_app.scale.recipe import CommandRecipe

    if args.reference:
        raise ValueError("--reference is the one-by-one loop that defines right; run it without --ray")
    if args.sheet:
        raise ValueError("--sheet: a Ray run reads CSV, TSV, Parquet and JSONL, not XLSX")
    review_below = getattr(args, "review_below", None)
    summary = classify_with_ray(
        args.input, args.output, CommandRecipe.of(args, cli._label_set(args)), cli._run_config(args),
        text_column=args.text_column, with_subject=args.with_subject, limit=args.limit,
        address=None if args.ray == LOCAL else args.ray, actors=args.actors, cpus_per_actor=args.cpus_per_actor,
        rows_per_block=args.rows_per_block, db=args.db, excel_bom=args.excel_bom,
        review_below=REVIEW_BELOW if review_below is None else review_below, cleaning=_cleaning(args))
    print(f"{summary.rows} tickets on {summary.actors} Ray actor(s) in {summary.seconds:.1f} s "
          f"({summary.items_per_s:.2f} items/s; reading, model loading and writing included, Ray's own "
          f"start not) -> {summary.output}", file=sys.stderr)
    if args.stats_json:
        data = {"rows": summary.rows, "seconds": summary.seconds, "items_per_s": summary.items_per_s,
                "actors": summary.actors, "ray": args.ray}
        Path(args.stats_json).write_text(json.dumps(data, indent=2) + "\n")
    return 0


def _cleaning(args: argparse.Namespace):
    """classify's cleaning flags; the standalone command has none and cleans by default."""
    from triage_app import cli
    from triage_app.files.clean import TextCleaning

    return cli._cleaning(args) if hasattr(args, "no_clean") else TextCleaning()


def main(argv: list[str] | None = None) -> int:
    """The Ray run alone, until (and besides) classify --ray: the classify arguments it uses."""
    from triage_app import cli
    from triage_app.engine.models import ModelNotAvailable
    from triage_app.files.reader import BadInput

    parser = argparse.ArgumentParser(prog="python -m triage_app.scale.command",
                                     description="Classify a ticket file on Ray Data.")
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True, help="Parquet or CSV, by its suffix")
    for add in (cli._ticket_args, cli._label_args, cli._model_args, cli._run_args, add_arguments):
        add(parser)
    parser.add_argument("--limit", type=int, help="only the first N tickets")
    parser.add_argument("--db", help="the results database whose manual labels win")
    parser.add_argument("--stats-json", help="write rows, seconds and items/s here")
    parser.add_argument("--excel-bom", action="store_true", help="CSV output with a UTF-8 BOM, for Excel")
    parser.add_argument("--review-below", type=float, help="mark labels less confident than this as needs_review")
    args = parser.parse_args(argv)
    args.reference, args.ray = False, args.ray or LOCAL
    try:
        return run(args)
    except (BadInput, ModelNotAvailable, ValueError) as exc:
        print(f"triage-app: {exc}", file=sys.stderr)
        return cli.EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
