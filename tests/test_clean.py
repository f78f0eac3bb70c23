"""Ticket text cleaning: each step alone, each switch, the conservative cuts, and properties."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import clean_reference
from triage_app.files.clean import STEPS, TextCleaning, _cut_signature, _strip_html, clean, clean_texts

ONLY = {name: TextCleaning.from_steps([name]) for name in STEPS}
# no example database: the suite must leave no files behind
PROPERTY = settings(max_examples=100, deadline=None, database=None)


# each step on its own ------------------------------------------------------------------------

def test_html_entities_are_decoded():
    assert clean("Tom &amp; Jerry&#39;s&nbsp;order &eacute;t&eacute;", ONLY["html"]) == "Tom & Jerry's\xa0order été"


def test_html_breaks_become_lines_and_other_tags_go():
    text = "<div><p>Hello,</p><p>my <b>parcel</b> is <a href='x'>lost</a>.<br>Order 12</p><ul><li>one</li><li>two</li></ul></div>"
    assert clean(text) == "Hello,\n\nmy parcel is lost.\nOrder 12\n\none\ntwo"


def test_script_style_and_head_are_dropped_with_their_content():
    text = "<html><head><title>Ticket</title><style>p {color: red}</style></head><body><p>Refund please</p>" \
           "<script>track()</script><!-- tracking pixel --></body></html>"
    assert clean(text) == "Refund please"


def test_malformed_and_nested_html_still_gives_the_text():
    assert clean("<div><p>unclosed <b>bold <i>both</div> after") == "unclosed bold both\n\nafter"
    assert clean("<p class=MsoNormal>Outlook<o:p></o:p></p><p>&nbsp;</p><p>second</p>") == "Outlook\n\nsecond"


def test_plain_text_with_angle_brackets_survives():
    for text in ["if a < b and c > d", "x<5 and y>3", "<3 love it", "I got <nothing> back", "AT&T; fish & chips"]:
        assert clean(text) == text


def test_a_real_tag_in_text_with_a_comparison_keeps_the_comparison():
    assert clean("total<5 items<br>please check") == "total<5 items\nplease check"


def test_an_escaped_tag_is_decoded_once_and_kept():
    # the customer typed "<b>" into an HTML mail; it reaches the model as typed
    assert clean("use &lt;b&gt; for bold<br>in the editor") == "use <b> for bold\nin the editor"


def test_literal_escapes_become_line_breaks_and_tabs():
    assert clean("Hi,\\n\\nMy order\\tis late.\\r\\nThanks", ONLY["escapes"]) == "Hi,\n\nMy order\tis late.\nThanks"


def test_real_line_breaks_mean_a_backslash_n_is_the_customers_own():
    text = "In Python I print('a\\nb')\nand it fails"
    assert clean(text, ONLY["escapes"]) == text


def test_windows_paths_keep_their_backslashes():
    text = "Saved to C:\\new\\test.csv and\\nthen \\\\server\\temp broke"
    assert clean(text, ONLY["escapes"]) == "Saved to C:\\new\\test.csv and\nthen \\\\server\\temp broke"


def test_whitespace_runs_collapse():
    text = "  Hello   there,\t\tagent \xa0 \n\n\n\n\nline two   \r\n\r\n\r\n\u200bend  "
    assert clean(text, ONLY["whitespace"]) == "Hello there, agent\n\nline two\n\nend"


# replies ---------------------------------------------------------------------------------------

REQUEST = "The box arrived crushed today and the desk lamp inside is broken, can you send a replacement?"
CUT = TextCleaning(replies=True)


@pytest.mark.parametrize("chain", [
    "On Tue, 3 Mar 2026 at 10:14, Jess <help@shop.example> wrote:\n> Hi Megan,\n> thanks for your message.",
    "On Tue, 3 Mar 2026 at 10:14, Jess <help@shop.example>\nwrote:\n\n> Thanks for your message.",
    "-----Original Message-----\nFrom: Shop Support\nSent: 3 March 2026 10:14\nSubject: Re: order\n\nHi Megan,",
    "________________________________\nFrom: Shop Support <help@shop.example>\nSent: Tuesday, March 3, 2026\nTo: Megan\n\nHi",
    "##- Please type your reply above this line -##\n\nJess (Shop Support)\n\nThanks for your message.",
])
def test_a_quoted_reply_chain_is_cut(chain):
    assert clean(f"Hi,\n\n{REQUEST}\n\n{chain}", CUT) == f"Hi,\n\n{REQUEST}"


def test_quoted_lines_go_and_the_answers_between_them_stay():
    text = f"{REQUEST}\n> Have you checked with your neighbours?\nYes, none of them has it, I asked all of them today."
    assert clean(text, CUT) == f"{REQUEST}\nYes, none of them has it, I asked all of them today."


def test_a_short_follow_up_keeps_the_quote_that_says_what_it_is_about():
    text = f"Any update on this??\n\nOn Mon, 2 Mar 2026, Megan Harris <megan@example.com> wrote:\n> {REQUEST}"
    assert clean(text, CUT) == text


def test_a_forward_keeps_the_forwarded_message():
    text = f"Please help me with the message below, it is from my husband and he is very worried about it.\n\n" \
           f"---------- Forwarded message ---------\nFrom: Raj Kaur <raj@example.com>\nDate: Mon, 2 Mar 2026\n\n{REQUEST}"
    assert clean(text, CUT) == text


def test_replies_are_kept_by_default():
    text = f"{REQUEST}\n\nOn Tue, 3 Mar 2026, Jess wrote:\n> Thanks for your message."
    assert clean(text) == text


# signatures ------------------------------------------------------------------------------------

@pytest.mark.parametrize("signature", [
    "-- \nMegan Harris\nOperations | Harris Ltd\n+44 113 496 0000",
    "--\nMegan",
    "Sent from my iPhone",
    "Get Outlook for Android",
    "Kind regards,\nMegan Harris",
    "Thanks,\nMegan\nHarris Ltd",
    "Cheers Megan",
    "Best regards,\nMegan Harris\n\nSent from my iPhone",
    "Thanks,\nMegan\n-- \nMegan Harris | Harris Ltd",
])
def test_a_signature_is_cut(signature):
    assert clean(f"{REQUEST}\n\n{signature}", ONLY["signatures"]).rstrip() == REQUEST


def test_a_closing_followed_by_a_sentence_is_kept():
    text = f"{REQUEST}\n\nThanks,\nI will wait for your answer before I order again."
    assert clean(text) == text


def test_a_long_text_under_a_double_dash_is_kept():
    text = "Step one worked\n--\n" + "\n".join(f"step {n} failed with an error" for n in range(20))
    assert clean(text) == text


def test_a_ticket_that_is_only_a_signature_or_a_quote_is_kept_whole():
    assert clean("Thanks,\nMegan") == "Thanks,\nMegan"
    assert clean("Sent from my iPhone") == "Sent from my iPhone"
    assert clean("> my parcel is lost", CUT) == "> my parcel is lost"
    assert clean("On Mon, Megan wrote:\n> my parcel is lost", CUT) == "On Mon, Megan wrote:\n> my parcel is lost"


def test_a_ticket_with_words_never_comes_out_blank():
    assert clean("<img src='photo.jpg'>") == "<img src='photo.jpg'>"
    assert clean("  <br><br>  ") == "<br><br>"
    assert clean("   ") == ""


# switches and the fingerprint ----------------------------------------------------------------

EXPORT = ("Hi,\\n\\nOrder #12 &amp; #13 are <b>late</b>.<br>   Please   check.\\n\\n"
          "Kind regards,<br>Megan<br><br>On Mon, Jess wrote:<br>&gt; Thanks for your message.")


def test_all_steps_together():
    everything = TextCleaning.from_steps(STEPS)
    assert clean(EXPORT, everything) == "Hi,\n\nOrder #12 & #13 are late.\nPlease check."


@pytest.mark.parametrize("step", list(STEPS))
def test_each_switch_turns_its_step_off(step):
    everything = TextCleaning.from_steps(STEPS)
    assert clean(EXPORT, everything.without(step)) != clean(EXPORT, everything)


def test_with_every_step_off_the_text_is_as_exported():
    assert clean(EXPORT, TextCleaning.off()) == EXPORT


def test_the_fingerprint_names_the_steps_and_changes_with_every_switch():
    default = TextCleaning()
    assert default.fingerprint == "clean1:escapes+html+signatures+whitespace"
    assert TextCleaning.off().fingerprint == "clean1:off"
    prints = {replace(default, **{step: not getattr(default, step)}).fingerprint for step in STEPS}
    assert len(prints | {default.fingerprint}) == len(STEPS) + 1


def test_settings_round_trip_through_step_names():
    cleaning = TextCleaning(html=False, replies=True)
    assert TextCleaning.from_steps(cleaning.steps) == cleaning


def test_bad_settings_fail_at_construction():
    with pytest.raises(TypeError, match="html"):
        TextCleaning(html="false")
    with pytest.raises(ValueError, match="unknown cleaning step"):
        TextCleaning.from_steps(["html", "emoji"])
    with pytest.raises(ValueError, match="unknown cleaning step"):
        TextCleaning().without("htm")


def test_clean_texts_returns_a_new_list_and_leaves_the_originals():
    originals = ["a&amp;b", "plain", "a&amp;b"]
    cleaned = clean_texts(originals)
    assert cleaned == ["a&b", "plain", "a&b"]
    assert originals == ["a&amp;b", "plain", "a&amp;b"]


def test_plain_text_never_reaches_the_html_parser(monkeypatch):
    # the parser costs far more than the other steps together (docs/quality/cleaning_smollm2.txt)
    def refuse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr("triage_app.files.clean.BeautifulSoup", refuse)
    plain = ["My order is late, can you check?", "fish & chips; a < b", "&amp; only entities &#39;", "AT&T"]
    assert clean_texts(plain) == ["My order is late, can you check?", "fish & chips; a < b", "& only entities '", "AT&T"]
    with pytest.raises(AssertionError, match="parsed"):
        clean("<p>tags</p>")


# properties ----------------------------------------------------------------------------------

FRAGMENTS = ["\\n", "\\n\\n", "\\t", "\\r\\n", "\n", "\n\n\n", "\r\n", " ", "   ", "\t", "\xa0", "> ", "-- ", "--",
             "<br>", "<p>", "</p>", "<div>", "</div>", "<b>", "<li>", "&amp;", "&nbsp;", "&#39;", "a < b", "x>3",
             "On Mon, Jess wrote:", "wrote:", "On ", "-----Original Message-----", "From: Jess", "Sent: Monday",
             "Kind regards,", "Thanks,", "Cheers", "Megan", "Sent from my iPhone", "C:\\new", "order", "parcel",
             "is late.", "refund?", "_________"]
# texts made of export noise; none decodes into markup ("&lt;b&gt;"), where a second pass differs by design
noisy = st.lists(st.sampled_from(FRAGMENTS) | st.text(alphabet="abc XY.,!?", max_size=8), max_size=30).map("".join)
cleanings = st.builds(TextCleaning, *(st.booleans() for _ in STEPS))


@PROPERTY
@given(st.text(), cleanings)
def test_never_raises_never_grows_and_never_blanks(text, cleaning):
    out = clean(text, cleaning)
    assert len(out) <= len(text)
    assert bool(out.strip()) == bool(text.strip())


@PROPERTY
@given(st.text(alphabet=st.sampled_from("<>&;#/!-pbrdivlixamt1 \n\\\"='")), cleanings)
def test_markup_soup_never_raises_never_grows(text, cleaning):
    out = clean(text, cleaning)
    assert len(out) <= len(text)
    assert bool(out.strip()) == bool(text.strip())


@PROPERTY
@given(noisy, cleanings)
def test_cleaning_twice_changes_nothing(text, cleaning):
    once = clean(text, cleaning)
    assert clean(once, cleaning) == once


@PROPERTY
@given(st.text(alphabet=st.characters(blacklist_characters="<&\\", blacklist_categories=("Cs",))))
def test_plain_text_loses_only_blank_space(text):
    words = text.replace("\u200b", "").replace("\ufeff", "").split()
    assert clean(text, TextCleaning(signatures=False)).split() == words or not words


def test_a_signature_above_a_quoted_message_leaves_the_quote_to_the_replies_step():
    text = "Any update?\n-- \nMegan Harris\n\nOn Mon, 2 Mar 2026, Megan Harris wrote:\n> my parcel never came"
    as_typed = text.replace("-- \n", "--\n")   # less the delimiter's trailing space
    assert clean(text) == as_typed
    assert clean(text, CUT) == as_typed   # a stub above the quote: kept whole


# the same text as before, in linear time (docs/bench/cleaning_linear.txt) -------------------------

MARKUP = ["<b>", "</b>", "<p>", "</p>", "<div>", "</div>", "<li>", "</li>", "<ul>", "<tr>", "<td>", "</td>", "<th>",
          "<br>", "<br/>", "</br>", "<h1>", "<hr>", "<table>", "<span>", "<script>", "</script>", "<style>",
          "</style>", "<head>", "</head>", "<title>", "<template>", "<rt>", "<!-- c -->", "<!doctype html>",
          "<![CDATA[d]]>", "<?pi x?>", "&amp;", "&nbsp;", "x", "y z", " ", "\n", "a < b"]
SIGNATURE_LINES = ["--", "-- ", "", " ", "Thanks,", "Kind regards,", "Thanks, Megan", "Cheers Raj Kaur", "Megan",
                   "Support Lead", "It broke again.", "> quoted", "On Mon, Jess wrote:", "From: Jess",
                   "Sent: Monday", "Sent from my iPhone", "my parcel is late", "\u200b--"]


@PROPERTY
@given(st.lists(st.sampled_from(MARKUP), max_size=40).map("".join))
def test_html_gives_the_text_it_gave_before(text):
    assert _strip_html(text) == clean_reference.strip_html(text)


@PROPERTY
@given(st.lists(st.sampled_from(SIGNATURE_LINES), max_size=30).map("\n".join))
@example("--\nFrom: Jess\n--\nSent: Monday")     # a header under a cut signature no longer opens a chain
def test_signatures_are_cut_where_they_were_before(text):
    assert _cut_signature(text) == clean_reference.cut_signature(text)


def test_a_text_and_a_comment_before_a_line_tag_still_break_it():
    assert clean("x<script>s</script><div>a</div><!--c--><div>b</div>", ONLY["html"]) == "x\na\n\nb\n"


def seconds(text: str) -> float:
    started = time.perf_counter()
    clean(text)
    return time.perf_counter() - started


GROWING = {"unclosed": lambda n: "<b>x" * n, "siblings": lambda n: "<div>x</div>" * n,
           "breaks": lambda n: "x<br>" * n, "dashes": lambda n: "Hello there\n" + "--\n" * n}


# far above the linear times, far below the quadratic ones, so that a busy machine still passes
@pytest.mark.parametrize("shape, n", [("unclosed", 5_000), ("siblings", 20_000), ("breaks", 20_000),
                                      ("dashes", 10_000)])
def test_thousands_of_tags_or_dashes_clean_in_moments(shape, n):
    assert seconds(GROWING[shape](n)) < 3


@pytest.mark.slow
@pytest.mark.parametrize("shape, n", [("unclosed", 20_000), ("siblings", 20_000), ("breaks", 20_000),
                                      ("dashes", 200_000)])
def test_twice_the_input_takes_about_twice_the_time(shape, n):
    make = GROWING[shape]
    seconds(make(n // 10))  # warm up
    small, large = min(seconds(make(n)) for _ in range(3)), min(seconds(make(2 * n)) for _ in range(3))
    print(f"{shape}: n={n:,} {small:.3f} s, 2n={2 * n:,} {large:.3f} s, ratio {large / small:.2f}")
    assert large / small < 3
