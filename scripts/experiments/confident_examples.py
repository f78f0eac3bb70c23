"""Do the model's own most confident tickets make good channel-scoring examples?

The measurement behind docs/quality/README.md's advice (and the window's question before "Add my corrections
as examples"): a zero-shot channel run, then the k most confident tickets of each predicted label
become that label's examples, and the other tickets run again. Also: the review queue's first
correction per label plus the 2 most confident. Result for the sample: docs/quality/channel_examples_smollm2.txt.

Usage: .venv/bin/python scripts/experiments/confident_examples.py TICKETS.csv LABELS.json|- LIMIT OUT.json
       [--corrections-only]   (the review queue's first correction per label alone, as eval --compare does)
"""
import sys, json, time
import torch
from triage_app.engine import device, models
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig
from triage_app.engine.labels import Example, LabelSet
from triage_app.engine.config import Scoring
from triage_app.files.reader import read_tickets
from triage_app.quality.evaluate import GoldSet, score, report, promote_corrections

path, labels_file, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
table = read_tickets(path)
frame = table.frame.head(limit)
gold_col = "category" if "category" in frame else "queue"
text_col = "text" if "text" in frame else "customer_message"
label_set = LabelSet.load(labels_file) if labels_file != "-" else LabelSet.default()
label_set = label_set.with_examples(())
g = GoldSet(list(frame[text_col]), list(frame[gold_col]))
loaded = models.load(models.SMOLLM2, device.choose("cpu", "float32"))
scoring = Scoring(method="channel")
names = label_set.names
mk = lambda ls: Classifier(loaded, ls, scoring=scoring)
t = time.time()
s0 = score(mk(label_set), g.texts).scores(scoring)
print("zero-shot all", report(s0, g.gold, names).accuracy, time.time() - t, flush=True)
probs = s0.exp()
top = probs.argmax(1)

def confident(k):
    rows = []
    for j, name in enumerate(names):
        mine = [r for r in range(len(g.texts)) if int(top[r]) == j]
        mine.sort(key=lambda r: -float(probs[r, j]))
        rows += mine[:k]
    return rows

out = {}
if "--corrections-only" in sys.argv:
    promoted_set, promoted = promote_corrections(label_set, g, s0, 1)
    rest = [r for r in range(len(g.texts)) if r not in set(promoted)]
    sub = g.subset(rest)
    after = report(score(mk(promoted_set), sub.texts).scores(scoring), sub.gold, names)
    out["corrections"] = (report(s0[rest], sub.gold, names).accuracy, after.accuracy, after.macro_f1)
    print(out["corrections"], flush=True)
    json.dump(out, open(sys.argv[4], "w"), indent=1)
    sys.exit(0)
for k in (1, 2):
    rows = confident(k)
    correct = sum(g.gold[r] == names[int(top[r])] for r in rows)
    ex = [Example(g.texts[r], names[int(top[r])]) for r in rows]
    rest = [r for r in range(len(g.texts)) if r not in set(rows)]
    sub = g.subset(rest)
    before = report(s0[rest], sub.gold, names).accuracy
    after = report(score(mk(label_set.with_examples(ex)), sub.texts).scores(scoring), sub.gold, names)
    out[f"confident{k}"] = (before, after.accuracy, after.macro_f1, f"{correct}/{len(rows)} examples right")
    print(k, out[f"confident{k}"], flush=True)
# corrections (1/label) plus the 2 most confident per label
promoted_set, promoted = promote_corrections(label_set, g, s0, 1)
rows = confident(2)
ex = [Example(g.texts[r], names[int(top[r])]) for r in rows] + list(promoted_set.examples)
drop = set(rows) | set(promoted)
rest = [r for r in range(len(g.texts)) if r not in drop]
sub = g.subset(rest)
before = report(s0[rest], sub.gold, names).accuracy
after = report(score(mk(label_set.with_examples(ex)), sub.texts).scores(scoring), sub.gold, names)
out["corrections+confident2"] = (before, after.accuracy, after.macro_f1)
print(out["corrections+confident2"], flush=True)
json.dump(out, open(sys.argv[4], "w"), indent=1)
