"""`classify ... --ray [ADDRESS]`: the command line's way onto a Ray cluster.

The classify command adds these arguments with add_arguments(parser) and, when wants_ray(args),
hands over to run() with the settings, label set and cleaning it built from the rest of its
arguments, which mean what they mean locally. Nothing here imports the command line.
"""

from __future__ import annotations

import argparse
import json
import sys

LOCAL = "local"  # --ray without an address: start a Ray instance on this machine


# option -> (its attribute, its default): what a run without --ray would silently leave unused
RAY_ONLY = {"--actors": ("actors", 1), "--cpus-per-actor": ("cpus_per_actor", None),
            "--rows-per-block": ("rows_per_block", 512)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scale out on Ray (pip install 'triage-app[ray]')")
    group.add_argument("--ray", nargs="?", const=LOCAL, metavar="ADDRESS",
                       help="run on Ray Data: alone, a local Ray instance; with ADDRESS (auto, host:port, "
                            "ray://host:10001) join that cluster. Put it after INPUT, or write --ray=ADDRESS")
    group.add_argument("--actors", type=int, default=RAY_ONLY["--actors"][1], help="model copies working at once (Ray)")
    group.add_argument("--cpus-per-actor", type=int,
                       help="CPUs (torch threads) per actor (Ray; default: this machine's cores / actors, "
                            "1 on a cluster)")
    group.add_argument("--rows-per-block", type=int, default=RAY_ONLY["--rows-per-block"][1],
                       help="tickets per block an actor classifies at once; buckets form inside a block (Ray)")


def wants_ray(args: argparse.Namespace) -> bool:
    """Whether the run goes to Ray; refuses, in one line, a Ray option given without --ray."""
    if getattr(args, "ray", None) is not None:
        return True
    given = [flag for flag, (name, default) in RAY_ONLY.items() if getattr(args, name, default) != default]
    if given:
        raise ValueError(f"{', '.join(given)}: for a run on Ray only; add --ray, or leave {' and '.join(given)} out")
    return False


def run(args: argparse.Namespace, settings, label_set, cleaning) -> int:
    """classify --ray: the command's settings, label set and cleaning, already built by the command line."""
    from triage_app.files.export import REVIEW_BELOW
    from triage_app.scale.ray_job import classify_with_ray
    from triage_app.scale.recipe import ClassifierRecipe

    if settings.run.reference:
        raise ValueError("--reference is the one-by-one loop that defines right; run it without --ray")
    if args.sheet:
        raise ValueError("--sheet: a Ray run reads CSV, TSV, Parquet and JSONL, not XLSX")
    summary = classify_with_ray(
        args.input, args.output, ClassifierRecipe.of(label_set, settings),
        text_column=args.text_column, with_subject=args.with_subject, limit=args.limit,
        address=None if args.ray == LOCAL else args.ray, actors=args.actors, cpus_per_actor=args.cpus_per_actor,
        rows_per_block=args.rows_per_block, db=args.db, excel_bom=args.excel_bom,
        review_below=REVIEW_BELOW if args.review_below is None else args.review_below, cleaning=cleaning)
    print(f"{summary.rows} tickets on {summary.actors} Ray actor(s) in {summary.seconds:.1f} s "
          f"({summary.items_per_s:.2f} items/s; reading, model loading and writing included, Ray's own "
          f"start not) -> {summary.output}", file=sys.stderr)
    if args.stats_json:
        data = {"rows": summary.rows, "seconds": summary.seconds, "items_per_s": summary.items_per_s,
                "actors": summary.actors, "ray": args.ray}
        from triage_app.files.export import write_text

        write_text(args.stats_json, json.dumps(data, indent=2) + "\n")
    return 0
