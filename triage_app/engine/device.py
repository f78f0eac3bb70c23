"""Pick the device and dtype the engine runs on, and say why."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from triage_app.engine.config import DEVICES, DTYPES

TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
# MPS keeps a compiled graph per input shape: widths rounded up to a multiple of 16 keep that set
# small. Elsewhere the rounding is pure padding (docs/bench/width_step.txt), so widths stay exact.
MPS_WIDTH_STEP = 16


@dataclass(frozen=True, slots=True)
class Placement:
    device: str
    dtype: torch.dtype
    reason: str
    width_step: int = 1   # batch widths are multiples of this (engine/batches.py padded_width)

    @property
    def dtype_name(self) -> str:
        return str(self.dtype).removeprefix("torch.")


def cpu_has_native_bf16() -> bool:
    # oneDNN reports bf16 only where the CPU has the instructions (AVX512-BF16 / AMX);
    # elsewhere bf16 matmuls fall back to slow emulation (docs/bench/cpu_bfloat16.txt).
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def detect_device() -> tuple[str, str]:
    if torch.backends.mps.is_available():
        return "mps", "Apple GPU (MPS) available"
    if torch.cuda.is_available():
        return "cuda", f"CUDA GPU: {torch.cuda.get_device_name(0)}"
    return "cpu", "no MPS or CUDA device found"


def auto_dtype(device: str) -> tuple[torch.dtype, str]:
    """The dtype 'auto' runs in: one whose fast path gives the reference's labels (the law).

    bfloat16 is never chosen, on any device or for either method: its 8-bit mantissa rounds the
    residual stream at every layer, so batching, padding and the prefix cache (which change only
    the order of additions) move scores far enough to flip labels that are not ties; it did on a
    CPU with native bfloat16 (docs/bench/bfloat16_drift.txt). An LM head in float32 does not
    remove it: the hidden states themselves differ. bfloat16 stays an explicit choice
    (--dtype bfloat16), checked by `verify` against its own, wider tolerance. Neither scoring
    method decides: channel's sums drift further than direct's, and direct's too far.
    """
    if device == "mps":
        return torch.float16, "float16 is the fast path on Apple GPUs"
    if device == "cuda" or cpu_has_native_bf16():
        return torch.float32, "bfloat16 rounding flips labels against the reference; float32 keeps them"
    return torch.float32, "this CPU has no native bfloat16, float32 is faster"


def choose(device: str = "auto", dtype: str = "auto") -> Placement:
    """Resolve 'auto' choices; explicit ones are checked, not second-guessed."""
    if device == "auto":
        device, why_device = detect_device()
    else:
        _check_available(device)
        why_device = "chosen by the user"
    if dtype == "auto":
        torch_dtype, why_dtype = auto_dtype(device)
    elif dtype in TORCH_DTYPES:
        torch_dtype, why_dtype = TORCH_DTYPES[dtype], "chosen by the user"
    else:
        raise ValueError(f"unknown dtype {dtype!r}: use {', '.join(DTYPES)}")
    return Placement(device, torch_dtype, f"device {device}: {why_device}; dtype: {why_dtype}",
                     width_step=MPS_WIDTH_STEP if device == "mps" else 1)


def _check_available(device: str) -> None:
    available = {"cpu": True, "mps": torch.backends.mps.is_available(), "cuda": torch.cuda.is_available()}
    if device not in available:
        raise ValueError(f"unknown device {device!r}: use {', '.join(DEVICES[:-1])} or {DEVICES[-1]}")
    if not available[device]:
        raise ValueError(f"device {device!r} is not available on this machine")
