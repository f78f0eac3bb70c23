"""Device and dtype choice: 'auto' follows the hardware, whichever the scoring method."""

from __future__ import annotations

import pytest
import torch

from triage_app.engine import device
from triage_app.engine.verify import tolerance


@pytest.mark.parametrize("where, expected", [("mps", torch.float16), ("cuda", torch.float32)])
def test_auto_dtype_follows_the_device(where, expected):
    dtype, reason = device.auto_dtype(where)
    assert dtype == expected and reason


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("method", ["direct", "channel"])
def test_auto_never_chooses_bfloat16_whose_rounding_flips_labels(monkeypatch, native, method):
    """A CPU with native bfloat16 flipped direct labels that were not ties (issue 13): float32 on CPU."""
    monkeypatch.setattr(device, "cpu_has_native_bf16", lambda: native)
    placement = device.choose("cpu", "auto")
    assert placement.dtype == torch.float32
    assert ("flips labels" in placement.reason) == native
    # float32's fast path differs from the reference by rounding only: a near-tie is a real tie
    assert tolerance(placement.dtype_name, method) == 1e-3


def test_explicit_choices_are_kept(monkeypatch):
    monkeypatch.setattr(device, "cpu_has_native_bf16", lambda: True)
    assert device.choose("cpu", "bfloat16").dtype == torch.bfloat16     # the user's choice
    assert device.choose("cpu", "auto").dtype == torch.float32
    with pytest.raises(ValueError, match="unknown dtype"):
        device.choose("cpu", "float8")


def test_channel_scores_get_the_wider_tolerance_their_sums_need():
    assert tolerance("float32", "channel") == tolerance("float32", "direct") == 1e-3
    for dtype in ("float16", "bfloat16"):
        assert tolerance(dtype, "channel") > tolerance(dtype, "direct")
