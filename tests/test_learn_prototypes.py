"""Each label's prototype (its name, description and examples, embedded) as one more example of the
learned part, taken where the person's labels say by cross-validation that it helps (issue 34)."""

from __future__ import annotations

import numpy as np
import pytest
from encoder_helpers import bundled_encoder
from scipy.special import log_softmax

from triage_app.learn import MODEL, TicketFeatures, learn, similarity_scores, zero_shot

NAMES = ["card delivery", "change PIN", "refund request", "exchange rate"]
# real wording, few words shared with the names; the first three of each label are the person's labels
MESSAGES = [
    ["my new card still has not come", "how long until the card arrives in the post",
     "the card you sent me never showed up", "where is the card I ordered last week",
     "still waiting for my card to be delivered", "has my card been posted yet"],
    ["I want to set different digits for my code", "how can I update the number I type at the cash machine",
     "can I pick a new code for my card", "I'd like to choose another four digit number",
     "where do I go to reset my PIN", "I need to change the code on my card"],
    ["give me back what I paid for the broken item", "the shop will not return my money",
     "how do I get my money back for this purchase", "I returned the shoes and want the payment reversed",
     "the seller agreed to pay me back, when will it show", "I need the charge for this order returned"],
    ["what rate do you use to turn pounds into euros", "how much is a dollar worth in your app today",
     "why did I get fewer euros than I expected for my pounds", "is the conversion between currencies fixed",
     "which rate applies when I pay abroad", "how are foreign currencies converted"],
]
TAUGHT = 3


@pytest.fixture(scope="module")
def banking():
    encoder = bundled_encoder()
    texts = [m for label in MESSAGES for m in label]
    gold = np.repeat(np.arange(len(NAMES)), len(MESSAGES[0]))
    taught = {r: NAMES[gold[r]] for r in range(len(texts)) if r % len(MESSAGES[0]) < TAUGHT}
    x, prototypes = encoder.embed(texts), encoder.embed(NAMES)
    return TicketFeatures(texts, embeddings=x), gold, taught, prototypes, np.full((len(texts), len(NAMES)), -np.log(4))


def test_where_the_names_say_what_the_labels_are_the_learned_part_takes_them(banking):
    features, gold, taught, prototypes, z = banking
    without = learn(features, z, taught, NAMES)
    learned = learn(features, z, taught, NAMES, prototypes=prototypes)
    assert learned.took_prototypes and not without.took_prototypes
    # the cross-validated answers it was chosen on are better calibrated (lower log-loss) with them
    (with_them, targets), (alone, _) = learned.cross_validated, without.cross_validated
    picked = np.arange(len(targets)), targets
    assert -with_them[picked].mean() < -alone[picked].mean()
    rest = np.array(sorted(set(range(len(gold))) - set(taught)))
    assert np.mean(learned.labels[rest] == gold[rest]) >= np.mean(without.labels[rest] == gold[rest])


def test_prototypes_that_say_the_wrong_label_are_left_out(banking):
    features, gold, taught, prototypes, z = banking
    wrong = np.roll(prototypes, 1, axis=0)           # each label's vector is another label's name
    learned = learn(features, z, taught, NAMES, prototypes=wrong)
    without = learn(features, z, taught, NAMES)
    assert not learned.took_prototypes
    assert np.array_equal(learned.scores, without.scores)


def test_no_labels_with_prototypes_is_still_the_model_or_the_zero_shot_rule(banking):
    features, gold, _, prototypes, _ = banking
    z = log_softmax(np.random.default_rng(0).normal(size=(features.n, len(NAMES))), axis=1)
    learned = learn(features, z, {}, NAMES, prototypes=prototypes)
    assert np.array_equal(learned.scores, z) and set(learned.sources) == {MODEL}
    assert not learned.took_prototypes and learned.text_model is None
    s = similarity_scores(features.matrix, prototypes)
    assert np.array_equal(learn(features, z, {}, NAMES, similarity=s, prototypes=prototypes).scores, zero_shot(z, s))


def test_prototypes_are_ignored_on_words_and_refused_in_the_wrong_shape(banking):
    features, gold, taught, prototypes, z = banking
    words = TicketFeatures([m for label in MESSAGES for m in label])
    assert np.array_equal(learn(words, z, taught, NAMES, prototypes=prototypes).scores,
                          learn(words, z, taught, NAMES).scores)
    with pytest.raises(ValueError, match=r"prototypes are \(3, 384\)"):
        learn(features, z, taught, NAMES, prototypes=prototypes[:3])
