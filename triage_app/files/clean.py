"""Ticket text as the model should read it: an export's markup, escapes and quoting taken out.

Helpdesk exports carry HTML (`<br>`, `&amp;`), literal `\\n` escapes, runs of blank space,
quoted reply chains and signatures: all paid for in tokens, and they blur what a ticket says.
`clean(text, cleaning)` returns a new string and never touches its input: the original stays
what the export writes, what a person's labels are keyed by and what the table shows.

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

from bs4 import BeautifulSoup, NavigableString, Tag

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


def model_texts(cells: Iterable, cleaning: TextCleaning = TextCleaning()) -> list[str]:
    """The one way from a file's cells to what the model reads: text, cleaned, stripped (the local
    run and the Ray actors alike; the engine strips again only to stay safe on its own)."""
    return [t.strip() for t in clean_texts([str(c) for c in cells], cleaning)]


# escapes ------------------------------------------------------------------------------------

_ESCAPE = re.compile(r"\\r\\n|\\n|\\t")
_ESCAPED = {"\\r\\n": "\n", "\\n": "\n", "\\t": "\t"}
# a Windows path ("C:\new folder", "\\server\temp") holds backslash-letter pairs that are no escapes
_PATH = re.compile(r"(?<!\S)(?:[A-Za-z]:\\|\\\\)\S*")


def _unescape(text: str) -> str:
    # A text with real line breaks was not written with escapes: a backslash-n in it is the
    # customer's own. Without a literal \n there is no sign of an escaping export at all.
    if "\\n" not in text or len(text.strip().splitlines()) > 1:
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
# a paragraph: a blank line between two of them; a line: a line break after, and before only
# when text runs into it (so a list or Outlook's one div per line does not come out double spaced)
_PARAGRAPHS = {"address", "article", "blockquote", "dl", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header",
               "hr", "ol", "p", "pre", "section", "table", "ul"}
_LINES = {"dd", "div", "dt", "li", "tr"}
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
    return _soup_text(BeautifulSoup(text, "html.parser"))


def _soup_text(soup: BeautifulSoup) -> str:
    """The text get_text() gives, with line breaks for block tags, read in one pass over the tree.

    The tree is never edited: BeautifulSoup finds a child's place in its parent by walking the
    parent's children, and a missing attribute on a tag by searching the tag's subtree, so
    inserting breaks or asking a tag whether it was decomposed made cleaning quadratic.
    """
    wanted = soup.interesting_string_types  # what get_text() reads: text and CDATA, not comments
    out: list[str] = []
    stack: list = list(reversed(soup.contents))
    while stack:
        node = stack.pop()
        if type(node) is str:  # a break queued to follow a tag's contents
            out.append(node)
        elif isinstance(node, NavigableString):
            if type(node) in wanted:
                out.append(node)
        elif node.name == "br":
            out.append("\n")
        elif node.name not in _DROPPED:
            if node.name in _PARAGRAPHS or (node.name in _LINES and _text_before(node)):
                out.append("\n")
            if node.name in _PARAGRAPHS or node.name in _LINES:
                stack.append("\n")
            elif node.name in _CELLS:
                stack.append(" ")
            stack.extend(reversed(node.contents))
    return "".join(out)


def _text_before(tag: Tag) -> bool:
    """Whether text runs into the tag: a dropped tag between is gone, any other tag ends in a break or none."""
    before = tag.previous_sibling
    while isinstance(before, Tag) and before.name in _DROPPED:
        before = before.previous_sibling
    return isinstance(before, NavigableString) and bool(before.strip())


# replies ------------------------------------------------------------------------------------

# Fewer words than this above a quoted chain and the quote is kept: "Any update?" says nothing
# on its own, the customer's first message in the quote does.
MIN_KEPT_WORDS = 12
_WROTE = re.compile(r"^On\b.{0,300}\bwrote:$")
_WROTE_END = re.compile(r"^.{0,200}\bwrote:$")
_ORIGINAL = re.compile(r"^-{2,} ?Original Message ?-{2,}$", re.IGNORECASE)
_REPLY_ABOVE = re.compile(r"^#+- ?Please type your reply above this line ?-#+$", re.IGNORECASE)
_FROM = re.compile(r"^\*?From:\*? \S", re.IGNORECASE)
_SENT = re.compile(r"^\*?(Sent|Date):\*? \S", re.IGNORECASE)
_FORWARDED = re.compile(r"Forwarded message|Begin forwarded message", re.IGNORECASE)
_RULE = re.compile(r"^(_{8,}|-{8,})$")
# a word every rule above needs; most tickets have none, and are left at once
_CHAIN_WORDS = (">", "wrote:", "original", "above", "from:")


def _cut_replies(text: str) -> str:
    if not _has_any(text, _CHAIN_WORDS):
        return text
    lines = [line for line in text.splitlines() if not _plain(line).startswith(">")]
    plain = [_plain(line) for line in lines]
    start = next((i for i in range(len(plain)) if _opens_chain(plain, i)), len(plain))
    if start == len(plain) and len(lines) == len(text.splitlines()):
        return text
    while start > 0 and (not plain[start - 1] or _RULE.match(plain[start - 1])):
        start -= 1
    out = "\n".join(lines[:start])
    return out if len(out.split()) >= MIN_KEPT_WORDS else text


def _opens_chain(plain: list[str], i: int, end: int | None = None) -> bool:
    """end: the lines past it are already cut, and do not count."""
    end = len(plain) if end is None else end
    line = plain[i]
    if _WROTE.match(line) or _ORIGINAL.match(line) or _REPLY_ABOVE.match(line):
        return True
    # "On Mon, 3 Mar 2026 at 10:14, Jess <jess@shop.example>" / "wrote:" split over two lines
    if line.startswith("On ") and i + 1 < end and _WROTE_END.match(plain[i + 1]):
        return True
    # an Outlook header (From: then Sent: or Date:), unless it heads a forward, whose text is the ticket
    if _FROM.match(line) and any(_SENT.match(nxt) for nxt in plain[i + 1:min(i + 4, end)]):
        return not any(_FORWARDED.search(prev) for prev in plain[max(0, i - 2):i])
    return False


# signatures ---------------------------------------------------------------------------------

_DELIMITER = re.compile(r"^--$")   # RFC 3676's "-- ", its space collapsed (or never sent)
_DEVICE = re.compile(r"^(Sent from (my )?\S.{0,40}|Get Outlook for \S.{0,20}|Sent via \S.{0,40})$", re.IGNORECASE)
_DEVICE_WORDS = ("sent", "outlook")
_CLOSING = re.compile(r"^(thanks( again| so much| in advance)?|thank you( so much| in advance)?|many thanks|"
                      r"(kind|best|warm|warmest) regards|regards|best|best wishes|cheers|sincerely|"
                      r"yours( sincerely| truly)?|thx|ty|br) ?[,.!]*$", re.IGNORECASE)
# the same closing and a name on one line: "Thanks, Megan", "Cheers Raj Kaur"
_CLOSING_NAME = re.compile(r"^(?i:thanks|thank you|many thanks|kind regards|best regards|regards|best|cheers|thx)"
                           r"[,.!]? [A-Z][\w'.-]*( [A-Z][\w'.-]*){0,2}$")
_NAME_LINES = 3        # a name, a role, a company or phone under the closing
_NAME_LINE_CHARS = 60
_SIGNATURE_LINES = 12  # more under a "--" line than this, and it was a separator, not a signature


def _cut_signature(text: str) -> str:
    lines = text.splitlines()
    if _has_any(text, _DEVICE_WORDS):
        lines = [line for line in lines if not _DEVICE.match(_plain(line))]
    # each line made plain once: a cut only moves the end, so every pass reads the same lines
    plain = [_plain(line) for line in lines] if "--" in text else None
    end = len(lines)
    while True:   # a signature under a signature ("Thanks,\nMegan\n-- \nMegan Harris"): until none is left
        start = _signature_start(lines, plain, end)
        if start == end:
            break
        end = start
    out = "\n".join(lines[:end])
    return out if out.strip() and end < len(text.splitlines()) else text


def _signature_start(lines: list[str], plain: list[str] | None, end: int) -> int:
    """Where the signature at the end of lines[:end] begins, or end if there is none; only the last lines are read."""
    below = 0
    for i in range(end - 1, -1, -1) if plain is not None else ():
        # a quoted message under a signature is the replies step's to cut or keep, not this one's
        if plain[i].startswith(">") or _opens_chain(plain, i, end):
            break
        if _DELIMITER.match(plain[i]):
            return i
        below += bool(plain[i])
        if below > _SIGNATURE_LINES:
            break
    last = end
    while last and not lines[last - 1].strip():
        last -= 1
    if last and _CLOSING_NAME.match(_plain(lines[last - 1])):
        return last - 1
    # a closing ("Kind regards,") with a few short name lines under it, at the end
    for i in range(last - 1, max(-1, last - 2 - _NAME_LINES), -1):
        if _CLOSING.match(_plain(lines[i])):
            names = [plain for plain in map(_plain, lines[i + 1:last]) if plain]
            if all(len(name) <= _NAME_LINE_CHARS and not name.endswith((".", "?", "!")) for name in names):
                return i
            break
    return end


# both cuts read lines as the whitespace step leaves them, so that they decide the same with it on or off

def _plain(line: str) -> str:
    return " ".join(_visible(line).split())


def _visible(text: str) -> str:
    # zero-width space and BOM: HTML mail is full of them
    return text.replace("\u200b", "").replace("\ufeff", "") if "\u200b" in text or "\ufeff" in text else text


def _has_any(text: str, words: tuple[str, ...]) -> bool:
    low = _visible(text).lower()
    return any(word in low for word in words)


# whitespace ---------------------------------------------------------------------------------

_SPACES = re.compile(r"[^\S\n]+")    # every space but a line break: tabs, \xa0 from &nbsp;, ...
_LINE_EDGES = re.compile(r" ?\n ?")
_BLANK_LINES = re.compile(r"\n{3,}")


def _collapse_space(text: str) -> str:
    # splitlines() knows every line break (\r\n, \r, \u2028, ...), so only \n is left after it
    text = "\n".join(_visible(text).splitlines())
    text = _LINE_EDGES.sub("\n", _SPACES.sub(" ", text))
    return _BLANK_LINES.sub("\n\n", text).strip()
