"""Classifier.fingerprint, pinned: the results store keys every stored label on it.

These strings are what the code gave before scoring methods became classes of their own. An
existing results database resumes only while they stay exactly the same, so a change here is a
change of every user's stored results: it needs a reason, not an updated constant.
"""

import pytest

from triage_app.engine.classifier import Classifier
from triage_app.engine.labels import Example, Label, LabelSet
from triage_app.engine.config import Scoring

LABEL_SETS = {
    "default": LabelSet.default(),
    "names": LabelSet.from_names(["billing", "technical", "account", "refund"]),
    "examples": LabelSet((Label("billing", "money"), Label("tech", alias="technical")),
                         (Example("I was charged twice", "billing"), Example("The app crashes", "tech"))),
}
SCORINGS = {
    "channel": Scoring(),
    "direct": Scoring(method="direct"),
    "direct-mean-raw": Scoring("mean", False, 0.5, "direct"),
    "channel-first-t2": Scoring("first", True, 2.0, "channel"),
}
# with the bundled SmolLM2-135M's tokenizer and chat template
PINNED = {
    ("default", "channel"): "2a3a371529c2efc0",
    ("default", "direct"): "75ddf87f32ec75cc",
    ("default", "direct-mean-raw"): "8aacad51021577d0",
    ("default", "channel-first-t2"): "245d07237fb140eb",
    ("names", "channel"): "5aca3d019da03ac6",
    ("names", "direct"): "d0089d08bcc2c592",
    ("names", "direct-mean-raw"): "98e6e802b1ad2eea",
    ("names", "channel-first-t2"): "6e993a8408a4cda8",
    ("examples", "channel"): "6bee9cc88b40a22f",
    ("examples", "direct"): "29a2d69570a6a6ea",
    ("examples", "direct-mean-raw"): "b575375714d23366",
    ("examples", "channel-first-t2"): "b96db2baccf6285d",
}


@pytest.mark.parametrize("label_set, scoring", list(PINNED))
def test_fingerprints_of_old_databases_still_match(smollm2, label_set, scoring):
    classifier = Classifier(smollm2, LABEL_SETS[label_set], scoring=SCORINGS[scoring])
    assert classifier.fingerprint == PINNED[label_set, scoring]


@pytest.mark.parametrize("method, pinned", [("direct", "7fe979281a75c8fb"), ("channel", "0dd196d8b41932eb")])
def test_the_ticket_limit_is_in_the_fingerprint_as_before(smollm2, method, pinned):
    classifier = Classifier(smollm2, LabelSet.default(), max_ticket_tokens=200, scoring=Scoring(method=method))
    assert classifier.fingerprint == pinned


# channel keeps each label's raw scores under its own key: pinned the same way, for the same reason
LABEL_PINNED = {
    "default": ["2288888ba7c3f71a", "d7b3394c72df46ec", "f16631af01657d99"],
    "examples": ["28cc60a1b7a3850b", "7a7cf7da7cae068a"],
}


@pytest.mark.parametrize("label_set", list(LABEL_PINNED))
def test_each_channel_labels_fingerprint_is_pinned_and_no_scoring_choice_changes_it(smollm2, label_set):
    prints = {name: Classifier(smollm2, LABEL_SETS[label_set], scoring=SCORINGS[name]).label_fingerprints
              for name in ("channel", "channel-first-t2")}
    assert prints["channel"] == prints["channel-first-t2"] == LABEL_PINNED[label_set]   # raw scores: before scoring


def test_direct_has_no_label_fingerprints_it_keeps_the_whole_sets_key(smollm2):
    assert Classifier(smollm2, LabelSet.default(), scoring=SCORINGS["direct"]).label_fingerprints is None


# Where no limit is set (RunSettings' default), each method reads as it chooses: channel a ticket's first
# 128 tokens, every other method to DEFAULT_MAX_TICKET_TOKENS, as all did before. Their keys, pinned above,
# stay what a database holds: the direct methods' unchanged, channel's for every ticket 128 does not cut.
CHANNEL_128_PINNED = {
    "default": ["ee31d5fa64a1d164", "57256ec6344b8738", "8dcb257e03ed311a"],
}


@pytest.mark.parametrize("method", ["direct", "direct-after", "direct-fields"])
def test_no_limit_set_leaves_the_direct_methods_keys_as_they_were(smollm2, method):
    from triage_app.engine.build import classifier_for
    from triage_app.engine.config import RunSettings

    scoring = Scoring(method=method)
    own = classifier_for(smollm2, LabelSet.default(), RunSettings(scoring=scoring))
    assert own.fingerprint == Classifier(smollm2, LabelSet.default(), scoring=scoring).fingerprint
    if method == "direct":
        assert own.fingerprint == PINNED["default", "direct"]


@pytest.mark.parametrize("label_set", list(LABEL_PINNED))
def test_channels_own_limit_keeps_a_short_tickets_keys_and_pins_a_cut_ones(smollm2, label_set):
    from triage_app.engine.build import classifier_for
    from triage_app.engine.config import RunSettings
    from triage_app.files.clean import TextCleaning
    from triage_app.files.store import text_hash
    from triage_app.run.job import label_keys_of

    own = classifier_for(smollm2, LABEL_SETS[label_set], RunSettings())
    short, long = "Refund my last payment", "The invoice export times out every time I run it. " * 40
    keys = label_keys_of(own, {text_hash(short): short, text_hash(long): long})
    cleaning = TextCleaning().fingerprint
    assert keys.of(text_hash(short)) == keys.whole
    assert [k.prompt_hash for k in keys.whole] == [f"{p}|{cleaning}" for p in LABEL_PINNED[label_set]]
    assert keys.of(text_hash(long)) == keys.cut
    if label_set in CHANNEL_128_PINNED:
        assert own.label_fingerprints == CHANNEL_128_PINNED[label_set]
