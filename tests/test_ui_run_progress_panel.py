"""The run panel: no time left guessed from one batch, a chart that reads as rates from zero, a column
that keeps its width, and a verify's passes counted on the bar (issue 32 items 9 and 21)."""

from __future__ import annotations

from types import SimpleNamespace

from triage_app.engine.stats import RunStats
from triage_app.engine.verify import VerifyProgress, VerifyReport
from triage_app.ui.panels.run_progress import RunPanel


def progress(done: int, seconds: float, total: int = 1000, resumed: int = 0) -> SimpleNamespace:
    # channel scoring of 77 labels: each ticket's 100 tokens after each label's 300-token prompt
    stats = RunStats(total=total - resumed, done=done, seconds=seconds, tokens_processed=done * 7_700,
                     real_tokens=done * 6_600, padding_tokens=done * 1_100, prefix_tokens=23_100,
                     prefix_tokens_saved=done * 23_100)
    return SimpleNamespace(stats=stats, rows_done=done + resumed, rows_total=total, resumed=resumed)


def panel(qtbot) -> RunPanel:
    run = RunPanel()
    qtbot.addWidget(run)
    run.resize(480, 400)
    run.show()
    run.start(1000)
    return run


def test_no_time_left_from_the_first_batch_alone_then_the_pace_after_it(qtbot):
    run = panel(qtbot)
    run.update_progress(progress(1, 4.0))          # the first batch: warm-up and the prompt's cache
    assert "left" not in run.bar.format()
    run.update_progress(progress(101, 6.0))        # 100 tickets in 2 s since: 899 left take about 18 s
    assert "about 18 s left" in run.bar.format()


def test_the_chart_reads_rates_from_zero_unscaled(qtbot):
    run = panel(qtbot)
    run.update_progress(progress(1, 500.0, resumed=200))   # one slow batch after a restart
    low, high = run.chart.getViewBox().viewRange()[1]
    assert low == 0 and high > 1 / 500
    assert "x0.001" not in run.chart.getAxis("left").labelString() and not run.chart.getAxis("left").autoSIPrefix


def test_long_numbers_do_not_widen_the_panel(qtbot):
    from PySide6.QtWidgets import QApplication

    run = panel(qtbot)
    run.resize(460, 400)        # the side column's narrowest (panels/side.py)
    for k in range(1, 6):       # up to a 200,000-ticket file's tokens: billions
        run.update_progress(progress(40_000 * k, 3.0 * k, total=200_000))
        QApplication.processEvents()
        assert run.minimumSizeHint().width() <= 460, run.values["prefix"].text()


def test_a_verify_counts_its_passes_on_the_bar(qtbot):
    run = panel(qtbot)
    run.show_verify_progress(VerifyProgress(0, 3, 0, 462, 0.0))
    assert "462" in run.verify_result.text() and run.bar.maximum() == 462
    run.show_verify_progress(VerifyProgress(1, 3, 154, 462, 60.0))
    assert run.bar.value() == 154 and "1 of 3 tickets" in run.bar.format() and "about 2 min left" in run.bar.format()
    head = run.show_verify(VerifyReport(probes=1, agree=1, max_score_diff=0.0, tolerance=1e-3, planned=3))
    assert head.startswith("■ Stopped") and "1 of 3 tickets checked" in run.bar.format()
