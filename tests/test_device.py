"""Device and dtype choice: 'auto' follows the hardware and the scoring method."""

from __future__ import annotations

import pytest
import torch

from triage_app.engine import device
from triage_app.engine.verify import tolerance


@pytest.mark.parametrize("where, method, expected", [
    ("mps", "channel", torch.float16), ("mps", "direct", torch.float16),
    ("cuda", "direct", torch.bfloat16), ("cuda", "channel", torch.float32),
])
def test_auto_dtype_never_sums_a_channel_score_in_bfloat16(where, method, expected):
    dtype, reason = device.auto_dtype(where, method)
    assert dtype == expected and reason


def test_a_cpu_with_native_bfloat16_uses_it_for_direct_scoring_only(monkeypatch):
    monkeypatch.setattr(device, "cpu_has_native_bf16", lambda: True)
    assert device.auto_dtype("cpu", "direct")[0] == torch.bfloat16
    assert device.auto_dtype("cpu", "channel")[0] == torch.float32
    monkeypatch.setattr(device, "cpu_has_native_bf16", lambda: False)
    assert device.auto_dtype("cpu", "direct")[0] == device.auto_dtype("cpu", "channel")[0] == torch.float32


def test_explicit_choices_are_kept_and_the_default_method_decides_auto(monkeypatch):
    monkeypatch.setattr(device, "cpu_has_native_bf16", lambda: True)
    assert device.choose("cpu", "bfloat16", "channel").dtype == torch.bfloat16     # the user's choice
    assert device.choose("cpu", "auto").dtype == torch.float32                      # channel, the default
    assert "channel scoring" in device.choose("cpu", "auto").reason
    with pytest.raises(ValueError, match="unknown dtype"):
        device.choose("cpu", "float8")


def test_channel_scores_get_the_wider_tolerance_their_sums_need():
    assert tolerance("float32", "channel") == tolerance("float32", "direct") == 1e-3
    for dtype in ("float16", "bfloat16"):
        assert tolerance(dtype, "channel") > tolerance(dtype, "direct")
