"""A JSON ticket holding half of a UTF-16 pair escaped alone is read as U+FFFD and said, so the tokenizer,
the export and a label-set example all take it (issue 32 item 6, found beside it)."""

from __future__ import annotations

import json

import pytest

from triage_app.files.reader import read_tickets


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_a_lone_surrogate_is_read_as_a_replacement_character_and_said(tmp_path, suffix):
    records = [{"id": "1", "text": "card \\ud800 lost"}, {"id": "2", "text": "smile \\ud83d\\ude00 fine"}]
    body = "[" + ", ".join(f'{{"id": "{r["id"]}", "text": "{r["text"]}"}}' for r in records) + "]"
    if suffix == "jsonl":
        body = "\n".join(f'{{"id": "{r["id"]}", "text": "{r["text"]}"}}' for r in records)
    path = tmp_path / f"t.{suffix}"
    path.write_text(body, encoding="utf-8")
    table = read_tickets(path)
    assert table.frame["text"].tolist() == ["card \ufffd lost", "smile \U0001F600 fine"]
    assert [w for w in table.warnings if "UTF-16" in w] == [
        f"t.{suffix}: 1 cell(s) held half of a UTF-16 pair escaped alone (\\ud800-\\udfff), which is no text: "
        "read as \ufffd"]
    "".join(table.frame["text"]).encode("utf-8")   # text every encoder takes


def test_a_file_with_pairs_only_says_nothing(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"text": "smile \U0001F600"}]), encoding="utf-8")   # ensure_ascii: \ud83d\ude00
    assert read_tickets(path).frame["text"].tolist() == ["smile \U0001F600"]
    assert not [w for w in read_tickets(path).warnings if "UTF-16" in w]
