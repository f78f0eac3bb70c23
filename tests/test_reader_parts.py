"""A UTF-8 file is decoded and split into lines a part at a time (files/encoding.PART_BYTES), so
that no single step holds the GIL for long: wherever a part ends (inside a character, between \\r
and \\n, inside a quoted ticket) the rows and the line numbers are those of the file read whole."""

from __future__ import annotations

import pytest

from triage_app.files import encoding
from triage_app.files.reader import BadInput, read_tickets

FILES = {
    "crlf.csv": 'id,text\r\n1,"café\r\ncrème"\r\n2,naïve 😀\r\n\r\n3,"a ""quote"""\r\n',
    "cr.csv": "id;text\r1;Grüße\r2;\"two\rlines\"\r",
    "lf.tsv": "id\ttext\n1\t日本語のチケット\n2\tlast line without an end",
    "blank-top.csv": "\n\n id , text \n1,x\n",
}


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("part_bytes", [1, 2, 3, 5, 7])
def test_rows_read_in_parts_are_those_read_whole(tmp_path, monkeypatch, name, part_bytes):
    path = tmp_path / name
    path.write_bytes(FILES[name].encode("utf-8"))
    whole = read_tickets(path)
    monkeypatch.setattr(encoding, "PART_BYTES", part_bytes)
    parted = read_tickets(path)
    assert parted.frame.equals(whole.frame) and parted.columns == whole.columns
    assert (parted.encoding, parted.delimiter) == (whole.encoding, whole.delimiter)


def test_an_error_is_named_at_the_same_line_in_parts(tmp_path, monkeypatch):
    path = tmp_path / "ragged.csv"
    path.write_bytes("id,text\r\n1,\"a\r\nb\"\r\n2,c,d\r\n".encode())
    monkeypatch.setattr(encoding, "PART_BYTES", 3)
    with pytest.raises(BadInput, match=r"^ragged.csv: line 4 has 3 fields, the header has 2$"):
        read_tickets(path)


def test_a_utf8_file_is_decoded_in_parts(monkeypatch):
    monkeypatch.setattr(encoding, "PART_BYTES", 4)
    decoded = encoding.decode("id,text\n1,café\n".encode(), "t.csv")
    assert len(decoded.parts) > 1 and decoded.text == "id,text\n1,café\n"
