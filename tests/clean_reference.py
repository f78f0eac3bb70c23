"""The HTML and signature steps as they were before they were made linear (RULES_VERSION 1), kept
to check that the linear ones give the same text. Quadratic: for small inputs only."""

from __future__ import annotations

import html

from bs4 import BeautifulSoup, NavigableString

from triage_app.files.clean import (_CELLS, _CLOSING, _CLOSING_NAME, _DELIMITER, _DEVICE, _DEVICE_WORDS, _DROPPED,
                                    _LINES, _MARKUP, _NAME_LINE_CHARS, _NAME_LINES, _PARAGRAPHS, _SIGNATURE_LINES,
                                    _has_any, _opens_chain, _plain)


def strip_html(text: str) -> str:
    if not _MARKUP.search(text):
        return html.unescape(text)
    soup = BeautifulSoup(text, "html.parser")
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        if tag.name in _DROPPED:
            tag.decompose()
        elif tag.name == "br":
            tag.replace_with("\n")
        elif tag.name in _PARAGRAPHS:
            tag.insert_before("\n")
            tag.insert_after("\n")
        elif tag.name in _LINES:
            before = tag.previous_sibling
            if isinstance(before, NavigableString) and before.strip():
                tag.insert_before("\n")
            tag.insert_after("\n")
        elif tag.name in _CELLS:
            tag.insert_after(" ")
    return soup.get_text()


def cut_signature(text: str) -> str:
    lines = text.splitlines()
    if _has_any(text, _DEVICE_WORDS):
        lines = [line for line in lines if not _DEVICE.match(_plain(line))]
    dashes = "--" in text
    while True:
        shorter = _without_signature(lines, dashes)
        if len(shorter) == len(lines):
            break
        lines = shorter
    out = "\n".join(lines)
    return out if out.strip() and len(lines) < len(text.splitlines()) else text


def _without_signature(lines: list[str], dashes: bool) -> list[str]:
    end, below = len(lines), 0
    plain = [_plain(line) for line in lines] if dashes else []
    for i in range(len(plain) - 1, -1, -1):
        if plain[i].startswith(">") or _opens_chain(plain, i):
            break
        if _DELIMITER.match(plain[i]):
            return lines[:i]
        below += bool(plain[i])
        if below > _SIGNATURE_LINES:
            break
    while end and not lines[end - 1].strip():
        end -= 1
    if end and _CLOSING_NAME.match(_plain(lines[end - 1])):
        return lines[:end - 1]
    for i in range(end - 1, max(-1, end - 2 - _NAME_LINES), -1):
        if _CLOSING.match(_plain(lines[i])):
            names = [plain for plain in map(_plain, lines[i + 1:end]) if plain]
            if all(len(name) <= _NAME_LINE_CHARS and not name.endswith((".", "?", "!")) for name in names):
                return lines[:i]
            break
    return lines
