"""Device and dtype choice: 'auto' follows the hardware, whichever the scoring method."""

from __future__ import annotations

import pytest
import torch

from triage_app.engine import device
from triage_app.engine.config import DTYPES
from triage_app.engine.verify import tolerance

FLAGS = "fpu vme de pse tsc msr pae mce cx8 apic sep avx avx2 avx512f avx512bw avx512vl"


def cpuinfo(*extra: str) -> str:
    """/proc/cpuinfo's text for a two-core CPU with these flags besides AVX-512's."""
    core = "processor\t: {n}\nmodel name\t: a CPU\nflags\t\t: " + " ".join([FLAGS, *extra]) + "\nbugs\t\t: spectre_v1\n\n"
    return core.format(n=0) + core.format(n=1)


@pytest.fixture
def linux_cpu(monkeypatch, tmp_path):
    """A Linux CPU whose /proc/cpuinfo holds the text written to the returned file."""
    monkeypatch.setattr(device.sys, "platform", "linux")
    monkeypatch.setattr(device, "CPUINFO", tmp_path / "cpuinfo")
    return tmp_path / "cpuinfo"


@pytest.mark.parametrize("flags, native", [(("amx_bf16", "amx_tile"), True), (("avx512_bf16",), True),
                                           ((), False), (("avx512_fp16", "amx_int8"), False)])
def test_auto_checks_bfloat16_only_on_cpus_with_native_bfloat16(linux_cpu, flags, native):
    linux_cpu.write_text(cpuinfo(*flags))
    placement = device.choose("cpu", "auto")
    assert placement.dtype == torch.float32    # loaded in float32 either way: the reference and the re-scores
    assert placement.checked == (torch.bfloat16 if native else None)
    assert placement.dtype_name == ("bfloat16-checked" if native else "float32")


def test_a_flag_named_in_another_line_is_not_a_cpu_flag(linux_cpu):
    linux_cpu.write_text(cpuinfo().replace("model name\t: a CPU", "model name\t: avx512_bf16 lookalike"))
    assert not device.cpu_has_native_bf16()


def test_other_systems_and_unreadable_cpuinfo_keep_float32(monkeypatch, linux_cpu):
    assert not device.cpu_has_native_bf16()          # no file there: unreadable
    linux_cpu.write_text(cpuinfo("amx_bf16"))
    assert device.cpu_has_native_bf16()
    monkeypatch.setattr(device.sys, "platform", "darwin")
    assert not device.cpu_has_native_bf16()
    assert device.choose("cpu", "auto").dtype_name == "float32"


@pytest.mark.parametrize("bf16, expected", [(True, "bfloat16-checked"), (False, "float32")])
def test_auto_on_cuda_checks_bfloat16_where_the_gpu_has_it(monkeypatch, bf16, expected):
    monkeypatch.setattr(device, "cuda_has_bf16", lambda: bf16)
    assert device.auto_dtype("cuda")[0] == expected


def test_auto_on_apple_gpus_checks_float16():
    name, reason = device.auto_dtype("mps")
    assert name == "float16-checked" and reason


def test_explicit_choices_are_kept(linux_cpu):
    linux_cpu.write_text(cpuinfo("amx_bf16"))
    pure = device.choose("cpu", "bfloat16")
    assert (pure.dtype, pure.checked, pure.dtype_name) == (torch.bfloat16, None, "bfloat16")   # the user's choice
    assert device.choose("cpu", "float32").checked is None
    asked = device.choose("cpu", "float16-checked")
    assert (asked.dtype, asked.checked, asked.dtype_name) == (torch.float32, torch.float16, "float16-checked")
    with pytest.raises(ValueError, match="unknown dtype"):
        device.choose("cpu", "float8")


def test_every_dtype_the_settings_offer_resolves():
    assert {device.choose("cpu", name).dtype_name for name in DTYPES if name != "auto"} == set(DTYPES) - {"auto"}


@pytest.mark.parametrize("method", ["direct", "channel"])
def test_a_checked_dtype_is_held_to_float32s_tolerance(method):
    # its float32 model scores the probes and re-scores; its labels must be float32's
    assert tolerance("bfloat16-checked", method) == tolerance("float32", method) == 1e-3


def test_channel_scores_get_the_wider_tolerance_their_sums_need():
    assert tolerance("float32", "channel") == tolerance("float32", "direct") == 1e-3
    for dtype in ("float16", "bfloat16"):
        assert tolerance(dtype, "channel") > tolerance(dtype, "direct")


@pytest.mark.parametrize("cap, native", [("AVX512_CORE", False), ("avx2", False), ("AVX512_CORE_AMX", True),
                                         ("ALL", True)])
def test_a_onednn_cap_below_bfloat16_keeps_float32(monkeypatch, linux_cpu, cap, native):
    # oneDNN capped below bfloat16 emulates it on any CPU, as the emulated-bfloat16 tests run it
    linux_cpu.write_text(cpuinfo("amx_bf16"))
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", cap)
    assert device.cpu_has_native_bf16() == native
    assert device.choose("cpu", "auto").dtype_name == ("bfloat16-checked" if native else "float32")


def test_a_gpu_that_emulates_bfloat16_is_not_one_that_runs_it(monkeypatch):
    # a hunt's finding: on a T4 or a V100 torch says bfloat16 is supported, counting its emulation in, and auto
    # chose a checked bfloat16 there ("this GPU runs bfloat16")
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: including_emulation)
    assert not device.cuda_has_bf16()
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)   # an Ampere
    assert device.cuda_has_bf16()
