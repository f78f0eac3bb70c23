"""What cleaning ticket text buys: tokens per ticket, items/s and accuracy, as exported and cleaned.

On resources/helpdesk_export.csv (scripts/make_helpdesk_export.py: helpdesk_tickets.csv's texts
and gold queues, wrapped in an export's escapes, HTML, quoted chains and signatures), the body
column is classified as exported, with the default cleaning, and with the default plus the
reply-chain cut. The model, labels and run are the CLI's own (`triage-app classify ...
--model smollm2-135m --dtype float32 --labels-file resources/helpdesk_labels.json`, channel
scoring), through triage_app/cli/options.py; one classifier serves every variant,
so only the text differs. Also: what cleaning itself costs per ticket, and how much it cuts.
Result: docs/quality/cleaning_smollm2.txt.

Usage: .venv/bin/python scripts/experiments/cleaning.py [N] [OUT.txt]   (N: the first N tickets, default 120)
       .venv/bin/python scripts/experiments/cleaning.py cost [OUT.txt]
                 (what cleaning costs: CPU time per ticket, and 100k tickets cleaned; docs/quality/cleaning_cost.txt)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from triage_app.cli import options  # noqa: E402
from triage_app.cli.parser import build_parser  # noqa: E402
from triage_app.engine.classifier import Classifier  # noqa: E402
from triage_app.files.clean import TextCleaning, clean, clean_texts  # noqa: E402
from triage_app.files.reader import read_tickets  # noqa: E402
from triage_app.quality.metrics import evaluate  # noqa: E402

EXPORT = ROOT / "resources" / "helpdesk_export.csv"
LABELS = ROOT / "resources" / "helpdesk_labels.json"
VARIANTS = {
    "as exported": TextCleaning.off(),
    "cleaned (default)": TextCleaning(),
    "cleaned + reply chains cut": TextCleaning(replies=True),
}


def main() -> None:
    if sys.argv[1:2] == ["cost"]:
        out_path = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "docs" / "quality" / "cleaning_cost.txt"
        lines = cost_of_cleaning(read_tickets(EXPORT).texts("body"))
        out_path.write_text("\n".join(lines) + "\n")
        print("\n".join(lines) + f"\n-> {out_path}")
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    out_path = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "docs" / "quality" / "cleaning_smollm2.txt"
    args = build_parser().parse_args(["classify", str(EXPORT), "-o", "unused.csv", "--model", "smollm2-135m",
                                     "--dtype", "float32", "--labels-file", str(LABELS), "--method", "channel"])
    table = read_tickets(EXPORT)
    bodies = table.texts("body")
    gold = table.frame["queue"].tolist()[:n]
    label_set = options.label_set(args)
    classifier = options.classifier(args, options.settings(args), label_set)
    config = options.settings(args).run
    tokenizer = classifier.loaded.tokenizer

    lines = [f"{classifier.loaded.name} ({classifier.loaded.placement.dtype_name}), channel scoring, "
             f"labels {', '.join(label_set.names)}; {EXPORT.name}, body column", ""]
    lines += ["what cleaning itself costs: cleaning_cost.txt (scripts/experiments/cleaning.py cost)"]
    lines += ["", f"SmolLM2 tokens per ticket, all {len(bodies)} tickets:",
              f"{'text':<28} {'mean':>6} {'median':>6} {'max':>5} {'total':>7}"]
    for name, cleaning in VARIANTS.items():
        tokens = [len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in clean_texts(bodies, cleaning)]
        lines.append(f"{name:<28} {statistics.mean(tokens):6.1f} {statistics.median(tokens):6.0f} {max(tokens):5d} "
                     f"{sum(tokens):7d}")
    lines += ["", f"the classifier on the first {n} tickets:",
              f"{'text':<28} {'items/s':>8} {'tokens run':>10} {'accuracy':>8} {'macro-F1':>8} {'truncated':>9} "
              f"{'load':>5}"]
    out_path.write_text("\n".join(lines) + "\n")
    for name, cleaning in VARIANTS.items():
        predictions, stats = run(classifier, clean_texts(bodies[:n], cleaning), config)
        report = evaluate(gold, [p.label for p in predictions], label_set.names)
        lines.append(f"{name:<28} {stats.items_per_s:8.3f} {stats.tokens_processed:10d} {100 * report.accuracy:7.1f}% "
                     f"{report.macro_f1:8.3f} {stats.truncated:9d} {os.getloadavg()[0]:5.1f}")
        print(lines[-1], flush=True)
        out_path.write_text("\n".join(lines) + "\n")   # what is done so far survives a stopped run
    lines += ["", "items/s: the engine's own count over each run, on a 2-core AMD EPYC shared with other jobs "
              "(load: the 1-minute load average at the end of each run), so compare the rows, not the absolute numbers."]
    out_path.write_text("\n".join(lines) + "\n")
    print(f"-> {out_path}")


def run(classifier: Classifier, texts: list[str], config):
    predictions, stats = [], None
    for batch in classifier.run(texts, config):
        predictions += batch.predictions
        stats = batch.stats
    return sorted(predictions, key=lambda p: p.index), stats


def cost_of_cleaning(bodies: list[str]) -> list[str]:
    """CPU time per ticket for each kind of body, 100k tickets cleaned, and how much the cleaning cuts."""
    html_like = [b for b in bodies if "<" in b]
    rest = [b for b in bodies if "<" not in b]
    clean(html_like[0])   # BeautifulSoup builds its entity tables on first use
    out = [f"{EXPORT.name}, {len(bodies)} bodies; CPU time of this process (time.process_time), "
           f"default cleaning; 2-core AMD EPYC shared with other jobs (load {os.getloadavg()[0]:.1f})"]
    for kind, texts in (("HTML bodies", html_like), ("other bodies", rest)):
        repeats = 10
        start = time.process_time()
        for _ in range(repeats):
            for text in texts:
                clean(text)
        micro = 1e6 * (time.process_time() - start) / (repeats * len(texts))
        out.append(f"{kind} ({len(texts)}): {micro:.0f} us per ticket, so 100k such tickets {micro / 10:.1f} s")
    many = (rest * (100_000 // len(rest) + 1))[:100_000]
    start = time.process_time()
    for text in many:
        clean(text)
    out.append(f"100k of the other bodies, one clean() each: {time.process_time() - start:.1f} s")
    for name, cleaning in list(VARIANTS.items())[1:]:
        cleaned = [clean(b, cleaning) for b in bodies]
        kept = sum(map(len, cleaned)) / sum(map(len, bodies))
        changed = sum(c != b for c, b in zip(cleaned, bodies))
        out.append(f"{name}: {changed}/{len(bodies)} bodies changed, {100 * kept:.0f}% of the characters kept")
    return out


if __name__ == "__main__":
    main()
