"""Legacy code pages: a file from Excel for Mac (Mac Roman) and one from Excel on Windows (Windows-1252, or
Latin-1) read back as written, each with a note that names the code page."""

from __future__ import annotations

import json

import pytest

from triage_app.files.reader import read_tickets

SENTENCES = {
    "fr": ["Ma carte a été débitée deux fois", "Où est ma carte ? Ça fait déjà deux semaines",
           "Je n’arrive pas à me connecter, le système répond « erreur »",
           "Le reçu indique un montant erroné"],
    "de": ["Ich habe eine Überweisung getätigt, aber sie ist nicht angekommen",
           "Meine Karte wurde gesperrt, bitte schnell prüfen", "Gebühr für Auslandsüberweisung zu hoch",
           "Die Größe des Anhangs ist zu groß"],
    "es": ["No puedo iniciar sesión en la aplicación", "¿Dónde está mi tarjeta? Pedí una nueva hace dos semanas",
           "Me cobraron dos veces el año pasado", "La contraseña no funciona después del cambio"],
    "en": ["My card—which I ordered last week—never came", "“Hello” she said, and the app didn’t load",
           "The fee was €5 and the café’s receipt says 50°"],
}
NAMES = {"mac_roman": "Mac Roman", "cp1252": "Windows-1252", "latin-1": "Windows-1252"}


@pytest.mark.parametrize("language", sorted(SENTENCES))
@pytest.mark.parametrize("encoding", sorted(NAMES))
def test_a_legacy_csv_reads_back_exactly_and_names_its_code_page(tmp_path, language, encoding):
    texts = SENTENCES[language]
    try:
        raw = ("id;text\r\n" + "".join(f"{k};{text}\r\n" for k, text in enumerate(texts, 1))).encode(encoding)
    except UnicodeEncodeError:
        pytest.skip(f"{encoding} has no character for some of the {language} text")
    (tmp_path / "t.csv").write_bytes(raw)
    table = read_tickets(tmp_path / "t.csv")
    assert table.frame["text"].tolist() == texts
    assert table.warnings == [f"read as {NAMES[encoding]} (legacy encoding): check the accents; saving as UTF-8 "
                              "avoids this"]


def test_a_mac_roman_json_file_reads_back_exactly_and_says_so(tmp_path):
    texts = SENTENCES["de"]
    (tmp_path / "t.json").write_bytes(json.dumps([{"text": t} for t in texts], ensure_ascii=False).encode("mac_roman"))
    table = read_tickets(tmp_path / "t.json")
    assert table.frame["text"].tolist() == texts and table.encoding == "mac_roman"
    assert table.warnings == ["read as Mac Roman (legacy encoding): check the accents; saving as UTF-8 avoids this"]


def test_a_utf8_file_has_no_code_page_note(tmp_path):
    (tmp_path / "t.csv").write_text("id,text\n1,Où est ma carte\n", encoding="utf-8")
    assert read_tickets(tmp_path / "t.csv").warnings == []


@pytest.mark.parametrize("encoding, text", [
    ("cp1251", "Моя карта заблокирована, помогите пожалуйста"),
    ("cp1253", "Η κάρτα μου έχει μπλοκαριστεί, βοηθήστε με"),
])
def test_a_code_page_of_another_script_is_still_read_in_it(tmp_path, encoding, text):
    (tmp_path / "t.csv").write_bytes(f'id,text\n1,"{text}"\n'.encode(encoding))
    table = read_tickets(tmp_path / "t.csv")
    assert table.frame["text"].tolist() == [text] and table.encoding == encoding


ACUTE_APOSTROPHES = {
    "en": ["I can´t log into my account since yesterday", "It´s been a week and I still don´t have my refund",
           "My card doesn´t work abroad", "Why was I charged a fee? That´s not fair"],
    "fr": ["Ma carte a été refusée au café hier soir", "Je voudrais être remboursé pour ma commande",
           "Je n´arrive pas à me connecter à l´application", "Pourquoi ces frais? Ça ne va pas du tout"],
}


@pytest.mark.parametrize("language", sorted(ACUTE_APOSTROPHES))
def test_an_accent_typed_as_an_apostrophe_keeps_a_windows_file_windows_1252(tmp_path, language):
    # a hunt's finding: "´" (U+00B4, typed for an apostrophe on German, French and Spanish keyboards) counted as
    # a misfit, and the whole file was read as Mac Roman ("can¥t") or a Baltic code page ("ętre", "Įa")
    rows = ACUTE_APOSTROPHES[language]
    path = tmp_path / "t.csv"
    lines = "".join(f"{n},Subject {n},{text},open\r\n" for n, text in enumerate(rows, 1))
    path.write_bytes(("Ticket ID,Subject,Description,Status\r\n" + lines).encode("cp1252"))
    assert read_tickets(path).frame["Description"].tolist() == rows
