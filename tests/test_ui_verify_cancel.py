"""Verify from the window says where it stands and stops on Cancel (issue 32 item 9): the bar counts the
reference loop's model passes probe by probe, Cancel (Esc) is enabled while it goes and stops it after
the model pass in flight, and the report says how many probes were compared.

The real SmolLM2 on short sample tickets, scored with direct (one reference pass per label and ticket).
"""

from __future__ import annotations

from test_ui_run import SHORT, ready  # noqa: F401
from ui_helpers import Relay, make_window, settings_file  # noqa: F401

PROBES = 4


def test_verify_shows_each_probe_and_cancel_stops_it_between_probes(qtbot, ready):
    window = ready(6, SHORT)
    window.remembered.method = "direct"
    progress, done = Relay(window.worker.verify_progress), Relay(window.worker.verify_done)
    seen = []

    def after_the_first_probe(step):
        seen.append((step.probes_done, window.run_panel.bar.value(), window.actions.cancel.isEnabled(),
                     window.actions.verify.isEnabled()))
        if step.probes_done == 1 and len([s for s in seen if s[0] == 1]) == 1:
            window.cancel()

    progress.received.connect(after_the_first_probe)
    with qtbot.waitSignal(done.received, timeout=240_000) as blocker:
        window.verify(PROBES)
    report = blocker.args[0]
    assert report.stopped and report.planned == PROBES and 1 <= report.probes < PROBES
    assert seen[0][0] == 0 and any(probes == 1 for probes, *_ in seen)      # before the loop, then per probe
    assert all(cancel and not verify for _, _, cancel, verify in seen)       # Cancel while it goes, not Verify
    assert seen[-1][1] == progress.seen[-1].passes_done                      # the bar counts passes
    assert "Stopped" in window.run_panel.verify_result.text()
    assert not window.actions.cancel.isEnabled() and window.actions.verify.isEnabled()


def test_a_verify_behind_a_model_that_failed_to_load_ends_with_that_one_message(qtbot, make_window, smollm2, tmp_path):
    """Verify with a model folder that cannot load: the load's failure is the message, the verify never
    starts (as a run behind it), and nothing says "Verifying 4 tickets…" any more."""
    from ui_helpers import open_file, save_shot, write_slice

    window = make_window(autoload=False)
    open_file(qtbot, window, write_slice(tmp_path, 6))
    (tmp_path / "empty").mkdir()
    window.model_panel.set_spec(str(tmp_path / "empty"))
    errors, loaded = Relay(window.error_shown), Relay(window.worker.model_loaded)
    window.verify(PROBES)
    assert window.run_panel.verify_result.isVisible()
    window.worker.use_model(smollm2)     # served after the verify: once it is loaded, the verify had its turn
    qtbot.waitUntil(lambda: bool(loaded.seen), timeout=60_000)
    qtbot.wait(50)
    assert [e.split(":")[0] for e in errors.seen] == ["The model could not be loaded"], errors.seen
    assert not window.run_panel.verify_result.isVisible() and not window.runs.verifying
    assert window.actions.verify.isEnabled()     # (Cancel stays for the encoder reading the file)
    save_shot(window.run_panel, "verify_behind_a_failed_load.png", tmp_path)
