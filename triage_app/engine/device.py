"""Pick the device and dtype the engine runs on, and say why."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from triage_app.engine.config import DEVICES, DTYPES

TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
# A checked low precision (engine/checked.py): the model loads in float32 and runs in the low dtype
# too; an answer in the low dtype stands only where its margin is wider than the drift the run measured.
CHECKED = {f"{name}-checked": TORCH_DTYPES[name] for name in ("bfloat16", "float16")}
# MPS keeps a compiled graph per input shape: widths rounded up to a multiple of 16 keep that set
# small. Elsewhere the rounding is pure padding (docs/bench/width_step.txt), so widths stay exact.
MPS_WIDTH_STEP = 16
# CPU flags (Linux /proc/cpuinfo) of the instructions oneDNN runs bfloat16 matmuls on natively
NATIVE_BF16_FLAGS = ("amx_bf16", "avx512_bf16")
CPUINFO = Path("/proc/cpuinfo")


@dataclass(frozen=True, slots=True)
class Placement:
    device: str
    dtype: torch.dtype            # the weights as loaded
    reason: str
    width_step: int = 1   # batch widths are multiples of this (engine/batches.py padded_width)
    checked: torch.dtype | None = None   # the low dtype a checked run answers in where it is safe

    @property
    def dtype_name(self) -> str:
        """The run's dtype as stores and stats name it: a checked run never shares float32's name."""
        if self.checked is not None:
            return f"{str(self.checked).removeprefix('torch.')}-checked"
        return str(self.dtype).removeprefix("torch.")


def cpu_flags_have_bf16(cpuinfo: str) -> bool:
    """Whether /proc/cpuinfo's text names a native bfloat16 instruction set on its flags lines."""
    flags = {f for line in cpuinfo.splitlines() if line.startswith("flags") for f in line.split(":", 1)[-1].split()}
    return any(f in flags for f in NATIVE_BF16_FLAGS)


def cpu_has_native_bf16() -> bool:
    # Without the instructions bfloat16 matmuls are emulated, several times slower than float32
    # (docs/bench/cpu_bfloat16.txt). Only Linux says which it has, cheaply and surely; elsewhere
    # the answer is no, which costs speed, never labels.
    if not sys.platform.startswith("linux") or onednn_capped_below_bf16():
        return False
    try:
        return cpu_flags_have_bf16(CPUINFO.read_text())
    except OSError:
        return False


# oneDNN's instruction-set caps that leave out every bfloat16 instruction
# (https://oneapi-src.github.io/oneDNN/dev_guide_cpu_dispatcher_control.html)
_ISAS_WITHOUT_BF16 = {"SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX512_CORE", "AVX512_CORE_VNNI"}


def onednn_capped_below_bf16() -> bool:
    """ONEDNN_MAX_CPU_ISA (or its older name DNNL_MAX_CPU_ISA) set below bfloat16: oneDNN emulates it
    then, whatever the CPU has, as it would on a CPU without it."""
    cap = os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or ""
    return cap.strip().upper() in _ISAS_WITHOUT_BF16


def detect_device() -> tuple[str, str]:
    if torch.backends.mps.is_available():
        return "mps", "Apple GPU (MPS) available"
    if torch.cuda.is_available():
        return "cuda", f"CUDA GPU: {torch.cuda.get_device_name(0)}"
    return "cpu", "no MPS or CUDA device found"


def cuda_has_bf16() -> bool:
    # emulated on GPUs before Ampere (a T4, a V100): is_bf16_supported() counts that in unless told not to
    return torch.cuda.is_available() and torch.cuda.is_bf16_supported(including_emulation=False)


def auto_dtype(device: str) -> tuple[str, str]:
    """The dtype 'auto' runs in (a DTYPES name): one whose answers are float32's labels (the law).

    Pure bfloat16 is never chosen: its 8-bit mantissa rounds the residual stream at every layer, so
    batching, padding and the prefix cache move scores far enough to flip labels that are not ties
    (docs/bench/bfloat16_drift.txt). A checked low precision is: where the hardware runs it fast,
    each answer in it stands only where its margin is wider than the drift the run measured against
    float32, and the rest are scored again in float32 (engine/checked.py). Whether that pays is
    decided per run, from its own probes.
    """
    if device == "mps":
        return "float16-checked", "Apple GPU: float16, answers checked against float32"
    if device == "cuda":
        if cuda_has_bf16():
            return "bfloat16-checked", "this GPU runs bfloat16: answers checked against float32"
        return "float32", "this GPU has no bfloat16"
    if cpu_has_native_bf16():
        return "bfloat16-checked", "this CPU has native bfloat16 (AMX/AVX512-BF16): answers checked against float32"
    return "float32", "this CPU has no native bfloat16 (emulated it is slower than float32)"


def choose(device: str = "auto", dtype: str = "auto") -> Placement:
    """Resolve 'auto' choices; explicit ones are checked, not second-guessed."""
    if device == "auto":
        device, why_device = detect_device()
    else:
        _check_available(device)
        why_device = "chosen by the user"
    if dtype == "auto":
        dtype, why_dtype = auto_dtype(device)
    elif dtype in TORCH_DTYPES or dtype in CHECKED:
        why_dtype = "chosen by the user"
    else:
        raise ValueError(f"unknown dtype {dtype!r}: use {', '.join(DTYPES)}")
    torch_dtype, checked = (torch.float32, CHECKED[dtype]) if dtype in CHECKED else (TORCH_DTYPES[dtype], None)
    return Placement(device, torch_dtype, f"device {device}: {why_device}; dtype {dtype}: {why_dtype}",
                     width_step=MPS_WIDTH_STEP if device == "mps" else 1, checked=checked)


def _check_available(device: str) -> None:
    available = {"cpu": True, "mps": torch.backends.mps.is_available(), "cuda": torch.cuda.is_available()}
    if device not in available:
        raise ValueError(f"unknown device {device!r}: use {', '.join(DEVICES[:-1])} or {DEVICES[-1]}")
    if not available[device]:
        raise ValueError(f"device {device!r} is not available on this machine")
