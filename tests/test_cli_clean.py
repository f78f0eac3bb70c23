"""The command line cleaning ticket text (issue 16): the flags, what the model reads, what the export keeps.

The tiny random Qwen2 stands in for a real model: what is tested is which text reaches it.
"""

from __future__ import annotations

import csv
import json

import pytest
from cli_helpers import read_rows, run_main

from triage_app.files.clean import TextCleaning, clean_texts

NAMES = ["billing", "technical", "account"]
LABELS = ["--labels", ",".join(NAMES), "--method", "direct"]
HTML_TWIN = "Refund my <b>last</b> payment&nbsp;please<br><br><br>Order 12"
PLAIN_TWIN = "Refund my last payment please\n\nOrder 12"
ESCAPED = "My login fails\\n\\nsince the update&amp;reset\\n--\\nSam"
ROWS = [["1", HTML_TWIN, "billing"], ["2", ESCAPED, "account"], ["3", PLAIN_TWIN, "billing"],
        ["4", "", "technical"], ["5", "The app crashes on start", "technical"]]


def write_csv(path, rows=ROWS):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "body", "category"])
        writer.writerows(rows)
    return path


def cleaning_of(*flags, command="classify"):
    from triage_app.cli import options
    from triage_app.cli.parser import build_parser

    args = build_parser().parse_args([command, "t.csv", *(["-o", "o.csv"] if command == "classify" else []), *flags])
    return options.cleaning(args)


@pytest.mark.parametrize("command", ["classify", "eval", "verify"])
def test_each_flag_maps_to_its_cleaning(command):
    assert cleaning_of(command=command) == TextCleaning()
    assert cleaning_of("--no-clean", command=command) == TextCleaning.off()
    assert cleaning_of("--keep-escapes", command=command) == TextCleaning(escapes=False)
    assert cleaning_of("--keep-html", command=command) == TextCleaning(html=False)
    assert cleaning_of("--keep-signatures", command=command) == TextCleaning(signatures=False)
    assert cleaning_of("--keep-whitespace", command=command) == TextCleaning(whitespace=False)
    assert cleaning_of("--cut-replies", command=command) == TextCleaning(replies=True)
    assert cleaning_of("--keep-html", "--keep-signatures", "--cut-replies", command=command) == \
        TextCleaning(html=False, signatures=False, replies=True)


def test_contradicting_flags_are_refused_in_one_line(tmp_path, capsys, monkeypatch):
    from triage_app.cli import options

    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))
    path = write_csv(tmp_path / "t.csv")
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "o.csv", "--no-clean", "--keep-html")
    assert code == 2 and err == ["triage-app: --no-clean switches every cleaning step off; leave out the --keep-* "
                                 "and --cut-replies flags"]


def test_a_ray_actor_scores_the_text_cleaned_as_the_local_run_does(tiny_qwen):
    """The actor itself, without a cluster: the HTML ticket and its plain twin get one answer."""
    import pandas as pd
    import torch

    from triage_app.engine.build import classifier_for
    from triage_app.engine.config import RunSettings, Scoring
    from triage_app.engine.labels import LabelSet
    from triage_app.scale.ray_job import TicketScorer
    from triage_app.scale.recipe import ClassifierRecipe
    from triage_app.scale.rows import SCORES

    class TinyRecipe(ClassifierRecipe):
        def build(self):   # the tiny model is already loaded here; a real actor loads settings.model
            return classifier_for(tiny_qwen, self.label_set, self.settings)

    recipe = TinyRecipe.of(LabelSet.from_names(NAMES), RunSettings(scoring=Scoring(method="direct")))
    block = pd.DataFrame({"body": [HTML_TWIN, PLAIN_TWIN]})
    threads = torch.get_num_threads()       # an actor sets its own; the rest of the suite keeps ours
    try:
        cleaned = TicketScorer(recipe, "body", None, threads)(block)[SCORES].tolist()
        raw = TicketScorer(recipe, "body", None, threads, TextCleaning.off())(block)[SCORES].tolist()
    finally:
        torch.set_num_threads(threads)
    assert cleaned[0] == pytest.approx(cleaned[1], abs=1e-5)
    assert raw[0] != pytest.approx(raw[1], abs=1e-5)


def test_classify_scores_the_cleaned_text_and_exports_the_original(tmp_path, capsys, tiny_model):
    path = write_csv(tmp_path / "t.csv")
    db = tmp_path / "r.db"
    common = [path, "--db", db, *LABELS, "--stats-json", tmp_path / "s.json"]

    def scores(row):
        return [row[f"p_{n}"] for n in NAMES]

    code, _, err = run_main(capsys, "classify", *common, "-o", tmp_path / "clean.csv")
    assert code == 0, err
    out = read_rows(tmp_path / "clean.csv")
    assert [r["body"] for r in out] == [r[1] for r in ROWS]       # the export keeps the text as it was
    assert scores(out[0]) == scores(out[2]) and out[3]["label"] == ""
    # the twins are one text to the model: twin, escaped, crash and the blank
    assert json.loads((tmp_path / "s.json").read_text())["items"] == 4

    code, _, err = run_main(capsys, "classify", *common, "-o", tmp_path / "html.csv", "--keep-html")
    assert code == 0, err
    out = read_rows(tmp_path / "html.csv")
    assert scores(out[0]) != scores(out[2])
    # another cleaning is another key: nothing is resumed, and the twins are two texts now
    assert json.loads((tmp_path / "s.json").read_text())["items"] == 5


def test_eval_and_verify_score_the_cleaned_text(tmp_path, capsys, tiny_model, monkeypatch):
    from triage_app.engine import verify
    from triage_app.quality import evaluate

    read = []
    for module, name in ((evaluate, "score"), (verify, "verify")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name,
                            lambda c, texts, *a, real=real, **k: read.append(texts) or real(c, texts, *a, **k))
    path = write_csv(tmp_path / "t.csv")
    filled = [r[1] for r in ROWS if r[1]]

    code, _, err = run_main(capsys, "eval", path, *LABELS, "--json", tmp_path / "e.json", "--cut-replies")
    assert code == 0, err
    assert sorted(read[0]) == sorted(clean_texts(filled, TextCleaning(replies=True)))
    assert json.loads((tmp_path / "e.json").read_text())["cleaning"] == ["escapes", "html", "replies", "signatures",
                                                                         "whitespace"]
    read.clear()
    code, _, err = run_main(capsys, "eval", path, *LABELS, "--json", tmp_path / "e.json", "--no-clean")
    assert code == 0, err
    assert sorted(read[0]) == sorted(filled) and json.loads((tmp_path / "e.json").read_text())["cleaning"] == []
    read.clear()
    code, _, err = run_main(capsys, "verify", path, *LABELS, "--probes", "2")
    assert code in (0, 1), err
    assert read[0] == clean_texts([r[1] for r in ROWS])


def test_cleaning_gold_texts_twice_is_refused():
    from triage_app.quality.evaluate import GoldSet

    gold = GoldSet([HTML_TWIN, PLAIN_TWIN], ["billing", "billing"])
    cleaned = gold.cleaned(TextCleaning())
    assert cleaned.texts == [PLAIN_TWIN, PLAIN_TWIN] and cleaned.gold == gold.gold
    assert cleaned.subset([1]).cleaning == TextCleaning()
    with pytest.raises(ValueError, match="cleaned already"):
        cleaned.cleaned(TextCleaning())


def test_inspect_says_how_much_of_the_text_cleaning_keeps(tmp_path, capsys):
    code, out, err = run_main(capsys, "inspect", write_csv(tmp_path / "t.csv"), "--json")
    assert code == 0, err
    texts = [r[1] for r in ROWS if r[1]]
    share = sum(map(len, clean_texts(texts))) / sum(map(len, texts))
    assert json.loads(out)["cleaning_keeps"] == pytest.approx(share, abs=1e-3) and share < 0.9
    plain = write_csv(tmp_path / "plain.csv", [["1", "  The app crashes  ", "technical"], ["2", "", "billing"]])
    code, out, err = run_main(capsys, "inspect", plain, "--json")
    assert code == 0 and json.loads(out)["cleaning_keeps"] == 1.0
