"""What channel scoring pays for: accuracy against how many of a ticket's tokens it scores.

Channel scoring (the default) runs every ticket token once per label, so a run costs about
labels x ticket tokens. This scores the first K tokens of each ticket (RunSettings.max_ticket_tokens
= K, the engine's own head-keeping truncation, `--max-ticket-tokens K` on the command line) for
K = 32, 64, 128 and all (the default limit, 1024, which no ticket here reaches), on:

  sample     resources/sample_tickets.csv, the default label set (3 labels)
  helpdesk   resources/helpdesk_export.csv (body, cleaned as by default), resources/helpdesk_labels.json (5 queues)
  banking10  BANKING77's training split, the 10 intents of docs/learning (lm_scores.py's names), 30 each

Each set's tickets are drawn as `eval --limit N` draws them (seeded). The model, scoring and run
are the CLI's defaults with `--model smollm2-135m --dtype float32 --device cpu`.

Accuracy: a ticket with no more than K tokens reads exactly the same tokens at K as with all, so
(by the law: an optimization never changes a prediction) its scores are the all-tokens run's;
only the tickets longer than K are run again with the limit K. That this holds is checked on the
first tickets of each set (a full run at the smallest K, compared ticket by ticket), and the
truncated fast path is checked against the reference loop on the same truncated tokens.

Speed: every K is run in full on the first TIME_N tickets of each set, the settings interleaved,
REPS times; items/s is printed with the load. The deterministic cost is the ticket tokens scored
(sum over tickets of min(tokens, K), times labels), printed for the whole set.

Keys (--keys-timing N): a run at channel's own limit finds a ticket's stored scores under the key of
the limit 1024 where neither limit cuts it (job.label_keys_of), which tokenizes every ticket longer than
the limit in characters before the lookup; this times that on N distinct helpdesk-like tickets.

Usage: nice -n 10 .venv/bin/python scripts/experiments/channel_tokens.py [SET ...] [--n SET=N ...] [--time-n T] [--reps R]
       nice -n 10 .venv/bin/python scripts/experiments/channel_tokens.py --keys-timing 10000
Result: docs/quality/channel_tokens.txt and .json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from triage_app.engine import device, models  # noqa: E402
from triage_app.engine.build import classifier_for  # noqa: E402
from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS, RunConfig, RunSettings, Scoring  # noqa: E402
from triage_app.engine.labels import LabelSet  # noqa: E402
from triage_app.files import reader  # noqa: E402
from triage_app.files.clean import TextCleaning  # noqa: E402
from triage_app.quality.evaluate import GoldSet, report, score  # noqa: E402

from lm_scores import BANKING, BANKING_SETS  # noqa: E402

KS = (32, 64, 128, None)          # None: all of it (the limit 1024, which no ticket here reaches)
SIZES = {"sample": 200, "helpdesk": 200, "banking10": 300}
OUT = ROOT / "docs" / "quality" / "channel_tokens"


def load_set(name: str, n: int) -> tuple[GoldSet, LabelSet]:
    """The set's tickets (cleaned as a run cleans them) and its label set, n drawn as `eval --limit n` draws."""
    if name == "banking10":
        intents = BANKING_SETS[name]
        frame = reader.read_tickets(BANKING).frame
        per = n // len(intents)
        rows = []
        for intent in intents:
            mine = [r for r in range(len(frame)) if frame["category"].iat[r] == intent]
            rows += sorted(random.Random(0).sample(mine, per))
        gold = GoldSet([frame["text"].iat[r] for r in rows], [intents[frame["category"].iat[r]] for r in rows])
        return gold.cleaned(TextCleaning()), LabelSet.from_names(list(intents.values()))
    path, column, labels = {"sample": ("resources/sample_tickets.csv", "category", None),
                            "helpdesk": ("resources/helpdesk_export.csv", "queue", "resources/helpdesk_labels.json")}[name]
    table = reader.read_tickets(ROOT / path)
    texts = table.texts(reader.detect_text_column(table))
    gold = [str(g).strip() for g in table.frame[column]]
    label_set = LabelSet.load(ROOT / labels) if labels else LabelSet.default()
    keep = [r for r, (t, g) in enumerate(zip(texts, gold)) if t.strip() and g in label_set.names]
    if n < len(keep):
        keep = sorted(random.Random(0).sample(keep, n))
    return GoldSet([texts[r] for r in keep], [gold[r] for r in keep]).cleaned(TextCleaning()), label_set


def run_scores(loaded, label_set, texts, k, config=RunConfig()):
    """[N, L] scores (the default Scoring) and seconds, with the ticket limit k (None: 1024, all of it here;
    channel's own, where no limit is set, is 128 since this measurement)."""
    settings = RunSettings(scoring=Scoring(), max_ticket_tokens=k or DEFAULT_MAX_TICKET_TOKENS)
    scored = score(classifier_for(loaded, label_set, settings), texts, config)
    return scored.scores(settings.scoring), scored.seconds


def se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


def paired(base: list[bool], other: list[bool]) -> tuple[int, int, float]:
    """(right at all -> wrong at K, wrong -> right, SE of the accuracy difference in points, paired)."""
    n = len(base)
    lost = sum(b and not o for b, o in zip(base, other))
    won = sum(o and not b for b, o in zip(base, other))
    var = (lost + won) / n - ((won - lost) / n) ** 2
    return lost, won, 100 * math.sqrt(max(var, 0) / n)


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timing(name: str, time_n: int, reps: int, loaded, log) -> dict:
    """Only the speed part: every K in full on the set's first time_n tickets, interleaved, reps rounds."""
    gold, label_set = load_set(name, time_n)
    ntok = [len(loaded.tokenizer(t, add_special_tokens=False).input_ids) for t in gold.texts]
    out = {str(k or "all"): {"k": k, "seconds": [], "loads": [],
                             "tokens_scored": len(label_set.names) * sum(c if k is None else min(c, k) for c in ntok)}
           for k in KS}
    run_scores(loaded, label_set, gold.texts[:4], None)        # warm up
    for rep in range(reps):
        for k in KS:
            _, s = run_scores(loaded, label_set, gold.texts, k)
            out[str(k or "all")]["seconds"].append(s)
            out[str(k or "all")]["loads"].append(os.getloadavg()[0])
            log(f"{name} timing rep {rep} K={k}: {s:.1f} s (load {load_avg()})")
    for r in out.values():
        r["items_per_s"] = [len(ntok) / s for s in r["seconds"]]
    return {"set": name, "n": len(ntok), "tokens_mean": sum(ntok) / len(ntok), "results": out}


def measure(name: str, n: int, time_n: int, reps: int, loaded, log) -> dict:
    gold, label_set = load_set(name, n)
    names = label_set.names
    tok = loaded.tokenizer
    ntok = [len(tok(t, add_special_tokens=False).input_ids) for t in gold.texts]
    L = len(names)
    log(f"{name}: {len(ntok)} tickets, {L} labels, tokens mean {sum(ntok) / len(ntok):.1f} max {max(ntok)}; load {load_avg()}")

    # accuracy: all tokens once, then only the tickets longer than K again
    base, seconds = run_scores(loaded, label_set, gold.texts, None)
    log(f"  all tokens: {seconds:.0f} s")
    results = {}
    per_k_scores = {}
    for k in KS:
        scores = base.clone()
        longer = [i for i, c in enumerate(ntok) if k is not None and c > k]
        if longer:
            part, s = run_scores(loaded, label_set, [gold.texts[i] for i in longer], k)
            scores[longer] = part
            log(f"  K={k}: {len(longer)} tickets longer, re-run in {s:.0f} s")
        per_k_scores[k] = scores
        r = report(scores, gold.gold, names)
        results[str(k or "all")] = {"k": k, "truncated": len(longer), "accuracy": r.accuracy,
                                    "se": se(r.accuracy, len(ntok)), "macro_f1": r.macro_f1, "ece": r.ece,
                                    "ticket_tokens_scored": L * sum(c if k is None else min(c, k) for c in ntok)}
    right_all = [names[int(i)] == g for i, g in zip(per_k_scores[None].argmax(dim=1), gold.gold)]
    for k in KS[:-1]:
        right = [names[int(i)] == g for i, g in zip(per_k_scores[k].argmax(dim=1), gold.gold)]
        lost, won, dse = paired(right_all, right)
        results[str(k)].update(lost=lost, won=won, diff_points=100 * (results[str(k)]["accuracy"] - results["all"]["accuracy"]),
                               diff_se_points=dse)

    # the law, checked: a full run at the smallest K on the first tickets equals the merged scores,
    # and the truncated fast path equals the reference loop on the same truncated tokens
    k0 = KS[0]
    check = list(range(min(24, len(ntok))))
    full, _ = run_scores(loaded, label_set, [gold.texts[i] for i in check], k0)
    merged = per_k_scores[k0][check]
    law = {"k": k0, "n": len(check), "labels_equal": int((full.argmax(1) == merged.argmax(1)).sum()),
           "max_abs_diff": float((full.exp() - merged.exp()).abs().max())}
    longer = [i for i in check if ntok[i] > k0][:6]
    if longer:
        ref, _ = run_scores(loaded, label_set, [gold.texts[i] for i in longer], k0, RunConfig(reference=True))
        fast = per_k_scores[k0][longer]
        law.update(reference_n=len(longer), reference_labels_equal=int((ref.argmax(1) == fast.argmax(1)).sum()),
                   reference_max_abs_diff=float((ref.exp() - fast.exp()).abs().max()))
    log(f"  law check: {law}")

    # speed: every K in full on the first time_n tickets, interleaved
    times = {str(k or "all"): [] for k in KS}
    subset = gold.texts[:time_n]
    for rep in range(reps):
        for k in KS:
            _, s = run_scores(loaded, label_set, subset, k)
            times[str(k or "all")].append(s)
            log(f"  timing rep {rep} K={k}: {s:.1f} s (load {load_avg()})")
    for key, ts in times.items():
        results[key].update(time_n=len(subset), seconds=ts, items_per_s=[len(subset) / t for t in ts],
                            time_tokens_scored=L * sum(min(c, results[key]["k"] or c) for c in ntok[:time_n]))
    return {"set": name, "n": len(ntok), "labels": names, "tokens_mean": sum(ntok) / len(ntok),
            "tokens_median": sorted(ntok)[len(ntok) // 2], "tokens_max": max(ntok),
            "majority": max(gold.gold.count(g) for g in names) / len(ntok), "results": results, "law": law}


def table(m: dict) -> list[str]:
    lines = [f"## {m['set']}: n={m['n']}, {len(m['labels'])} labels, ticket tokens mean {m['tokens_mean']:.1f} "
             f"median {m['tokens_median']} max {m['tokens_max']}, majority baseline {100 * m['majority']:.1f}%",
             "",
             "| K | truncated | accuracy ± SE | vs all (lost/won, paired SE) | macro-F1 | ECE | tokens scored | items/s (timing subset) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key, r in m["results"].items():
        vs = ("–" if r["k"] is None else
              f"{r['diff_points']:+.1f} pts ({r['lost']}/{r['won']}, ±{r['diff_se_points']:.1f})")
        ips = "/".join(f"{x:.2f}" for x in r["items_per_s"])
        lines.append(f"| {key} | {r['truncated']} | {100 * r['accuracy']:.1f}% ± {100 * r['se']:.1f} | {vs} | "
                     f"{r['macro_f1']:.3f} | {r['ece']:.3f} | {r['ticket_tokens_scored']:,} | {ips} "
                     f"(n={r['time_n']}) |")
    law = m["law"]
    lines += ["", f"law check: a full run at K={law['k']} on the first {law['n']} tickets against the merged scores: "
              f"{law['labels_equal']}/{law['n']} labels equal, max |Δp| {law['max_abs_diff']:.1e}"
              + (f"; fast path against the reference loop on {law['reference_n']} truncated tickets: "
                 f"{law['reference_labels_equal']}/{law['reference_n']} equal, max |Δp| {law['reference_max_abs_diff']:.1e}"
                 if "reference_n" in law else ""), ""]
    return lines


def keys_timing(n: int, loaded) -> list[str]:
    """Seconds job.label_keys_of takes for n distinct helpdesk-like tickets at channel's own limit, three
    times, and seconds channel takes to score 16 of them at that limit, on this machine."""
    from triage_app.files.clean import model_texts
    from triage_app.files.store import text_hash
    from triage_app.run.job import label_keys_of

    table = reader.read_tickets(ROOT / "resources/helpdesk_export.csv")
    base = model_texts(table.texts(reader.detect_text_column(table)), TextCleaning())
    rng = random.Random(0)
    texts = {text_hash(t): t for t in (f"{base[i % len(base)]} (ref {rng.randrange(10 ** 9)})" for i in range(n))}
    classifier = classifier_for(loaded, LabelSet.load(ROOT / "resources/helpdesk_labels.json"), RunSettings())
    lines = []
    for _ in range(3):
        start = time.perf_counter()
        keys = label_keys_of(classifier, texts)
        longer = sum(len(t) > classifier.ticket_limit for t in texts.values())
        lines.append(f"label_keys_of, {len(texts):,} tickets ({longer:,} longer than {classifier.ticket_limit} "
                     f"characters, {len(keys.read_whole):,} read whole): "
                     f"{time.perf_counter() - start:.2f} s, 1-min load {os.getloadavg()[0]:.1f}")
    start = time.perf_counter()
    list(classifier.run(list(texts.values())[:16]))
    lines.append(f"channel at {classifier.ticket_limit}, 16 of them scored: {time.perf_counter() - start:.1f} s")
    return lines


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("sets", nargs="*", default=list(SIZES))
    p.add_argument("--n", action="append", default=[],
                   help="SET=N tickets of a set (default: 200 sample, 200 helpdesk, 300 banking10); repeatable")
    p.add_argument("--time-n", type=int, default=32)
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--timing-only", action="store_true", help="only the speed part (written to OUT_speed.txt)")
    p.add_argument("--keys-timing", type=int, metavar="N", help="only time the stored results' keys of N tickets")
    p.add_argument("--k", type=int, action="append", default=[],
                   help="measure only these limits against all tokens (repeatable; default 32, 64, 128)")
    args = p.parse_args()
    if args.k:
        global KS
        KS = (*sorted(args.k), None)
    log = lambda line: print(line, file=sys.stderr, flush=True)
    loaded = models.load(models.SMOLLM2, device.choose("cpu", "float32"))
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.keys_timing:
        print(f"started {started}, {os.cpu_count()} CPUs, load {load_avg()}")
        print("\n".join(keys_timing(args.keys_timing, loaded)))
        return
    header = [f"# Channel scoring: accuracy against the ticket tokens scored ({loaded.name}, "
              f"{loaded.placement.dtype_name}, CPU, channel, sum, calibrated)", "",
              f"started {started}, load at start {load_avg()}, {os.cpu_count()} CPUs; command: nice -n 10 "
              f".venv/bin/python scripts/experiments/channel_tokens.py {' '.join(sys.argv[1:])}", ""]
    out = []
    if args.timing_only:
        out = [timing(name, args.time_n, args.reps, loaded, log) for name in args.sets]
        lines = [f"speed only: {args.time_n} tickets of each set, every K in full, {args.reps} interleaved rounds; "
                 f"started {started}, load at start {out and ''}{load_avg()}", "",
                 "| set | K | tokens scored | seconds | items/s | 1-min load |", "|---|---|---:|---|---|---|"]
        for m in out:
            for key, r in m["results"].items():
                lines.append(f"| {m['set']} | {key} | {r['tokens_scored']:,} | {' / '.join(f'{x:.1f}' for x in r['seconds'])} | "
                             f"{' / '.join(f'{x:.2f}' for x in r['items_per_s'])} | {' / '.join(f'{x:.1f}' for x in r['loads'])} |")
        Path(args.out + "_speed.txt").write_text("\n".join(header + lines) + "\n")
        Path(args.out + "_speed.json").write_text(json.dumps(out, indent=1) + "\n")
        print("\n".join(lines))
        return
    sizes = dict(SIZES, **{k: int(v) for k, v in (x.split("=") for x in args.n)})
    for name in args.sets:
        m = measure(name, sizes[name], args.time_n, args.reps, loaded, log)
        out.append(m)
        text = "\n".join(header + [line for x in out for line in table(x)]
                         + [f"load at end {load_avg()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"])
        Path(args.out + ".txt").write_text(text + "\n")
        Path(args.out + ".json").write_text(json.dumps({"model": loaded.name, "started": started, "sets": out},
                                                       indent=1) + "\n")
        print("\n".join(table(m)), flush=True)


if __name__ == "__main__":
    main()
