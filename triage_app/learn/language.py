"""Whether a file's tickets are mostly not English: the bundled sentence encoder (all-MiniLM-L6-v2)
was trained on English, so such a file is better embedded by a multilingual one.

A ticket reads as English when a good share of its words are English stop words (scikit-learn's
list): "the", "and", "my", "is" make up about half of an English ticket's words and a few percent of a
French, Spanish or German one's, so the rule needs no language model and no dictionary. Tickets of
too few words to tell are left out; a file with none to tell is not flagged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

MULTILINGUAL = "paraphrase-multilingual-MiniLM-L12-v2"
SAMPLE = 200            # tickets read, spread over the file: enough to tell, cheap at any size
MIN_WORDS = 4           # fewer words than this cannot tell a language
ENGLISH_SHARE = 0.2     # a ticket whose stop-word share reaches this reads as English

# words of two letters or more, letters only: numbers and ids say nothing of a language, and one-letter
# words ("a", "e", "o") are stop words of English and of Portuguese alike
_WORD = re.compile(r"[^\W\d_]{2,}")


def reads_as_english(text: str) -> bool | None:
    """True or False for a ticket of enough words; None when it is too short to tell."""
    words = _WORD.findall(text.lower())
    if len(words) < MIN_WORDS:
        return None
    return sum(word in ENGLISH_STOP_WORDS for word in words) / len(words) >= ENGLISH_SHARE


def mostly_not_english(texts: Sequence[str], sample: int = SAMPLE) -> bool:
    """More than half of the tickets that can tell (from an even spread of up to `sample`) are not English."""
    n = min(sample, len(texts))
    spread = [texts[k * len(texts) // n] for k in range(n)]
    told = [english for english in map(reads_as_english, spread) if english is not None]
    return bool(told) and sum(told) < len(told) / 2


def encoder_advice(texts: Sequence[str]) -> str:
    """The line a file mostly not in English gets where the bundled encoder (English) reads it, "" otherwise."""
    if not texts or not mostly_not_english(texts):
        return ""
    return (f"These tickets are mostly not in English: a multilingual encoder ({MULTILINGUAL}) would read them "
            f"better than the bundled one.")
