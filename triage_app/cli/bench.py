"""bench: the engine's modes side by side, in one process."""

from __future__ import annotations

import sys

import triage_app.cli.options as options


def run(args) -> int:
    from dataclasses import asdict

    from triage_app.bench.throughput import dense_rate, run_modes, table
    from triage_app.bench.workloads import workload

    modes = checked_args(args)
    if args.workload == "many-labels":
        return _many_labels(args)
    if args.workload == "export":
        return _export(args)
    if args.workload == "taught":
        return _taught(args)
    if args.workload == "axes":
        return _axes(args)
    loaded = options.load_model(args)
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
        options.write_json(args.json, out)
    return 0


def checked_args(args) -> list[str]:
    """The modes asked for; a workload, mode or size the bench has not is said before the model loads."""
    from triage_app.bench.throughput import MODES
    from triage_app.bench.workloads import WORKLOADS

    options.at_least(args.n, 1, "--n")
    options.at_least(args.batch_size, 1, "--batch-size")
    options.at_least(args.token_budget, 1, "--token-budget")
    if args.workload not in WORKLOADS:
        raise ValueError(f"unknown workload {args.workload!r}: use {', '.join(WORKLOADS)}")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes:
        raise ValueError(f"--modes names no mode: use one or more of {', '.join(MODES)}, comma-separated")
    if unknown := [m for m in modes if m not in MODES]:
        raise ValueError(f"unknown mode(s) {', '.join(unknown)}: use {', '.join(MODES)}")
    return modes


def _many_labels(args) -> int:
    """Direct scoring with 77 labels against 10 on the same messages, the whole label trie against
    the pruned one (engine/methods/prune.py): items/s and whether the labels are identical (exit 1 if not)."""
    from dataclasses import asdict

    from triage_app.bench.throughput import many_labels_table, run_many_labels

    loaded = options.load_model(args)
    results = run_many_labels(loaded, args.n, batch_size=args.batch_size, token_budget=args.token_budget,
                              log=lambda line: print(line, file=sys.stderr))
    print(many_labels_table(results))
    if args.json:
        options.write_json(args.json, {"model": loaded.name, "device": loaded.placement.device,
                                       "dtype": loaded.placement.dtype_name, "workload": "many-labels", "n": args.n,
                                       "runs": [asdict(r) for r in results]})
    return 0 if all(r.same_labels for r in results) else 1


def _export(args) -> int:
    """float32 against the checked low precision (engine/checked.py) on the export workload: items/s,
    minutes per 10,000 tickets, the re-scored share, and labels different from float32 (exit 1 if any)."""
    import argparse

    from triage_app.bench.precision import compare_precisions, export_texts, report

    dtype = args.dtype if args.dtype.endswith("-checked") else "bfloat16-checked"
    loaded = options.load_model(argparse.Namespace(**{**vars(args), "dtype": dtype}))
    result = compare_precisions(loaded, export_texts(args.n), args.method,
                                log=lambda line: print(line, file=sys.stderr))
    print(report(result))
    if args.json:
        options.write_json(args.json, result)
    return 0 if result["labels_different"] == 0 else 1


def _taught(args) -> int:
    """float32 against the checked low precision once a person has taught (bench/taught.py): items/s, the
    answers kept in low precision, re-scored in the run and settled after it, and labels different from
    float32's learned ones (exit 1 if any)."""
    import argparse

    from triage_app.bench.taught import compare_taught, report

    dtype = args.dtype if args.dtype.endswith("-checked") else "bfloat16-checked"
    loaded = options.load_model(argparse.Namespace(**{**vars(args), "dtype": dtype}))
    result = compare_taught(loaded, args.n, args.method, log=lambda line: print(line, file=sys.stderr),
                            encoder=options.load_encoder(argparse.Namespace()))   # the bundled one
    print(report(result))
    if args.json:
        options.write_json(args.json, result)
    return 0 if all(side.get("labels_different", 0) == 0 for side in result["sides"].values()) else 1


def _axes(args) -> int:
    """Three axes in one pass against one run per axis (bench/axes.py): seconds, items/s, the
    ratio, and whether every axis's labels are identical (exit 1 if not). --method direct-after or
    direct-fields times that method's one pass alone; any other, both."""
    from triage_app.bench.axes import TICKET_FIRST, axes_report, run_axes_bench

    methods = (args.method,) if args.method in TICKET_FIRST else TICKET_FIRST
    result = run_axes_bench(options.load_model(args), args.n, batch_size=args.batch_size,
                            token_budget=args.token_budget, methods=methods,
                            log=lambda line: print(line, file=sys.stderr))
    print(axes_report(result))
    if args.json:
        options.write_json(args.json, result)
    return 0 if result["labels_identical"] else 1
