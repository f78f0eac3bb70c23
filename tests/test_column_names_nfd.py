"""A column named as a person types it finds a header written with an accented letter's other Unicode form
(NFD, as some macOS programs write it): the two look the same on screen (a hunt's finding: refused as no
such column, with a list that showed the very name)."""

from __future__ import annotations

import unicodedata

import pytest
from cli_helpers import read_rows, run_main

from triage_app.files.reader import BadInput, check_column, read_tickets

TYPED = unicodedata.normalize("NFC", "Catégorie")
WRITTEN = unicodedata.normalize("NFD", "Catégorie")
TEXT = unicodedata.normalize("NFD", "Texte reçu")
ID = unicodedata.normalize("NFD", "Réf")


def write(path):
    path.write_text(f"{ID},{TEXT},{WRITTEN}\nA-1,my card was charged twice,billing\nA-2,the app crashes,technical\n",
                    encoding="utf-8")
    return path


def test_a_column_typed_nfc_is_the_headers_nfd_column(tmp_path):
    table = read_tickets(write(tmp_path / "t.csv"))
    assert TYPED != WRITTEN and check_column(table, TYPED) == WRITTEN and check_column(table, WRITTEN) == WRITTEN
    with pytest.raises(BadInput, match="no column 'Catégorie_2'"):
        check_column(table, "Catégorie_2")


def test_classify_reads_text_labels_and_ids_by_names_typed_nfc(tmp_path, capsys, tiny_model):
    path = write(tmp_path / "t.csv")
    typed = {name: unicodedata.normalize("NFC", name) for name in (TEXT, ID)}
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "o.csv", "--labels", "billing,technical",
                            "--text-column", typed[TEXT], "--person-labels", TYPED, "--db", tmp_path / "r.db")
    assert code == 0, err
    assert [(r["label"], r["person"]) for r in read_rows(tmp_path / "o.csv")] == [("billing", "True"),
                                                                                  ("technical", "True")]
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "o2.csv", "--labels", "billing,technical",
                            "--text-column", typed[TEXT], "--updates", tmp_path / "u.csv", "--id-column", typed[ID], "--apply-above", "0",
                            "--db", tmp_path / "r.db")
    assert code == 0, err
    assert [r["id"] for r in read_rows(tmp_path / "u.csv")] == ["A-1", "A-2"]
