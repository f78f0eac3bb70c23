"""learn/language.py: a file of mostly non-English tickets is told apart from an English one by its
share of English stop words, on real tickets (the sample, the helpdesk export) and real sentences."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from triage_app.learn.language import mostly_not_english, reads_as_english

RESOURCES = Path(__file__).resolve().parents[1] / "resources"

FOREIGN = [
    "Bonjour, je n'ai pas reçu ma carte bancaire et je voudrais savoir quand elle arrivera. Merci de votre aide.",
    "Hola, no puedo acceder a mi cuenta desde ayer, la contraseña no funciona y necesito pagar una factura hoy.",
    "Guten Tag, meine Bestellung ist noch nicht angekommen, obwohl sie vor zwei Wochen verschickt wurde.",
    "Buongiorno, il pagamento è stato addebitato due volte sulla mia carta di credito, potete rimborsarmi?",
    "Olá, gostaria de cancelar a minha assinatura e receber o reembolso do último mês, obrigado.",
    "您好，我的订单已经付款三天了，但是还没有发货，请问什么时候可以发货？",
]


def english_tickets() -> list[str]:
    frame = pd.read_csv(RESOURCES / "helpdesk_tickets.csv")
    return frame["customer_message"].tolist()


def test_english_helpdesk_tickets_are_english():
    texts = english_tickets()
    assert not mostly_not_english(texts)
    assert sum(reads_as_english(t) is True for t in texts[:200]) > 190


def test_a_file_of_french_spanish_german_and_chinese_tickets_is_mostly_not_english():
    assert mostly_not_english(FOREIGN * 30)
    assert [reads_as_english(t) for t in FOREIGN[:5]] == [False] * 5


def test_mostly_means_more_than_half_of_the_tickets_that_can_tell():
    english = english_tickets()[:40]
    assert not mostly_not_english(english[:25] + FOREIGN[:5] * 3)       # 25 English, 15 not
    assert mostly_not_english(english[:10] + FOREIGN[:5] * 3)           # 10 English, 15 not


def test_tickets_too_short_to_tell_are_left_out_and_a_file_of_them_is_not_flagged():
    short = ["Refund?", "#7824903", "HD-10001 urgent", "Merci beaucoup"]
    assert [reads_as_english(t) for t in short] == [None] * 4
    assert not mostly_not_english(short * 50)
    assert mostly_not_english(short * 50 + FOREIGN)                     # only the ones that tell count
