"""A run's settings: plain values without torch, each failing where it is made."""

from __future__ import annotations

import subprocess
import sys

import pytest

from triage_app.engine import config
from triage_app.engine.config import ModelChoice, RunConfig, RunSettings, Scoring


def test_the_settings_module_needs_neither_torch_nor_transformers():
    """The window builds these on its own thread; importing them must not load the tensor side."""
    code = ("import sys; import triage_app.engine.config as c; c.RunSettings(); "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("make, message", [
    (lambda: Scoring(method="generate"), "method"),
    (lambda: Scoring(length="max"), "length"),
    (lambda: Scoring(temperature=0), "temperature"),
    (lambda: RunConfig(batch_size=0), "batch size"),
    (lambda: RunConfig(token_budget=0), "token budget"),
    (lambda: ModelChoice(""), "needs a model"),
    (lambda: ModelChoice(device="tpu"), "unknown device 'tpu': use auto, cpu, mps, cuda"),
    (lambda: ModelChoice(dtype="float8"), "unknown dtype"),
    (lambda: RunSettings(max_ticket_tokens=-1), "negative"),
    (lambda: RunSettings(max_ticket_tokens="128"), "number of tokens or 'method'"),
])
def test_a_bad_value_fails_where_it_is_made(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_defaults_are_the_commands():
    settings = RunSettings()
    assert settings.model == ModelChoice("qwen2.5-0.5b", "auto", "auto", False)
    assert settings.scoring.method == config.DEFAULT_METHOD == "channel"
    assert (settings.run.batch_size, settings.run.token_budget, settings.max_ticket_tokens) == (32, 1024, "method")


def test_each_method_reads_its_own_ticket_tokens_where_no_limit_is_set():
    # channel's head is a measured choice (docs/quality/channel_tokens.md); the others were not measured
    assert {m: config.own_ticket_tokens(m) for m in config.METHODS} == {
        "channel": 128, "direct": 1024, "direct-after": 1024, "direct-fields": 1024}
    assert config.DEFAULT_MAX_TICKET_TOKENS == 1024   # the limit stored results are keyed on: never changes


def test_every_method_name_resolves_to_a_scoring_method_class():
    from triage_app.engine.methods.direct_after import DirectAfterMethod
    from triage_app.engine.methods.channel import ChannelMethod
    from triage_app.engine.methods.direct import DirectMethod
    from triage_app.engine.methods.direct_fields import DirectFieldsMethod

    from triage_app.engine.methods.registry import method_class

    assert config.METHODS == ("channel", "direct", "direct-after", "direct-fields")
    assert [method_class(name) for name in config.METHODS] == [ChannelMethod, DirectMethod, DirectAfterMethod,
                                                                DirectFieldsMethod]
    for name in config.METHODS:
        cls = method_class(name)
        for part in ("prefix_ids", "encode", "full_length", "reference_length", "fast_batch", "reference",
                     "fingerprint_parts", "label_parts", "preview", "TOLERANCE"):
            assert hasattr(cls, part), f"{name} lacks {part}"


def test_what_the_window_knows_of_a_method_is_what_its_class_does():
    """METHOD_FACTS (torch-free, for the window) agree with the classes: a method scores each label
    on a prompt of its own exactly when it can score some labels alone (PerLabelMethod)."""
    from triage_app.engine.config import METHOD_FACTS, METHODS
    from triage_app.engine.methods.registry import METHOD_CLASSES, method_class

    assert set(METHOD_FACTS) == set(METHODS) == set(METHOD_CLASSES)
    for name, facts in METHOD_FACTS.items():
        cls = method_class(name)
        assert hasattr(cls, "only") == facts.per_label, name
        assert facts.edit_note
