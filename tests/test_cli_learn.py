"""The command line learning from a person's labels (issue 15): classify --person-labels, eval --learning-curve.

The tiny random Qwen2 scores the tickets (a language model near chance), so what gets the
unlabelled rows right is the learned layer: the words of the rows the column labels.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from cli_helpers import read_rows, run_main

NAMES = ["billing", "technical", "account"]
WORDS = {"billing": "invoice charge refund price receipt card",
         "technical": "error crash bug outage slow timeout",
         "account": "login password user profile email permission"}
FILLER = "please help today thanks hello again urgent team".split()
LABELS = ["--labels", ",".join(NAMES), "--method", "direct"]


def tickets(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    gold = [NAMES[i % len(NAMES)] for i in range(n)]
    return [" ".join(rng.choice(WORDS[g].split(), 3).tolist() + rng.choice(FILLER, 4).tolist()) for g in gold], gold


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_learn_from_trains_on_the_filled_rows_and_says_where_each_label_came_from(tmp_path, capsys, tiny_model):
    texts, gold = tickets(60)
    # the first 30 rows are a person's labels (spelled as people type them); the rest are to predict
    known = [g.upper() if r % 5 == 0 else f" {g}" for r, g in enumerate(gold[:30])] + [""] * 30
    rows = [[r, t, k] for r, (t, k) in enumerate(zip(texts, known))]
    rows[40][1] = ""  # a blank ticket stays without an answer
    path = write_csv(tmp_path / "t.csv", ["id", "text", "queue"], rows)
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "queue", *LABELS)
    assert code == 0, err
    out = read_rows(tmp_path / "out.csv")
    assert [r["source"] for r in out[:30]] == ["person"] * 30
    assert [r["label"] for r in out[:30]] == gold[:30]           # the person's label is kept, whatever the model says
    assert all(r["person"] == "True" and r["needs_review"] == "False" for r in out[:30])
    rest = [r for k, r in enumerate(out[30:], 30) if k != 40]
    assert {r["source"] for r in rest} == {"learned"}
    right = np.mean([r["label"] == gold[int(r["id"])] for r in rest])
    assert right > 0.9, right                                    # the random model alone is near a third
    assert out[40]["label"] == "" and out[40]["source"] == "model"
    status = [line for line in err if line.startswith("learned from 30 labels")]
    assert len(status) == 1 and "per label: billing 10, technical 10, account 10" in status[0]
    assert "% ± " in status[0] and "cross-validated" in status[0]


def test_values_that_are_not_labels_are_named_in_one_line_and_left_out(tmp_path, capsys, tiny_model):
    texts, gold = tickets(24)
    known = gold[:12] + [""] * 12
    known[1], known[4], known[7] = "refunds", "refunds", "Sales"
    path = write_csv(tmp_path / "t.csv", ["text", "queue"], list(zip(texts, known)))
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "queue", *LABELS)
    assert code == 0, err
    notes = [line for line in err if "not a label" in line]
    assert notes == ["note: --person-labels queue: 3 rows have a value that is not a label, not learned from: "
                     "'refunds' (2), 'Sales' (1)"]
    out = read_rows(tmp_path / "out.csv")
    assert [r["source"] for r in out[:12]].count("person") == 9
    assert out[1]["source"] != "person" and out[1]["label"] in NAMES
    assert any(line.startswith("learned from 9 labels") for line in err)


def test_a_column_with_no_label_at_all_is_refused_before_the_model_loads(tmp_path, capsys, monkeypatch):
    from triage_app.cli import options

    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))
    path = write_csv(tmp_path / "t.csv", ["text", "ticket_no"], [["hello", "17"], ["world", "18"], ["again", ""]])
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "ticket_no", *LABELS)
    assert code == 2 and err == ["triage-app: --person-labels ticket_no: no value is a label (billing, technical, "
                                 "account); 2 rows have a value that is not a label, not learned from: "
                                 "'17' (1), '18' (1)"]
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "nope", *LABELS)
    assert code == 2 and err == ["triage-app: no column 'nope'; the columns are: text, ticket_no"]
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--person-labels", "ticket_no",
                            "--ray", *LABELS)
    assert code == 2 and err == ["triage-app: --person-labels works on one machine; leave out --ray"]


def test_eval_learning_curve_prints_every_k_and_writes_the_same_test_rows(tmp_path, capsys, tiny_model, qapp):
    # qapp: the plot is drawn by Qt; the suite's one QApplication, not a QGuiApplication of its own
    texts, gold = tickets(90, seed=3)
    path = write_csv(tmp_path / "g.csv", ["text", "category"], list(zip(texts, gold)))
    code, stdout, err = run_main(capsys, "eval", path, "--learning-curve", "--draws", "2",
                                 "--json", tmp_path / "out" / "curve.json", "--plot", tmp_path / "pics" / "curve.png",
                                 *LABELS)     # new folders, made as classify's outputs' are (a hunt's finding)
    assert code == 0, err
    table = [line for line in stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [int(line.split("|")[1]) for line in table] == [0, 2, 5, 10, 20]
    assert "30 test tickets, the same for every k; 2 seeded draws" in stdout
    data = json.loads((tmp_path / "out" / "curve.json").read_text())
    assert [p["k"] for p in data["points"]] == [0, 2, 5, 10, 20]
    assert data["n_test"] == len(data["test_rows"]) == 30 and data["gold_column"] == "category"
    # every label's test rows: 10 of its 30, held out of every k's training pool
    assert sorted(gold[r] for r in data["test_rows"]) == sorted(NAMES * 10)
    for point in data["points"]:
        assert all(len(draws) == 2 for draws in point["accuracy"].values())
    by_k = {p["k"]: p["mean"] for p in data["points"]}
    assert by_k[0]["learned"]["accuracy"] is None                  # nothing taught, nothing learned
    assert by_k[0]["combined"]["accuracy"] == by_k[0]["zero_shot"]["accuracy"]
    assert by_k[20]["combined"]["accuracy"] > by_k[0]["zero_shot"]["accuracy"] + 0.3
    assert (tmp_path / "pics" / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_the_learning_curve_is_refused(tmp_path, capsys):
    path = write_csv(tmp_path / "g.csv", ["text", "category"], [["a", "billing"]])
    code, _, err = run_main(capsys, "eval", path, "--plot", tmp_path / "c.png")
    assert code == 2 and err == ["triage-app: --plot and --draws go with --learning-curve"]
    code, _, err = run_main(capsys, "eval", path, "--learning-curve", "--plot", tmp_path / "c.svg")
    assert code == 2 and err == [f"triage-app: {tmp_path / 'c.svg'}: the plot is a PNG; name it .png"]


def test_a_file_mostly_not_in_english_is_told_which_encoder_reads_it_better(tmp_path, capsys, tiny_model):
    # a hunt's finding: the window said so, the command line learned on the English encoder in silence
    french = ["Bonjour, je n'ai pas reçu ma carte bancaire et je voudrais savoir quand elle arrivera.",
              "Je voudrais annuler mon abonnement et être remboursé du dernier mois, merci.",
              "Le paiement a été débité deux fois sur ma carte, pouvez-vous me rembourser ?",
              "Mon mot de passe ne fonctionne plus depuis ce matin, je ne peux pas me connecter."]
    path = write_csv(tmp_path / "fr.csv", ["id", "text", "queue"],
                     [[0, french[0], "billing"], [1, french[1], "account"], [2, french[2], ""], [3, french[3], ""]])
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "queue", *LABELS)
    assert code == 0, err
    said = [line for line in err if "mostly not in English" in line]
    assert len(said) == 1 and "paraphrase-multilingual-MiniLM-L12-v2" in said[0] and "--encoder" in said[0]
    english = ["I have not received my bank card yet and would like to know when it will arrive.",
               "I would like to cancel my subscription and get a refund for the last month, thanks.",
               "The payment was taken twice from my card, can you refund one of them?",
               "My password has not worked since this morning and I cannot log in."]
    path = write_csv(tmp_path / "en.csv", ["id", "text", "queue"],
                     [[r, t, g] for r, (t, g) in enumerate(zip(english, ["billing", "account", "", ""]))])
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out2.csv", "--db", tmp_path / "r.db",
                            "--person-labels", "queue", *LABELS)
    assert code == 0 and not any("mostly not in English" in line for line in err)


def test_eval_learning_curve_leaves_out_a_k_some_label_cannot_teach_and_says_so(tmp_path, capsys, tiny_model, qapp):
    # a hunt's finding: with 3 rows of a label, k=10 and k=20 were printed, each teaching that label 2
    texts, gold = tickets(90, seed=3)
    kept = [r for r, g in enumerate(gold) if g != "account" or r < 24]         # 8 rows of account
    path = write_csv(tmp_path / "g.csv", ["text", "category"], [[texts[r], gold[r]] for r in kept])
    code, stdout, err = run_main(capsys, "eval", path, "--learning-curve", "--draws", "1",
                                 "--json", tmp_path / "curve.json", *LABELS)
    assert code == 0, err
    table = [line for line in stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [int(line.split("|")[1]) for line in table] == [0, 2, 5]
    assert [p["k"] for p in json.loads((tmp_path / "curve.json").read_text())["points"]] == [0, 2, 5]
    assert "k=10, 20 left out: account has 7 to teach from" in err
    assert any(line.startswith("note: few tickets to test on (account 3)") for line in err)
    # a second hunt's finding: a label with no ticket divided by zero, and one with one ticket left k=0 alone
    for rows_of_account in (1, 0):
        kept = [r for r, g in enumerate(gold) if g != "account" or r < 3 * rows_of_account]
        path = write_csv(tmp_path / f"g{rows_of_account}.csv", ["text", "category"], [[texts[r], gold[r]] for r in kept])
        code, stdout, err = run_main(capsys, "eval", path, "--learning-curve", "--draws", "1", *LABELS)
        assert code == 0, err
        table = [line for line in stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
        assert [int(line.split("|")[1]) for line in table] == [0, 2, 5, 10, 20]
        assert f"note: account ({rows_of_account}): too few tickets to teach and test, never taught in the curve" in err
