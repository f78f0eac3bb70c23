"""A text file's bytes as text: a byte-order mark, else UTF-8, else the legacy code page, or, for a
file pasted together from both, each line in the one it is written in; and what a file is when its first
bytes say it is no text (a workbook, an old .xls, a web page)."""

from __future__ import annotations

import codecs
import re
import unicodedata
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from triage_app.files.table import BadInput

# UTF-32's marks first: UTF-32-LE's begins with UTF-16-LE's
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# UTF-8 is decoded this many bytes at a time: one call over a 256 MiB file holds the GIL for
# seconds, and the window waits for it
PART_BYTES = 4 << 20
# a character UTF-8 writes in two to four bytes: legacy text almost never holds one by chance
_UTF8_CHAR = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
# A file's first bytes that tell what it is, whatever its name says
ZIP_MAGIC, OLE_MAGIC = b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
HTML_START = re.compile(rb"\s*<(?:!doctype html|html|table)\b", re.IGNORECASE)
# bytes no text holds, but tab, line ends and form feed
_CONTROL_BYTES = bytes(c for c in range(32) if c not in b"\t\n\r\x0c")
_LINE_END = re.compile(rb"\r\n?|\n")
# A legacy code page is chosen on the file's head: enough text to hold its accents, bounded to stay quick.
SCORED_BYTES = 256 << 10
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# punctuation that sits beside letters in any text ("don’t", "card—which", “quoted”, "5€"), and the accents typed
# alone as an apostrophe on German, French and Spanish keyboards ("I can´t", "n´arrive")
_PUNCTUATION = frozenset("‘’‚“”„–—…«»¿¡•·°€£¥©®™\xa0´¨¸")
_CODE_PAGE_NAMES = {"cp1252": "Windows-1252", "mac_roman": "Mac Roman"}


@dataclass(frozen=True, slots=True)
class Decoded:
    """The text (in parts, as decoded), what it was written in, and the lines read in a legacy code page
    where UTF-8 is mixed in."""

    parts: tuple[str, ...]
    encoding: str
    legacy: str | None = None           # the code page of a file that mixes one with UTF-8
    legacy_lines: tuple[int, ...] = ()  # those lines, from 1; a line ends at \n, \r or \r\n
    nul_line: int | None = None         # the first line that held a NUL byte, dropped from the text

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def mixed(self) -> bool:
        return bool(self.legacy_lines)


def decode(raw: bytes, name: str) -> Decoded:
    """The bytes as text, or BadInput naming the file when they are not text."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return Decoded((raw.decode(encoding),), encoding)
            except UnicodeDecodeError as exc:
                raise BadInput(f"{name}: starts with a {encoding.upper()} byte-order mark but byte {exc.start} "
                               f"is not {encoding.upper()}; save the file as UTF-8 and try again") from None
    if _binary(raw[:8192]):
        raise BadInput(f"{name}: this looks like a binary file, not a table of tickets")
    # A NUL byte here and there (an export tool's slip) is no text and no reason to refuse the file: dropped
    # before decoding (charset-normalizer reads no code page into it), and its line said.
    nul = raw.find(b"\x00")
    if nul < 0:
        return _decode(raw, name)
    return replace(_decode(raw.replace(b"\x00", b""), name), nul_line=len(_LINE_END.findall(raw, 0, nul)) + 1)


def _decode(raw: bytes, name: str) -> Decoded:
    try:
        return Decoded(_utf8_parts(raw), "utf-8")
    except UnicodeDecodeError:
        pass
    if _UTF8_CHAR.search(raw):
        mixed = _decode_mixed(raw, name)
        if mixed is not None:
            return mixed
    text, encoding = _decode_legacy(raw, name)
    return Decoded((text,), encoding)


def _binary(head: bytes) -> bool:
    """A NUL in the head among many control bytes (a binary file, or UTF-16 with no byte-order mark), or beside
    any other control byte (binary junk however short: an export tool's slip is a NUL alone)."""
    if b"\x00" not in head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls > max(8, len(head) // 100) or controls > head.count(b"\x00")


def misnamed(path: Path, suffix: str) -> str | None:
    """What a file is when its first bytes say it is not what its suffix does, and what to do; else None."""
    with path.open("rb") as file:
        head = file.read(512)
    if head.startswith(OLE_MAGIC):   # Excel 97-2003, or any workbook saved with a password
        return "an old Excel .xls or a password-protected workbook: save it as .xlsx or CSV without a password"
    if head.startswith(ZIP_MAGIC) and suffix not in (".xlsx", ".xlsm"):
        if _is_workbook(path):
            return f"an Excel workbook named {suffix or 'without .xlsx'}: rename it .xlsx"
        return "a zip archive, not a table of tickets: save the tickets as CSV or .xlsx"
    if HTML_START.match(head.removeprefix(codecs.BOM_UTF8)):   # a helpdesk's "Excel export" is often a web page
        return "an HTML page, not a table file: save it as CSV or .xlsx"
    return None


def _is_workbook(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def _utf8_parts(raw: bytes) -> tuple[str, ...]:
    """The bytes as UTF-8, PART_BYTES at a time: a character cut by a part's end is finished in the next."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts = [decoder.decode(raw[start:start + PART_BYTES]) for start in range(0, len(raw), PART_BYTES)]
    return tuple(part for part in [*parts, decoder.decode(b"", final=True)] if part) or ("",)


def _decode_legacy(raw: bytes, name: str) -> tuple[str, str]:
    from charset_normalizer import from_bytes

    matches = from_bytes(raw)
    if not matches:
        raise BadInput(f"{name}: cannot tell the text encoding; save the file as UTF-8 and try again")
    # Short legacy files fit several code pages equally well. Windows-1252 is what Excel on a
    # Western-European Windows writes, so it wins a tie: when a match decodes the bytes as it would
    # (charset-normalizer names one such match after another code page, and a file holding only "café"
    # was read as cp1006's "cafﻠ"). A tie it wins wrongly: Turkish's cp1254 and Czech's cp1250 text fit
    # it as well (docs/files.md). Mac Roman is what Excel for Mac's plain CSV writes, and charset-normalizer
    # reads it as cp1252's "getŠtigt" or mac_latin2's "OĚ est": it wins where it leaves fewer misfits, against
    # Windows-1252 where that fits, else against charset-normalizer's best (a tie keeps the first).
    best = matches.best()
    western = any("cp1252" in m.could_be_from_charset for m in matches)
    candidates = ["cp1252", "mac_roman"] if western else [best.encoding, "mac_roman"]
    sample = raw[:SCORED_BYTES]
    misfits = [_misfits(sample.decode(encoding, errors="replace")) for encoding in candidates]
    encoding = candidates[misfits.index(min(misfits))]
    try:
        return (str(best) if encoding == best.encoding else raw.decode(encoding)), encoding
    except UnicodeDecodeError:   # past the head charset-normalizer read, a byte the code page has no character for
        return str(best), best.encoding


def _misfits(text: str) -> int:
    """Characters beside a letter that no word holds there: a symbol or a modifier ("est‡", "voilˆ", "ÃÓˇ"), or
    a capital after a small letter ("getŠtigt", "dŽbitŽe"). A code page that is not the file's puts such
    characters where its letters were; punctuation ("don’t", "card—which", “quoted”) is no misfit."""
    count = 0
    for found in _NON_ASCII.finditer(text):
        at, char = found.start(), found.group()
        before, after = text[at - 1:at], text[at + 1:at + 2]
        if char in _PUNCTUATION or not (before.isalpha() or after.isalpha()):
            continue
        letter = unicodedata.category(char) in ("Ll", "Lu", "Lt", "Lo")
        count += not letter or (char.isupper() and before.islower())
    return count


def decoding_notes(decoded: Decoded) -> list[str]:
    """The lines that say a file was read in a legacy code page, whose accents may be wrong, and that NUL
    bytes were dropped (a file that mixes code pages says so in mixed_note)."""
    notes = []
    if not decoded.encoding.startswith("utf") and not decoded.mixed:
        shown = _CODE_PAGE_NAMES.get(decoded.encoding, decoded.encoding)
        notes.append(f"read as {shown} (legacy encoding): check the accents; saving as UTF-8 avoids this")
    if decoded.nul_line is not None:
        notes.append(f"NUL bytes (\\x00), which are no text, were dropped; the first was on line {decoded.nul_line}")
    return notes


def _decode_mixed(raw: bytes, name: str) -> Decoded | None:
    """Each line that is UTF-8 as UTF-8, the others in the code page they are in; None if no line
    but ASCII ones is UTF-8 (the file is all legacy) or the others do not decode line by line.

    Rows appended from another system, or a file saved once by Excel and once by a script, mix the two;
    decoding all of it in the code page turns the UTF-8 "café" into "cafÃ©".
    """
    # bytes.splitlines ends lines at \n, \r and \r\n only, as the csv reader does; no UTF-8
    # character and no legacy one holds those bytes, so no line is cut inside a character
    lines = raw.splitlines(keepends=True)
    texts = [_utf8(line) for line in lines]
    if not any(text is not None and not text.isascii() for text in texts):
        return None
    try:
        _, encoding = _decode_legacy(b"".join(line for line, text in zip(lines, texts) if text is None), name)
        text = "".join(text if text is not None else line.decode(encoding) for line, text in zip(lines, texts))
    except (BadInput, UnicodeDecodeError, LookupError):
        return None
    numbers = tuple(k for k, text in enumerate(texts, 1) if text is None)
    return Decoded((text,), f"utf-8+{encoding}", encoding, numbers)


def _utf8(line: bytes) -> str | None:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return None


def mixed_note(decoded: Decoded, where: str) -> str:
    """The one line that says a file mixes encodings: where is "rows 3, 17 and 40 more" or the like."""
    return (f"the file mixes UTF-8 with {decoded.legacy}; read as {decoded.legacy}: {where} (the rest as UTF-8); "
            "check them")


def listed(unit: str, numbers: list[int], shown: int = 3) -> str:
    """Numbers as a phrase: "row 3", "rows 3, 17 and 21", "rows 3, 17, 21 and 40 more"."""
    if len(numbers) == 1:
        return f"{unit} {numbers[0]}"
    head = ", ".join(map(str, numbers[:shown]))
    if len(numbers) > shown:
        return f"{unit}s {head} and {len(numbers) - shown:,} more"
    return f"{unit}s {head.rsplit(', ', 1)[0]} and {numbers[-1]}"
