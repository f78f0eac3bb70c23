"""Fields that share one pass on a checked low precision (issue 32 item 16): `--dtype auto` picks
bfloat16-checked on a CPU with native bfloat16, and the fields ran one after the other, each checked.
One float32 pass is faster (docs/bench/axes_checked.txt), so checked direct-after fields share a pass in
float32: the window runs them as one job and says why, and their answers are float32's own, stored under
float32's key (a checked run of one field finds none of them: they are not its).

The checked placement is forced on the bundled SmolLM2, as tests/test_ui_checked.py does, so this runs on
every CPU, native bfloat16 or not.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from triage_app.run.one_pass import one_pass, run_axes_job
from triage_app.engine.axes import Axes
from triage_app.engine.build import axes_classifiers
from triage_app.engine.checked import CheckedClassifier, low_copy
from triage_app.engine.config import RunSettings, Scoring
from triage_app.bench.workloads import HELPDESK_AXES, HELPDESK_EXPORT, load_sample
from triage_app.files.store import ResultStore
from triage_app.run.job import run_key
from test_ui_axes_one_pass import AFTER, alone, assert_as_alone, passes, window_on  # noqa: F401
from ui_helpers import Relay, make_window, run_and_wait, settings_file  # noqa: F401


@pytest.fixture(scope="module")
def checked_smollm2(smollm2):
    loaded = replace(smollm2, placement=replace(smollm2.placement, checked=torch.bfloat16))
    loaded.low = low_copy(loaded)
    return loaded


def test_checked_direct_after_fields_share_a_float32_pass_stored_as_float32s(checked_smollm2, smollm2, tmp_path):
    axes = Axes.load(HELPDESK_AXES)
    settings = RunSettings(scoring=Scoring(method=AFTER))
    checked = axes_classifiers(checked_smollm2, axes, settings)
    assert all(type(c) is CheckedClassifier for c in checked)
    assert one_pass(checked, settings.run) == [0, 1]
    texts = [row["body"] for row in sorted(load_sample(HELPDESK_EXPORT), key=lambda row: len(row["body"]))[:4]]
    with ResultStore(tmp_path / "results.sqlite3") as store:
        steps = list(run_axes_job(checked, store, texts, settings.run))
        float32 = axes_classifiers(smollm2, axes, settings)      # the same fields, on the float32 placement
        for a, c in enumerate(float32):
            found = {p.index: p for step in steps for p in step[a].predictions}
            assert sorted(found) == list(range(4)) and all(p.drift == 0 for p in found.values())
            assert set(store.lookup(run_key(c), _rows(texts))) == set(_rows(texts))    # float32's key
            assert store.lookup(run_key(checked[a]), _rows(texts)) == {}              # never the checked run's
        assert steps[-1][0].stats.dtype == "float32"


def _rows(texts: list[str]) -> dict[str, list[int]]:
    from triage_app.files.clean import TextCleaning, model_texts
    from triage_app.files.store import text_hash

    rows: dict[str, list[int]] = {}
    for row, text in enumerate(model_texts(texts, TextCleaning())):
        rows.setdefault(text_hash(text), []).append(row)
    return rows


def test_the_window_runs_checked_fields_in_one_float32_pass_and_says_why(qtbot, make_window, checked_smollm2,
                                                                        smollm2, tmp_path, passes):
    window = window_on(qtbot, make_window, checked_smollm2, tmp_path, {"queue": AFTER, "priority": AFTER})
    fields, lines = Relay(window.worker.fields_started), []
    window.statusBar().messageChanged.connect(lines.append)
    assert run_and_wait(qtbot, window, timeout=240_000) == "done"
    assert [f.names for f in fields.seen] == [["queue", "priority"]] and len(passes) == 1
    assert ("Running queue and priority in one pass, in float32 (faster than each field alone in "
            "bfloat16-checked)…") in lines
    assert_as_alone(window, alone(smollm2, window))      # float32's answers, as each field alone in float32


def test_bench_axes_on_a_checked_placement_times_each_axis_alone_checked_beside_the_float32_pass(tiny_qwen):
    """`bench --workload axes --dtype bfloat16-checked` (what auto picks on such a CPU) used to fail: the
    one pass refused checked classifiers. Now its sides are float32's, and one more is the window's old way."""
    from triage_app.bench.axes import run_axes_bench

    loaded = replace(tiny_qwen, placement=replace(tiny_qwen.placement, checked=torch.bfloat16), low=None)
    result = run_axes_bench(loaded, 3, methods=(AFTER,), log=lambda line: None)
    assert list(result["runs"]) == [f"{AFTER}, one pass", f"{AFTER}, one run per axis",
                                    f"{AFTER}, bfloat16-checked, one run per axis", "direct, one run per axis"]
    assert result["one_pass"][AFTER]["labels_identical"]           # the float32 pass against float32 alone
    assert result["one_pass"][AFTER]["checked_ratio"] > 0
