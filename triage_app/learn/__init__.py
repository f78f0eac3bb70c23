"""Learning from the labels a person gives: no Qt, no torch (numpy and scikit-learn).

features: every ticket's TF-IDF (or its sentence embedding), fitted once per file. teaching: the
person's labels checked against the label set. similarity: the encoder's zero-shot scores, each
ticket's cosine to what each label says. neighbours: each ticket's nearest in the file, the learned
part's answers smoothed over them where cross-validation says so. model: the learned part, weighed
against the language model's stored scores and the similarity (weights: the weighing, fitted by
cross-validation). queue: which ticket to label next. none_of_these: the threshold under which a ticket fits no label. The learning
curve, which measures all this, is quality.curve: learn never imports quality.
"""

from triage_app.learn.features import TicketFeatures
from triage_app.learn.model import LEARNED, MODEL, PERSON, LearnConfig, Learned, learn
from triage_app.learn.none_of_these import NONE_OF_THESE, NoneOfThese, fit_none_of_these, label_named_so
from triage_app.learn.queue import next_to_label
from triage_app.learn.similarity import LabelSimilarity, label_texts, label_vectors, similarity_scores, zero_shot
from triage_app.learn.teaching import ColumnLabels, Teaching, labels_from_column

__all__ = ["ColumnLabels", "LEARNED", "LearnConfig", "Learned", "MODEL", "NONE_OF_THESE", "NoneOfThese", "PERSON",
           "Teaching", "fit_none_of_these", "label_named_so",
           "LabelSimilarity", "TicketFeatures", "label_texts", "label_vectors", "labels_from_column", "learn", "next_to_label",
           "similarity_scores", "zero_shot"]
