"""classify --labels-first measured (docs/learning/labels_first.md): a 10,000-message file from
../shared/data/banking77_train.csv, 5 labels per intent in a `known` column; then its answers against
the gold intent, and against the run of every ticket on a seeded sample of the tickets it did not send.

    python scripts/experiments/labels_first_measure.py build OUT_DIR    (build10: 10 intents; build8: 8 queues)
    (time) triage-app classify OUT_DIR/banking10k.csv -o OUT_DIR/first.csv --db OUT_DIR/r.db --model smollm2-135m \
        --labels-file OUT_DIR/banking77.json --method direct --person-labels known --labels-first --text-column text
    python scripts/experiments/labels_first_measure.py sample OUT_DIR   # the labelled rows + 300 not sent
    triage-app classify OUT_DIR/sample.csv -o OUT_DIR/sample_full.csv --db OUT_DIR/r.db (same flags, no --labels-first)
    python scripts/experiments/labels_first_measure.py report OUT_DIR

The sample's run of every ticket answers as the whole file's would: the learned part trains on the same
labelled rows, their embeddings and scores are the same (the database's), and no other row moves a weight.
"""

from __future__ import annotations

import csv
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "banking77_train.csv"
PER_INTENT, ROWS, SAMPLE = 5, 10_000, 300


def taught_rows(name: Callable[[str], str | None]) -> list[dict]:
    """The shuffled file's first ROWS messages whose intent `name` names (None: left out), under that name,
    the first PER_INTENT of each name labelled in a `known` column."""
    rng = random.Random(0)
    rows = list(csv.DictReader(DATA.open(encoding="utf-8")))
    rng.shuffle(rows)
    seen: dict[str, int] = {}
    out = []
    for r in rows[:ROWS]:
        named = name(r["category"])
        if named is not None:
            seen[named] = seen.get(named, 0) + 1
            out.append({"text": r["text"], "category": named, "known": named if seen[named] <= PER_INTENT else ""})
    return out


def build(folder: Path) -> None:
    out = taught_rows(lambda intent: intent.replace("_", " "))
    write(folder / "banking10k.csv", out)
    names = sorted({r["category"] for r in out})
    (folder / "banking77.json").write_text(json.dumps({"labels": [{"name": n} for n in names]}))


# the 10 intents of docs/learning, named as there (scripts/experiments/embedding_kshot.py BANKING10)
BANKING10 = {"card_arrival": "card delivery", "lost_or_stolen_card": "lost or stolen card",
             "exchange_rate": "exchange rate", "change_pin": "change PIN", "top_up_failed": "top up failed",
             "request_refund": "refund request", "terminate_account": "close account",
             "transfer_timing": "transfer timing", "cash_withdrawal_charge": "cash withdrawal fee",
             "verify_my_identity": "identity verification"}


def build10(folder: Path) -> None:
    """The same shuffled file's messages of the 10 intents (every one of them), 5 labels per intent."""
    write(folder / "banking10.csv", taught_rows(BANKING10.get))
    (folder / "banking10.json").write_text(json.dumps({"labels": [{"name": n} for n in BANKING10.values()]}))


# A helpdesk's queues over the same messages: every intent in the queue a bank's support would route it to.
# The grouping is ours (by the intent's name, before any run); the texts are the people's.
QUEUES = {
    "cards": "activate_my_card card_arrival card_delivery_estimate card_linking get_physical_card order_physical_card "
             "getting_spare_card getting_virtual_card get_disposable_virtual_card disposable_card_limits "
             "card_about_to_expire visa_or_mastercard supported_cards_and_currencies virtual_card_not_working "
             "card_not_working contactless_not_working card_acceptance apple_pay_or_google_pay",
    "security": "lost_or_stolen_card lost_or_stolen_phone compromised_card card_swallowed pin_blocked change_pin "
                "passcode_forgotten",
    "card payments": "card_payment_fee_charged card_payment_not_recognised card_payment_wrong_exchange_rate "
                     "declined_card_payment pending_card_payment reverted_card_payment? transaction_charged_twice "
                     "extra_charge_on_statement direct_debit_payment_not_recognised Refund_not_showing_up request_refund",
    "cash": "atm_support cash_withdrawal_charge cash_withdrawal_not_recognised declined_cash_withdrawal "
            "pending_cash_withdrawal wrong_amount_of_cash_received wrong_exchange_rate_for_cash_withdrawal",
    "top ups": "automatic_top_up pending_top_up top_up_by_bank_transfer_charge top_up_by_card_charge "
               "top_up_by_cash_or_cheque top_up_failed top_up_limits top_up_reverted topping_up_by_card verify_top_up "
               "balance_not_updated_after_cheque_or_cash_deposit",
    "transfers": "balance_not_updated_after_bank_transfer beneficiary_not_allowed cancel_transfer declined_transfer "
                 "failed_transfer pending_transfer receiving_money transfer_fee_charged transfer_into_account "
                 "transfer_not_received_by_recipient transfer_timing",
    "currencies": "exchange_charge exchange_rate exchange_via_app fiat_currency_support country_support",
    "account": "age_limit edit_personal_details terminate_account unable_to_verify_identity verify_my_identity "
               "verify_source_of_funds why_verify_identity",
}


def build8(folder: Path) -> None:
    """The whole 10,000-message file in 8 queues (QUEUES), 5 labels per queue: issue 34's "10,000-ticket file
    taught with 5 labels per queue", on people's messages."""
    queue_of = {intent: queue for queue, intents in QUEUES.items() for intent in intents.split()}
    write(folder / "banking_queues.csv", taught_rows(queue_of.__getitem__))
    (folder / "queues.json").write_text(json.dumps({"labels": [{"name": n} for n in QUEUES]}))


def write(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def read(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def sample(folder: Path) -> None:
    first = read(folder / "first.csv")
    taught = [r for r in first if r["known"]]
    kept = [k for k, r in enumerate(first) if not r["known"] and r["read_by_model"] == "False"]
    picked = sorted(random.Random(1).sample(kept, min(SAMPLE, len(kept))))
    rows = [{"text": r["text"], "category": r["category"], "known": r["known"]} for r in taught]
    rows += [{"text": first[k]["text"], "category": first[k]["category"], "known": ""} for k in picked]
    write(folder / "sample.csv", rows)
    (folder / "sample_rows.json").write_text(json.dumps(picked))


def report(folder: Path) -> None:
    first = read(folder / "first.csv")
    rest = [r for r in first if not r["known"]]
    right = lambda rows: sum(r["label"] == r["category"] for r in rows) / max(1, len(rows))  # noqa: E731
    read_rows = [r for r in rest if r["read_by_model"] == "True"]
    kept = [r for r in rest if r["read_by_model"] == "False"]
    out = {"tickets": len(first), "taught": len(first) - len(rest), "read_by_model": len(read_rows),
           "accuracy": right(rest), "accuracy_read": right(read_rows), "accuracy_not_read": right(kept)}
    if (folder / "sample_full.csv").exists():
        picked = json.loads((folder / "sample_rows.json").read_text())
        full = [r for r in read(folder / "sample_full.csv") if not r["known"]]
        ours = [first[k] for k in picked]
        out |= {"sample": len(picked), "sample_labels_first": right(ours), "sample_every_ticket": right(full),
                "sample_same_label": sum(a["label"] == b["label"] for a, b in zip(ours, full)) / len(picked)}
    print(json.dumps(out, indent=2))


def without_lm(folder: Path, db: str = "r.db", tickets: str = "banking10k.csv", label_file: str = "banking77.json"
               ) -> None:
    """The 77 intents without the language model's scores of the labelled rows (too slow to take here):
    learn() on the file's embeddings (read from the database a labels-first run filled) and the
    similarity alone; how many answers fall under SURE, and how right those above and under it are."""
    import numpy as np

    from triage_app.engine.encoder import SentenceEncoder
    from triage_app.engine.labels import LabelSet
    from triage_app.files.clean import TextCleaning
    from triage_app.files.embeddings import EmbeddingCache
    from triage_app.learn import learn
    from triage_app.run.embedded import file_embeddings
    from triage_app.run.labels_first import SURE

    rows = read(folder / tickets)
    label_set = LabelSet.load(folder / label_file)
    names = label_set.names
    with EmbeddingCache(folder / db) as cache:
        found = file_embeddings([r["text"] for r in rows], TextCleaning(), SentenceEncoder.load(), cache, {"q": label_set})
    labels = {k: r["known"] for k, r in enumerate(rows) if r["known"]}
    learned = learn(found.features, np.full((len(rows), len(names)), np.nan), labels, names,
                    similarity=found.similarity["q"])
    rest = np.array([k not in labels for k in range(len(rows))])
    right = np.array([n == r["category"] for n, r in zip(learned.label_names(), rows)])
    sure = learned.answers.confidence >= SURE
    print(json.dumps({"tickets": len(rows), "taught": len(labels), "under_sure": int((rest & ~sure).sum()),
                      "accuracy": float(right[rest].mean()), "accuracy_sure": float(right[rest & sure].mean()),
                      "accuracy_unsure": float(right[rest & ~sure].mean()), "weights": str(learned.weights),
                      "estimate": learned.estimate.line()}, indent=2))


if __name__ == "__main__":
    {"build": build, "build10": build10, "build8": build8, "sample": sample, "report": report,
     "without_lm": without_lm}[sys.argv[1]](Path(sys.argv[2]), *sys.argv[3:])     # without_lm: db tickets labels
