"""Which step of the sentence encoder's first load keeps the main thread from running Python.

No window: the main thread runs a loop that sleeps 1 ms and notes the time (any gap is the GIL held by
the other thread, or a core not given), while a thread does the first load step by step, as
SentenceEncoder.bundled() and the window's first embedding did it before 2026-12-03 (the deep copy of the
tokenizer each caller got is kept as a step, to show what it cost), timing each step. Prints each step's
wall time and the longest gap of the main thread's loop inside it. A fresh process each round.

Usage: .venv/bin/python scripts/experiments/encoder_load_gil.py [ROUNDS]
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def steps():
    """The first load's steps, in order, each a (name, callable)."""
    import copy

    import torch

    from triage_app.engine import encoder as enc

    state = {}

    def check():
        enc.check_files(enc.bundled_folder(), enc.MINILM_FILES)

    def transformers_import():
        from transformers import AutoModel, AutoTokenizer  # noqa: F401

    def tokenizer():
        from transformers import AutoTokenizer
        state["tokenizer"] = AutoTokenizer.from_pretrained(enc.bundled_folder())

    def model():
        from transformers import AutoModel
        state["model"] = AutoModel.from_pretrained(enc.bundled_folder(), dtype=torch.float32).eval()

    def own_tokenizer():
        state["own"] = copy.deepcopy(state["tokenizer"])

    def first_embed():
        encoder = enc.SentenceEncoder(enc.MINILM, "", state["own"], state["model"])
        encoder.embed(["my card has not arrived yet, can you check the delivery?"] * 8)

    return [("hash check", check), ("import transformers' Auto classes", transformers_import),
            ("tokenizer from_pretrained", tokenizer), ("model from_pretrained", model),
            ("deepcopy of the tokenizer", own_tokenizer), ("first embed (8 texts)", first_embed)]


def one_round() -> None:
    from triage_app.ui import app as app_module

    app_module._import_engine()         # as app.main: the engine's modules before the window
    marks: list[tuple[str, float, float]] = []
    ticks: list[float] = []
    done = threading.Event()

    def load():
        time.sleep(0.2)
        for name, step in steps():
            start = time.perf_counter()
            step()
            marks.append((name, start, time.perf_counter()))
        done.set()

    threading.Thread(target=load, daemon=True).start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    load_avg = os.getloadavg()[0]
    print(f"load {load_avg:.2f} ({time.strftime('%H:%M:%S', time.gmtime())} UTC)")
    for name, start, end in marks:
        inside = [b - a for a, b in zip(ticks, ticks[1:]) if start <= b and a <= end]
        print(f"  {name:36s} {1000 * (end - start):7.0f} ms wall, main thread's longest gap "
              f"{1000 * max(inside, default=0):5.0f} ms")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        one_round()
    else:
        for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
            subprocess.run([sys.executable, __file__, "--one"], check=True, cwd=ROOT)
