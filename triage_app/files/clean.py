"""Ticket text as the model should read it: an export's markup, escapes and quoting taken out.

Helpdesk exports carry HTML (`<br>`, `&amp;`), literal `\\n` escapes, runs of blank space,
quoted reply chains and signatures: all paid for in tokens, and they blur what a ticket says.
`clean(text, cleaning)` returns a new string and never touches its input: the original stays
what the export writes, what manual labels are keyed by and what the table shows.

The steps run in a fixed order, each behind its own switch in `TextCleaning`: escapes (before
the HTML, whose line breaks they are), html, replies, signatures (both read lines, so after the
HTML), whitespace (last, it tidies what the others leave).

HTML is parsed by BeautifulSoup with the stdlib parser, and only when a text looks like it has
tags or entities, so "a < b" in plain text survives. Entities are decoded once: "&lt;b&gt;"
becomes the "<b>" the customer typed, and stays. That is the one place where a second pass
would change the result (it would read "<b>" as a tag); clean the original, never a cleaned
text.

Cuts are conservative: a cut that would leave nothing (or, for a reply chain, a stub such as
"Any update?" whose subject is in the quote) keeps the text whole. Whatever the switches, a
ticket with words in it never comes out blank.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from html.entities import html5

from bs4 import BeautifulSoup

# Bump when a rule changes what comes out, so results cached under the old rules are not reused.
RULES_VERSION = 1

# What each step does, in the order the steps run: the Settings check boxes and CLI help read this.
STEPS = {
    "escapes": "turn literal \\n, \\r\\n and \\t escapes into line breaks and tabs",
    "html": "decode HTML entities, turn <br>, <p>, <div>, <li> into line breaks, drop other tags",
    "replies": "cut quoted reply chains (On ... wrote:, > lines, Original Message, From:/Sent: headers)",
    "signatures": "cut signatures (a -- line and what follows, Sent from my iPhone, a closing and name at the end)",
    "whitespace": "collapse runs of spaces and tabs, and of blank lines",
}


@dataclass(frozen=True, slots=True)
class TextCleaning:
    """Which cleaning steps run. The default keeps everything a ticket says.

    Reply chains stay by default: a follow-up that quotes the customer's own first message
    ("Any update? On Mon, I wrote: > my parcel ...") has its subject only in the quote, and a
    forward has it below the header. The other steps drop only markup, escapes, blank space and
    a signature's closing, name and device line.
    """
    escapes: bool = True
    html: bool = True
    replies: bool = False
    signatures: bool = True
    whitespace: bool = True

    def __post_init__(self):
        for f in fields(self):
            # a "false" string from a settings file would otherwise switch a step on
            if not isinstance(getattr(self, f.name), bool):
                raise TypeError(f"TextCleaning.{f.name} must be True or False, not {getattr(self, f.name)!r}")

    @classmethod
    def off(cls) -> TextCleaning:
        """The text exactly as exported."""
        return cls(**{name: False for name in STEPS})

    @classmethod
    def from_steps(cls, steps: Iterable[str]) -> TextCleaning:
        """Only the named steps on (the inverse of `steps`, for a settings file)."""
        steps = _checked(steps)
        return cls(**{name: name in steps for name in STEPS})

    def without(self, *steps: str) -> TextCleaning:
        """These steps off, the rest as they are (for CLI flags such as --keep-html)."""
        return replace(self, **{name: False for name in _checked(steps)})

    @property
    def steps(self) -> tuple[str, ...]:
        """The steps that are on, in the order they run."""
        return tuple(name for name in STEPS if getattr(self, name))

    @property
    def fingerprint(self) -> str:
        """Changes whenever what the model reads could change: for a prompt's or a cache's key."""
        return f"clean{RULES_VERSION}:{'+'.join(self.steps) or 'off'}"


def _checked(steps: Iterable[str]) -> set[str]:
    steps = set(steps)
    if steps - set(STEPS):
        raise ValueError(f"unknown cleaning step(s) {sorted(steps - set(STEPS))}; the steps are {', '.join(STEPS)}")
    return steps


def clean(text: str, cleaning: TextCleaning = TextCleaning()) -> str:
    """The text with the chosen steps applied; a new string, the input is left as it is."""
    out = text
    if cleaning.escapes:
        out = _unescape(out)
    if cleaning.html and ("<" in out or "&" in out) and _looks_like_html(out):
        out = _strip_html(out)
    if cleaning.replies:
        out = _cut_replies(out)
    if cleaning.signatures:
        out = _cut_signature(out)
    if cleaning.whitespace:
        out = _collapse_space(out)
    # an image-only HTML body, say: the model had better read the markup than nothing
    return out if out.strip() or not text.strip() else text.strip()


def clean_texts(texts: Iterable[str], cleaning: TextCleaning = TextCleaning()) -> list[str]:
    """A new list of cleaned texts; each distinct text is cleaned once (exports repeat a lot)."""
    done: dict[str, str] = {}
    return [done[t] if t in done else done.setdefault(t, clean(t, cleaning)) for t in texts]


# escapes ------------------------------------------------------------------------------------

_ESCAPE = re.compile(r"\\r\\n|\\n|\\t")
_ESCAPED = {"\\r\\n": "\n", "\\n": "\n", "\\t": "\t"}
# a Windows path ("C:\new folder", "\\server\temp") holds backslash-letter pairs that are no escapes
_PATH = re.compile(r"(?<!\S)(?:[A-Za-z]:\\|\\\\)\S*")


def _unescape(text: str) -> str:
    # A text with real line breaks was not written with escapes: a backslash-n in it is the
    # customer's own. Without a literal \n there is no sign of an escaping export at all.
    if "\n" in text or "\r" in text or "\\n" not in text:
        return text
    pieces = _PATH.split(text)
    paths = _PATH.findall(text)
    out = [_ESCAPE.sub(lambda m: _ESCAPED[m.group()], piece) for piece in pieces]
    return "".join(p for pair in zip(out, paths + [""]) for p in pair)


# html ---------------------------------------------------------------------------------------

# The gate only decides whether to parse: a tag name HTML mail really uses, a comment or a
# doctype, or an entity. BeautifulSoup does the parsing.
_TAG_NAMES = ("a|abbr|b|big|blockquote|body|br|caption|center|code|col|colgroup|del|div|em|font|h[1-6]|"
              "head|header|footer|hr|html|i|img|ins|label|li|link|meta|o:p|ol|p|pre|s|section|small|"
              "span|strike|strong|style|sub|sup|script|table|tbody|td|tfoot|th|thead|title|tr|tt|u|ul|wbr")
_MARKUP = re.compile(rf"<(?:/?(?:{_TAG_NAMES})(?=[\s/>])|!--|!doctype)", re.IGNORECASE)
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]{1,31});")
_DROPPED = {"head", "script", "style", "title"}
_BLOCKS = {"address", "article", "blockquote", "div", "dl", "dt", "dd", "footer", "h1", "h2", "h3", "h4", "h5",
           "h6", "header", "hr", "li", "ol", "p", "pre", "section", "table", "tr", "ul"}
_CELLS = {"td", "th"}


def _looks_like_html(text: str) -> bool:
    if _MARKUP.search(text):
        return True
    return any(m.group()[1] == "#" or m.group()[1:] in html5 for m in _ENTITY.finditer(text))


def _strip_html(text: str) -> str:
    if not _MARKUP.search(text):
        # entities only: the stdlib's decoder, the same HTML5 table (and BeautifulSoup would warn
        # that a short text without tags "looks like a URL")
        return html.unescape(text)
    soup = BeautifulSoup(text, "html.parser")
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        if tag.name in _DROPPED:
            tag.decompose()
        elif tag.name == "br":
            tag.replace_with("\n")
        elif tag.name in _BLOCKS:
            tag.insert_before("\n")
            tag.insert_after("\n")
        elif tag.name in _CELLS:
            tag.insert_after(" ")
    return soup.get_text()


# replies ------------------------------------------------------------------------------------

# Fewer words than this above a quoted chain and the quote is kept: "Any update?" says nothing
# on its own, the customer's first message in the quote does.
MIN_KEPT_WORDS = 12
_WROTE = re.compile(r"^\s*On\b.{0,300}\bwrote:\s*$")
_WROTE_END = re.compile(r"^.{0,200}\bwrote:\s*$")
_ORIGINAL = re.compile(r"^\s*-{2,}\s*Original Message\s*-{2,}\s*$", re.IGNORECASE)
_REPLY_ABOVE = re.compile(r"^\s*#+-\s*Please type your reply above this line\s*-#+\s*$", re.IGNORECASE)
_FROM = re.compile(r"^\s*\*?From:\*?\s+\S", re.IGNORECASE)
_SENT = re.compile(r"^\s*\*?(Sent|Date):\*?\s+\S", re.IGNORECASE)
_FORWARDED = re.compile(r"Forwarded message|Begin forwarded message", re.IGNORECASE)
_RULE = re.compile(r"^\s*(_{8,}|-{8,})\s*$")


def _cut_replies(text: str) -> str:
    lines = text.split("\n")
    start = next((i for i in range(len(lines)) if _opens_chain(lines, i)), len(lines))
    while start > 0 and (not lines[start - 1].strip() or _RULE.match(lines[start - 1])):
        start -= 1
    kept = [line for line in lines[:start] if not line.lstrip().startswith(">")]
    out = "\n".join(kept)
    return out if len(out.split()) >= MIN_KEPT_WORDS else text


def _opens_chain(lines: list[str], i: int) -> bool:
    line = lines[i]
    if _WROTE.match(line) or _ORIGINAL.match(line) or _REPLY_ABOVE.match(line):
        return True
    # "On Mon, 3 Mar 2026 at 10:14, Jess <jess@shop.example>" / "wrote:" split over two lines
    if line.lstrip().startswith("On ") and i + 1 < len(lines) and _WROTE_END.match(lines[i + 1]):
        return True
    # an Outlook header (From: then Sent: or Date:), unless it heads a forward, whose text is the ticket
    if _FROM.match(line) and any(_SENT.match(nxt) for nxt in lines[i + 1:i + 4]):
        above = [prev for prev in lines[max(0, i - 2):i] if prev.strip()]
        return not any(_FORWARDED.search(prev) for prev in above)
    return False


# signatures ---------------------------------------------------------------------------------

_DELIMITER = re.compile(r"^--\s?$")   # RFC 3676's "-- ", often sent without its space
_DEVICE = re.compile(r"^\s*(Sent from (my )?\S.{0,40}|Get Outlook for \S.{0,20}|Sent via \S.{0,40})\s*$",
                     re.IGNORECASE)
_CLOSING = re.compile(r"^\s*(thanks( again| so much| in advance)?|thank you( so much| in advance)?|many thanks|"
                      r"(kind|best|warm|warmest) regards|regards|best|best wishes|cheers|sincerely|"
                      r"yours( sincerely| truly)?|thx|ty|br)\s*[,.!]*\s*$", re.IGNORECASE)
# the same closing and a name on one line: "Thanks, Megan", "Cheers Raj Kaur"
_CLOSING_NAME = re.compile(r"^\s*(?i:thanks|thank you|many thanks|kind regards|best regards|regards|best|cheers|thx)"
                           r"\s*[,.!]?\s+[A-Z][\w'.-]*( [A-Z][\w'.-]*){0,2}\s*$")
_NAME_LINES = 3        # a name, a role, a company or phone under the closing
_NAME_LINE_CHARS = 60
_SIGNATURE_LINES = 12  # more under a "--" line than this, and it was a separator, not a signature


def _cut_signature(text: str) -> str:
    lines = [line for line in text.split("\n") if not _DEVICE.match(line)]
    delimiter = next((i for i in range(len(lines) - 1, -1, -1) if _DELIMITER.match(lines[i])), None)
    if delimiter is not None and sum(bool(line.strip()) for line in lines[delimiter:]) <= _SIGNATURE_LINES:
        lines = lines[:delimiter]
    lines = _without_closing(lines)
    out = "\n".join(lines)
    return out if out.strip() else text


def _without_closing(lines: list[str]) -> list[str]:
    """Lines without a closing ("Kind regards,") and the few short name lines under it, at the end."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    if end and _CLOSING_NAME.match(lines[end - 1]):
        return lines[:end - 1]
    for i in range(end - 1, max(-1, end - 2 - _NAME_LINES), -1):
        if _CLOSING.match(lines[i]):
            below = [line for line in lines[i + 1:end] if line.strip()]
            if all(len(line) <= _NAME_LINE_CHARS and not line.rstrip().endswith((".", "?", "!")) for line in below):
                return lines[:i]
            break
    return lines


# whitespace ---------------------------------------------------------------------------------

_BLANK_LINES = re.compile(r"\n{3,}")
_INVISIBLE = str.maketrans("", "", "\u200b\ufeff")   # zero-width space and BOM: HTML mail is full of them


def _collapse_space(text: str) -> str:
    # splitlines() knows every line break (\r\n, \r, \u2028, ...); split() every space (\xa0 from &nbsp;)
    lines = (" ".join(line.split()) for line in text.translate(_INVISIBLE).splitlines())
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
