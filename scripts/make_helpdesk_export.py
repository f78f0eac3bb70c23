#!/usr/bin/env python3
"""Generate resources/helpdesk_export.csv: helpdesk tickets as a helpdesk tool exports them.

The ticket texts and their gold queues are resources/helpdesk_tickets.csv's (made by
scripts/make_helpdesk_tickets.py), so the queue stays a meaningful right answer. What this adds
is the noise of a real export, the kind that triage_app/files/clean.py takes out:
- bodies as plain text with literal "\\n" / "\\r\\n" escapes, as HTML (Gmail's divs, Outlook's
  MsoNormal paragraphs, <br> lines, entities such as &amp; &#39; &nbsp;), or as plain text with
  CRLF line ends and stray blank space;
- quoted reply chains under the customer's text: the helpdesk's auto-acknowledgement or an
  agent's question, quoted Gmail-style ("On ... wrote:" and "> " lines or a <blockquote>),
  Outlook-style ("-----Original Message-----", "From: ... Sent: ..."), or under Zendesk's
  "##- Please type your reply above this line -##";
- follow-ups whose own text says nothing ("Any update on this?") above the customer's first
  message, quoted: the ticket's subject is in the quote;
- signatures: "-- " blocks with a role, a phone and sometimes a confidentiality notice,
  "Sent from my iPhone", "Get Outlook for iOS".

Columns: subject, body, queue (the gold label), priority. Standard library only; one
random.Random(SEED) drives everything, so the output is byte-identical between runs:

    python scripts/make_helpdesk_export.py
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import random
import re
from pathlib import Path

SEED = 1616
N_TICKETS = 300
ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "resources" / "helpdesk_tickets.csv"
OUT = ROOT / "resources" / "helpdesk_export.csv"

SHOP = "Northwind Outfitters"
AGENTS = ["Jess", "Mark", "Priya", "Tom", "Abby", "Leon", "Sophie", "Dan"]
LAST_NAMES = ["Harris", "Kaur", "Bennett", "Alvarez", "Begum", "Jensen", "Hughes", "Wright", "Romano", "Ward"]
ROLES = ["Office Manager", "Operations Lead", "Head of Purchasing", "Teacher", "Freelance Designer",
         "Facilities Coordinator", "Nurse", "Project Manager"]
COMPANIES = ["Harris Ltd", "Bennett & Sons", "Kovacs Design Studio", "St Mary's Primary School",
             "Romano Catering", "Price Logistics", "Evans & Co. Accountants"]

# What the helpdesk itself sent before the customer's reply: the same for every queue, so it is
# noise the model must read past, not a hint.
AGENT_REPLIES = [
    "Hi {first},\n\nThank you for contacting {shop} Customer Care. Your request ({ticket}) has been received "
    "and is being reviewed by our support staff.\n\nTo add additional comments, reply to this email.\n\n"
    "In the meantime you may find an answer in our Help Centre, which covers orders, delivery, returns, "
    "payments and your account.\n\nKind regards,\n{shop} Customer Care",
    "Hi {first},\n\nThanks for getting in touch, and sorry for the trouble. So that I can look into this for you, "
    "could you please reply with your order number and the email address you used at checkout?\n\n"
    "Many thanks,\n{agent}\n{shop} Customer Care",
    "Hello {first},\n\nThank you for your patience. We have updated your case ({ticket}) and one of our "
    "specialists will be in touch within 2 working days. Please do not open a new ticket for the same issue, as "
    "this may delay our reply.\n\nBest regards,\n{agent} | {shop}",
    "Hi {first},\n\nI'm sorry to hear that. Could you tell me a little more about what happened, and attach a "
    "photo or screenshot if you have one? That will help us get this sorted as quickly as possible.\n\n"
    "Thanks,\n{agent}",
]
FOLLOW_UPS = ["Any update on this?", "Hi, still waiting to hear back about the below.", "Bumping this, no reply yet.",
              "Hello?? It's been days.", "Any news? See my message below.",
              "Can someone please get back to me about the below?", "Following up on my email below, thanks."]
DISCLAIMER = ("CONFIDENTIALITY NOTICE: This e-mail message, including any attachments, is for the sole use of the "
              "intended recipient(s) and may contain confidential and privileged information. Any unauthorized "
              "review, use, disclosure or distribution is prohibited. If you are not the intended recipient, please "
              "contact the sender by reply e-mail and destroy all copies of the original message.")
GENERIC_SUBJECTS = ["Help please", "Question", "Problem with my order", "Customer enquiry", "(no subject)",
                    "Support request", "Urgent!!", "Order {order}", "Re: Your {shop} order {order}", "Contact form"]
PRIORITIES = ["Low", "Normal", "High", "Urgent"]
ORDER = re.compile(r"#\d{7}|ORD-\d{6}|\b4\d{7}\b")


def main() -> None:
    rng = random.Random(SEED)
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        source = list(csv.DictReader(fh))
    rows = [ticket(rng, row, n) for n, row in enumerate(rng.sample(source, N_TICKETS))]
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["subject", "body", "queue", "priority"])
        writer.writeheader()
        writer.writerows(rows)
    counts = {q: sum(r["queue"] == q for r in rows) for q in sorted({r["queue"] for r in rows})}
    print(f"wrote {len(rows)} tickets to {OUT.relative_to(ROOT)} ({OUT.stat().st_size // 1024} KB): "
          + ", ".join(f"{q}={c}" for q, c in counts.items()))


def ticket(rng: random.Random, row: dict, n: int) -> dict:
    message = row["customer_message"]
    order_match = ORDER.search(message)
    slots = {"first": _first_name(message, rng), "last": rng.choice(LAST_NAMES), "agent": rng.choice(AGENTS),
             "shop": SHOP, "ticket": f"#{rng.randint(100000, 999999)}",
             "order": order_match.group() if order_match else f"#{rng.randint(1000000, 9999999)}",
             "when": _when(rng)}
    # one message, then what the mail client and the helpdesk add around it
    style = rng.choices(["escaped", "html", "plain"], weights=[40, 40, 20])[0]
    roll = rng.random()
    if roll < 0.08:
        own, chain, quoted = rng.choice(FOLLOW_UPS), message, "customer"
    elif roll < 0.36:
        own, chain, quoted = _signed(rng, message, slots), rng.choice(AGENT_REPLIES).format_map(slots), "agent"
    else:
        own, chain, quoted = _signed(rng, message, slots), None, None
    body = {"escaped": _escaped, "html": _html, "plain": _plain}[style](rng, own, chain, quoted, slots)
    return {"subject": _subject(rng, message, slots), "body": body, "queue": row["queue"],
            "priority": rng.choices(PRIORITIES, weights=[2, 5, 2, 1])[0]}


def _first_name(message: str, rng: random.Random) -> str:
    last_line = message.rstrip().rsplit("\n", 1)[-1].split()
    return last_line[0] if len(last_line) in (1, 2) and last_line[0].istitle() else rng.choice(AGENTS[::-1])


def _when(rng: random.Random) -> dt.datetime:
    return dt.datetime(2026, 1, 1) + dt.timedelta(minutes=rng.randrange(365 * 24 * 60))


def _signed(rng: random.Random, message: str, slots: dict) -> str:
    roll = rng.random()
    if roll < 0.15:
        return f"{message}\n\nSent from my iPhone"
    if roll < 0.22:
        return f"{message}\n\nGet Outlook for iOS"
    if roll < 0.40:
        block = [f"{slots['first']} {slots['last']}", f"{rng.choice(ROLES)} | {rng.choice(COMPANIES)}",
                 f"Tel: +44 {rng.randint(1000, 9999)} {rng.randint(100000, 999999)}"]
        if rng.random() < 0.35:
            block += ["", DISCLAIMER]
        return f"{message}\n\n-- \n" + "\n".join(block)
    return message


def _header(rng: random.Random, slots: dict, who: str) -> list[str]:
    """The line(s) a mail client puts above a quoted message."""
    when = slots["when"]
    sender = (f"{slots['shop']} Customer Care <support@northwind.example>" if who == "agent"
              else f"{slots['first']} {slots['last']} <{slots['first'].lower()}@example.com>")
    kind = rng.choice(["gmail", "outlook", "outlook_rule"] + (["zendesk"] if who == "agent" else []))
    if kind == "gmail":
        return [f"On {when:%a}, {when.day} {when:%b %Y} at {when:%H:%M}, {sender} wrote:"]
    if kind == "zendesk":
        return ["##- Please type your reply above this line -##"]
    sent = [f"From: {sender}", f"Sent: {when:%A}, {when:%B} {when.day}, {when:%Y} {when:%I:%M %p}",
            "To: support@northwind.example" if who == "customer" else f"To: {slots['first']}",
            f"Subject: RE: [{slots['shop']}] {slots['ticket']}"]
    return (["-----Original Message-----"] if kind == "outlook" else ["_" * 32]) + sent


def _thread(rng: random.Random, own: str, chain: str | None, quoted: str | None, slots: dict) -> list[str]:
    """The reply as plain lines: the customer's text, then the quoted chain."""
    lines = own.split("\n")
    if chain is None:
        return lines
    header = _header(rng, slots, quoted)
    gt = header[0].startswith("On ")
    return lines + [""] + header + [""] + [f"> {line}" if gt else line for line in chain.split("\n")]


def _escaped(rng, own, chain, quoted, slots) -> str:
    """One line per ticket, line breaks written as \\n (or \\r\\n) escapes, & as &amp; sometimes."""
    text = ("\\r\\n" if rng.random() < 0.25 else "\\n").join(_thread(rng, own, chain, quoted, slots))
    if rng.random() < 0.3:
        text = text.replace("&", "&amp;")
    return _stray_space(rng, text)


def _plain(rng, own, chain, quoted, slots) -> str:
    text = "\n".join(_thread(rng, own, chain, quoted, slots))
    if rng.random() < 0.5:
        text = text.replace("\n", "\r\n")
    return _stray_space(rng, text)


def _html(rng, own, chain, quoted, slots) -> str:
    kind = rng.choice(["gmail", "outlook", "br"])
    if kind == "outlook":
        # Outlook: one MsoNormal paragraph per line, its own quoting (a header block, no "> ")
        lines = _thread(rng, own, chain, quoted, slots) if chain else own.split("\n")
        paragraphs = "".join(f"<p class=MsoNormal>{_escape(rng, line) or '&nbsp;'}<o:p></o:p></p>" for line in lines)
        return ("<html><head><meta http-equiv=Content-Type content=\"text/html; charset=utf-8\">"
                "<style><!-- p.MsoNormal {margin:0cm; font-size:11.0pt; font-family:\"Calibri\",sans-serif;} --></style>"
                f"</head><body lang=EN-GB><div class=WordSection1>{paragraphs}</div></body></html>")
    mine = _html_lines(rng, own, kind)
    if chain is None:
        return mine
    if kind == "gmail":
        header = _header(rng, slots, quoted)[0]
        if header.startswith("On "):
            return (f"{mine}<br><div class=\"gmail_quote\"><div dir=\"ltr\" class=\"gmail_attr\">{_escape(rng, header)}"
                    "<br></div><blockquote class=\"gmail_quote\" style=\"margin:0px 0px 0px 0.8ex;border-left:1px solid "
                    f"rgb(204,204,204);padding-left:1ex\">{_html_lines(rng, chain, 'gmail')}</blockquote></div>")
    quoted_lines = _thread(rng, "", chain, quoted, slots)[1:]
    return f"{mine}<br>" + "<br>\n".join(_escape(rng, line) for line in quoted_lines)


def _html_lines(rng: random.Random, text: str, kind: str) -> str:
    paragraphs = [p.split("\n") for p in text.split("\n\n")]
    if kind == "gmail":
        return "<div dir=\"ltr\">" + "".join(
            "<div>" + "<br>".join(_escape(rng, line) for line in p) + "</div><div><br></div>" for p in paragraphs) + "</div>"
    breaks = "<br />" if rng.random() < 0.5 else "<br>"
    sep = breaks * 2 + ("\\n" if rng.random() < 0.15 else "")
    return sep.join(breaks.join(_escape(rng, line) for line in p) for p in paragraphs)


def _escape(rng: random.Random, line: str) -> str:
    out = html.escape(line, quote=True).replace("&#x27;", "&#39;")
    if rng.random() < 0.2:
        out = out.replace(". ", ".&nbsp; ")
    return out


def _stray_space(rng: random.Random, text: str) -> str:
    if rng.random() < 0.3:
        text = text.replace(". ", ".  ")
    if rng.random() < 0.2:
        text = "  " + text + "   "
    return text


def _subject(rng: random.Random, message: str, slots: dict) -> str:
    if rng.random() < 0.45:
        return rng.choice(GENERIC_SUBJECTS).format_map(slots)
    lines = [line for line in message.split("\n") if line.strip()]
    first = lines[1] if len(lines) > 1 and len(lines[0].split()) <= 4 else lines[0]   # past "Hi there,"
    words = first.split()[:rng.randint(5, 9)]
    subject = " ".join(words).rstrip(".,!?") + ("..." if len(first.split()) > len(words) else "")
    return ("Re: " if rng.random() < 0.2 else "") + subject


if __name__ == "__main__":
    main()
