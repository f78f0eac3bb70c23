"""Pick the device and dtype the engine runs on, and say why."""

from __future__ import annotations

from dataclasses import dataclass

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(frozen=True, slots=True)
class Placement:
    device: str
    dtype: torch.dtype
    reason: str

    @property
    def dtype_name(self) -> str:
        return str(self.dtype).removeprefix("torch.")


def cpu_has_native_bf16() -> bool:
    # oneDNN reports bf16 only where the CPU has the instructions (AVX512-BF16 / AMX);
    # elsewhere bf16 matmuls fall back to slow emulation (7x slower than fp32 on an AVX2 EPYC).
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
    if device == "mps":
        return torch.float16, "float16 is the fast path on Apple GPUs"
    if device == "cuda":
        return torch.bfloat16, "bfloat16 is native on CUDA GPUs"
    if cpu_has_native_bf16():
        return torch.bfloat16, "this CPU has native bfloat16 (AVX512-BF16/AMX)"
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
    elif dtype in DTYPES:
        torch_dtype, why_dtype = DTYPES[dtype], "chosen by the user"
    else:
        raise ValueError(f"unknown dtype {dtype!r}: use auto, {', '.join(DTYPES)}")
    return Placement(device, torch_dtype, f"device {device}: {why_device}; dtype: {why_dtype}")


def _check_available(device: str) -> None:
    available = {"cpu": True, "mps": torch.backends.mps.is_available(), "cuda": torch.cuda.is_available()}
    if device not in available:
        raise ValueError(f"unknown device {device!r}: use auto, cpu, mps or cuda")
    if not available[device]:
        raise ValueError(f"device {device!r} is not available on this machine")
