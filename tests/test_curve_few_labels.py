"""The learning curve of a gold set with too few labels to teach: eval --learning-curve died on the targets
(learned alone had no answer at k >= 2: only one label had tickets to teach), and a curve of k = 0 alone
could not be plotted (the x axis divided by the number of ks less one)."""

from __future__ import annotations

import json
import re

from cli_helpers import run_main
from test_cli_learn import LABELS, tickets, write_csv
from test_learn import NAMES, lm_scores

from triage_app.quality.curve import Curve, Point, curves_svg, learning_curve


def one_label_to_teach() -> tuple[list[str], list[str]]:
    """Twelve billing tickets and one each of the others: only billing has a ticket to teach and one to test."""
    texts, gold = tickets(36, seed=5)
    kept = [r for r, g in enumerate(gold) if g == "billing" or r < 3]
    return [texts[r] for r in kept], [gold[r] for r in kept]


def test_a_curve_with_one_label_to_teach_keeps_k0_and_says_why_the_rest_is_left_out():
    texts, gold = one_label_to_teach()
    said = []
    curve = learning_curve(texts, gold, lm_scores(gold, 0.6), NAMES, ks=(0, 2, 5), draws=2, log=said.append)
    assert [p.k for p in curve.points] == [0]
    assert "k=2, 5 left out: only billing has 2 tickets or more to teach and test, and learning needs two labels" \
        in said
    assert curve.to_dict()["targets"] == {}


def test_the_targets_leave_out_a_k_where_learned_alone_has_no_answer():
    no_answer = {"zero_shot": [0.5], "learned": [None], "combined": [0.6]}
    answered = {"zero_shot": [0.5], "learned": [0.4], "combined": [0.6]}
    curve = Curve(NAMES, [0, 1], 1, points=[Point(2, no_answer, no_answer), Point(5, answered, answered)])
    assert curve.targets() == {"k=5: combined >= max(zero-shot, learned)": True,
                               "k=5: combined >= zero-shot + 5 points": True}


def test_eval_learning_curve_with_one_label_to_teach_prints_k0(tmp_path, capsys, tiny_model, qapp):
    texts, gold = one_label_to_teach()
    path = write_csv(tmp_path / "g.csv", ["text", "category"], list(zip(texts, gold)))
    code, stdout, err = run_main(capsys, "eval", path, "--learning-curve", "--draws", "1",
                                 "--json", tmp_path / "curve.json", *LABELS)
    assert code == 0, err
    assert [p["k"] for p in json.loads((tmp_path / "curve.json").read_text())["points"]] == [0]
    assert any("learning needs two labels" in line for line in err)


def test_a_curve_of_k0_alone_is_drawn_as_one_point_in_the_middle(tmp_path, capsys, tiny_model, qapp):
    result = {"set": "few", "names": NAMES, "n_test": 5, "points": [
        {"k": 0, "mean": {"zero_shot": {"accuracy": 0.8}, "learned": {"accuracy": None},
                          "combined": {"accuracy": 0.8}}}]}
    circles = re.findall(r'<circle cx="([\d.]+)"', curves_svg([result]))
    assert len(circles) == 2 and len(set(circles)) == 1
    # and the command line writes the PNG of it
    texts, gold = tickets(6, seed=5)
    path = write_csv(tmp_path / "g.csv", ["text", "category"], list(zip(texts, gold)))
    code, _, err = run_main(capsys, "eval", path, "--learning-curve", "--draws", "1", "--plot", tmp_path / "c.png",
                            *LABELS)
    assert code == 0, err
    assert (tmp_path / "c.png").stat().st_size > 0
