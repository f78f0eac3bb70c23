"""Fields sharing one pass, where one had its answers stored and the other not (its labels edited): each
field's count of texts classified is its own, and the command's progress bar follows the field still
being scored, never the one read from the store.

On the tiny random Qwen2: what is checked is the counting, not the answers."""

from __future__ import annotations

import re

from cli_helpers import run_main, write_rows

from triage_app.engine.axes import Axes, Axis
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.files.store import ResultStore
from triage_app.run.job import run_job
from triage_app.run.one_pass import run_axes_job

QUEUE = LabelSet.from_names(["billing", "technical", "account"])
PRIORITY = LabelSet.from_names(["urgent", "normal"])
TEXTS = ["I was charged twice for my plan", "The app crashes when I upload a file", "I cannot log in anymore",
         "Please send me last month's invoice", "Error 500 on the dashboard since this morning",
         "I was charged twice for my plan", "How do I add a user to my team?", ""]
DISTINCT = len(set(TEXTS))
AFTER = Scoring(method="direct-after")


def test_each_field_of_a_pass_counts_the_texts_it_classified(tmp_path, tiny_qwen):
    queue, priority = (Classifier(tiny_qwen, labels, scoring=AFTER) for labels in (QUEUE, PRIORITY))
    config = RunConfig(batch_size=2)
    with ResultStore(tmp_path / "r.db") as store:
        list(run_job(queue, store, TEXTS, config))        # queue's answers stored (the blank has none)
        steps = list(run_axes_job([queue, priority], store, TEXTS, config))
    first, last = steps[0], steps[-1]
    assert [s.stats.total for s in first] == [1, DISTINCT]
    assert [s.stats.done for s in last] == [1, DISTINCT]       # queue: the blank alone; priority: every text
    assert [s.rows_done for s in last] == [len(TEXTS)] * 2


def bar_counts(err: list[str]) -> list[int]:
    """The tickets the progress bar showed done, line by line, once it named the pass."""
    return [int(m.group(1)) for line in err if "in one pass" in line
            for m in [re.search(rf"(\d+)/{len(TEXTS)} ", line)] if m]


def test_the_bar_follows_the_field_still_scored_and_the_summary_counts_each_fields_own(tmp_path, capsys, tiny_model,
                                                                                      monkeypatch):
    monkeypatch.setenv("TQDM_MININTERVAL", "0")     # every step drawn
    tickets = write_rows(tmp_path / "t.csv", [{"id": str(r), "text": t} for r, t in enumerate(TEXTS)])
    common = ["-o", tmp_path / "out.csv", "--db", tmp_path / "r.db", "--batch-size", "2"]
    for k, priority in enumerate((PRIORITY, LabelSet.from_names(["urgent", "normal", "low"]))):
        axes_file = tmp_path / f"axes{k}.json"
        Axes((Axis("queue", QUEUE, "direct-after"), Axis("priority", priority, "direct-after"))).save(axes_file)
        code, _, err = run_main(capsys, "classify", tickets, *common, "--labels-file", axes_file)
        assert code == 0, err
    counts = bar_counts(err)
    assert counts[0] == 0 and counts[-1] == len(TEXTS) and counts == sorted(counts)   # queue's stored rows not counted
    summary = {line.split(":")[0]: line for line in err if " tickets (" in line}
    assert f"{len(TEXTS)} tickets ({len(TEXTS) - 1} from earlier runs): 1 classified" in summary["queue"]
    assert f"{len(TEXTS)} tickets (0 from earlier runs): {DISTINCT} classified" in summary["priority"]
