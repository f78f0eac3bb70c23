"""The check on a CPU without native bfloat16: oneDNN capped below AVX512-BF16 and AMX
(ONEDNN_MAX_CPU_ISA=AVX512_CORE), so bfloat16 matmuls are emulated, in a process of their own. The
check's logic must hold there too (every label float32's), and `auto` must not choose it there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from triage_app.engine import device

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import json, torch
from triage_app.engine import device, models
from triage_app.engine.checked import Check, CheckedClassifier, low_copy
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import Scoring
from triage_app.engine.labels import Label, LabelSet
from triage_app.bench.workloads import first_sentence, load_sample

with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):   # oneDNN names its ISA and kernel
    torch.nn.functional.linear(torch.ones(8, 64, dtype=torch.bfloat16), torch.ones(64, 64, dtype=torch.bfloat16))
loaded = models.load(models.SMOLLM2, device.choose("cpu", "bfloat16-checked"))
loaded.low = low_copy(loaded)
labels = LabelSet((Label("billing", "payments, invoices, refunds"), Label("payments", "payments, invoices, refunds"),
                   Label("technical", "errors, bugs, crashes"), Label("account", "sign-in, passwords, profile")))
texts = [first_sentence(r["text"]) for r in load_sample()[:10]]
scoring = Scoring(method="direct")
def run(classifier):
    answers, stats = {}, None
    for batch in classifier.run(texts):
        answers.update({p.index: p.label for p in batch.predictions})
        stats = batch.stats
    return [answers[i] for i in range(len(texts))], stats
want, _ = run(Classifier(loaded, labels, scoring=scoring))
got, stats = run(CheckedClassifier(loaded, labels, scoring=scoring, check=Check(probes=4, ranges=2, always=True)))
print("RESULT " + json.dumps({"want": want, "got": got, "stats": stats.to_dict()}))
"""


def test_the_check_holds_on_emulated_bfloat16():
    env = {**os.environ, "ONEDNN_MAX_CPU_ISA": "AVX512_CORE", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", RUN], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    onednn = [line for line in done.stdout.splitlines() if line.startswith("onednn_verbose")]
    isa = next(line for line in onednn if ",isa:" in line)
    assert "bfloat16" not in isa and "AMX" not in isa, isa              # no native bfloat16 instructions
    matmul = next(line for line in onednn if ",matmul," in line)
    assert ",bf16:" in matmul or "src:bf16" in matmul                   # a bfloat16 matmul, emulated
    assert "amx" not in matmul and "avx512_core_bf16" not in matmul, matmul
    result = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))[7:])
    stats = result["stats"]
    assert result["got"] == result["want"]                               # every label float32's
    assert stats["dtype"] == "bfloat16-checked" and "forced" in stats["check"] and stats["probes"] == 4
    assert stats["accepted"] + stats["rescored"] == 6 and stats["done"] == 10
    assert 0 <= stats["rescored_share"] <= 1 and len(stats["drift"]) == 2
    assert all(0 < d < 5 for d in stats["drift"]), stats["drift"]        # a drift was measured, and it is a rounding's


def test_auto_runs_float32_on_this_cpu_without_its_native_bfloat16(monkeypatch, tmp_path):
    """This machine's own /proc/cpuinfo, less the flags of the instructions that run bfloat16 natively."""
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else "flags\t\t: fpu avx512f\n"
    for flag in device.NATIVE_BF16_FLAGS:
        text = text.replace(f" {flag}", "")
    (tmp_path / "cpuinfo").write_text(text)
    monkeypatch.setattr(device.sys, "platform", "linux")
    monkeypatch.setattr(device, "CPUINFO", tmp_path / "cpuinfo")
    placement = device.choose("cpu", "auto")
    assert placement.dtype == torch.float32 and placement.checked is None and placement.dtype_name == "float32"
    assert "no native bfloat16" in placement.reason
