"""A NUL byte here and there is dropped and its line named, wherever it sits; a file full of them is binary."""

from __future__ import annotations

import codecs

import pytest

from triage_app.files.reader import BadInput, read_tickets


def note(line: int) -> str:
    return f"NUL bytes (\\x00), which are no text, were dropped; the first was on line {line}"


@pytest.mark.parametrize("rows_before", [1, 400])     # in the first 8 KiB, and past it
@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_a_stray_nul_is_dropped_and_its_line_named_wherever_it_sits(tmp_path, rows_before, suffix):
    texts = [f"ticket number {k} about a card" for k in range(rows_before)] + ["bad\x00byte here", "after\x00"]
    if suffix == "csv":
        content = "id,text\r\n" + "".join(f"{k},{text}\r\n" for k, text in enumerate(texts))
    else:
        content = "".join(f'{{"id": {k}, "text": "{text}"}}\n' for k, text in enumerate(texts))
    (tmp_path / f"t.{suffix}").write_bytes(content.encode("utf-8"))
    table = read_tickets(tmp_path / f"t.{suffix}")
    assert table.frame["text"].tolist()[-2:] == ["badbyte here", "after"] and len(table.frame) == len(texts)
    assert table.warnings == [note(rows_before + 1 + (suffix == "csv"))]


def test_a_nul_in_a_legacy_file_is_dropped_too(tmp_path):
    (tmp_path / "t.csv").write_bytes("id;text\n1;Größe\x00 falsch\n2;prüfen\n".encode("cp1252"))
    table = read_tickets(tmp_path / "t.csv")
    assert table.frame["text"].tolist() == ["Größe falsch", "prüfen"] and note(2) in table.warnings


def test_utf16_without_a_byte_order_mark_is_still_refused_as_binary(tmp_path):
    (tmp_path / "t.csv").write_bytes("id,text\n1,hello\n2,world\n".encode("utf-16-le"))
    with pytest.raises(BadInput, match="looks like a binary file"):
        read_tickets(tmp_path / "t.csv")
    (tmp_path / "marked.csv").write_bytes(codecs.BOM_UTF16_LE + "id,text\n1,hello\n".encode("utf-16-le"))
    assert read_tickets(tmp_path / "marked.csv").warnings == []
