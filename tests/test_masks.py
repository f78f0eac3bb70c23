"""The masks and shapes of real batches: safe on Apple GPUs, checked on the CPU.

On MPS a query row with every key masked comes out NaN (transformers #40858, pytorch #167515),
and every new input shape adds a graph to MPS's cache; so no row the engine builds is fully
masked, and on MPS batch widths are multiples of a fixed step.
"""

from __future__ import annotations

import dataclasses

import pytest

from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig
from triage_app.engine.device import MPS_WIDTH_STEP
from triage_app.engine.labels import LabelSet
from triage_app.engine.forward import decoder_of
from triage_app.engine.config import Scoring
from triage_app.engine.verify import collect

LABELS = LabelSet.from_names(["billing", "technical", "account", "refund"])


def stepped(loaded, step):
    """The same model, with the batch widths MPS gets."""
    return dataclasses.replace(loaded, placement=dataclasses.replace(loaded.placement, width_step=step))


def recorded_masks(classifier, texts, config):
    """Every 4-D mask the run hands the decoder, and the run's predictions."""
    masks = []

    def keep(module, args, kwargs):
        if kwargs.get("attention_mask") is not None:
            masks.append(kwargs["attention_mask"])

    hook = decoder_of(classifier.model).register_forward_pre_hook(keep, with_kwargs=True)
    try:
        predictions = collect(classifier, texts, config)
    finally:
        hook.remove()
    return masks, predictions


@pytest.fixture(scope="module")
def texts(sample_rows):
    # every 25th ticket: short and long ones, and (with this tokenizer) some whose cut is not clean
    return [r["text"] for r in sample_rows[::25]]


@pytest.mark.parametrize("method", ["direct", "channel"])
@pytest.mark.parametrize("prefix_cache", [True, False])
def test_no_query_row_is_fully_masked_and_widths_come_from_a_fixed_set(tiny_qwen, texts, method, prefix_cache):
    classifier = Classifier(stepped(tiny_qwen, MPS_WIDTH_STEP), LABELS, scoring=Scoring(method=method))
    tickets = classifier.method.channel.encode(texts) if hasattr(classifier.method, "channel") else classifier.prompt.encode(texts)
    assert any(not t.uses_prefix for t in tickets)   # the fallback's full prompts are among the batches
    masks, fast = recorded_masks(classifier, texts, RunConfig(prefix_cache=prefix_cache, batch_size=8))
    nodes = 0 if hasattr(classifier.method, "channel") else classifier.method.tree.size
    assert len(masks) > 4
    for mask in masks:                                     # [B, 1, queries, keys]
        assert mask.dim() == 4 and mask.any(dim=-1).all()
        assert (mask.shape[2] - nodes) % MPS_WIDTH_STEP == 0
    # the extra padding changes no prediction
    reference = collect(classifier, texts, RunConfig(reference=True))
    for i, ref in reference.items():
        assert fast[i].label == ref.label
        assert max(abs(a - b) for a, b in zip(ref.scores, fast[i].scores)) < 1e-3


def test_widths_are_exact_off_mps(tiny_qwen, texts):
    classifier = Classifier(tiny_qwen, LABELS, scoring=Scoring(method="direct"))
    masks, _ = recorded_masks(classifier, texts[:16], RunConfig(batch_size=4))
    suffix = [len(t.suffix_ids) for t in classifier.prompt.encode(texts[:16]) if t.uses_prefix]
    assert {m.shape[2] - classifier.method.tree.size for m in masks} & set(suffix)  # some batch pads to its longest row
    assert any((m.shape[2] - classifier.method.tree.size) % MPS_WIDTH_STEP for m in masks)
