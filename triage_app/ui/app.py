"""Start the window on a qasync event loop; or render it to a PNG and exit (--screenshot)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
from pathlib import Path

SCREENSHOT_TIMEOUT_S = 600
LAST_WAIT_MS = 20_000   # after the window closed: how long a busy engine gets before the process ends anyway

# The table is painted through Python, a call per cell shown, and each call takes the GIL back from
# whichever thread holds it. A thread busy in Python (learning's TF-IDF of a big file, the reader) hands it
# over only when the switch interval (5 ms by default) runs out, so a paint waited that long per cell:
# seconds as a big file appeared (docs/files.md). A shorter interval costs the busy thread little.
UI_SWITCH_INTERVAL_S = 0.0002


def main(argv: list[str] | None = None) -> int:
    """triage-app gui [FILE] [--screenshot PATH [--run N] [--model SPEC] [--tab labels|accuracy] [--review]]"""
    args = _parser().parse_args(argv)
    if args.file and args.screenshot:
        from triage_app.files import output_paths

        try:
            output_paths.check([("", args.file, "the ticket file")],
                               [("--screenshot", args.screenshot, "the screenshot", "write the screenshot to another")])
        except ValueError as exc:
            print(f"triage-app: {exc}", file=sys.stderr)
            return 2
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # a PNG needs no display
    from triage_app.ui import platform_check

    problem = platform_check.xcb_problem()   # said before Qt, whose own message misnames it
    if problem:
        print(f"triage-app: {problem}", file=sys.stderr)
        return 1
    _import_engine()
    import qasync
    from PySide6.QtWidgets import QApplication

    from triage_app.ui.drops import install as install_file_open
    from triage_app.ui.window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    opened = install_file_open(app)   # before the loop runs: Finder's first file may come at launch
    app.setOrganizationName("Triage")
    app.setApplicationName("Triage")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    # Everything made so far (torch's, transformers' and Qt's modules) lives as long as the process.
    # Frozen, Python's full garbage collections never walk it again: each one walked it holding the
    # GIL, a long stall of the window (docs/learning/README.md). Before the window, whose model load
    # begins at once: a model's objects must stay collectable, for the day another replaces it.
    gc.freeze()
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)
    window = MainWindow(autoload=not args.screenshot)
    for line in window.remembered.reverted:   # a remembered value that no longer reads: its default is used
        print(f"triage-app: {line}", file=sys.stderr)
    try:
        with loop:
            if args.screenshot:
                return loop.run_until_complete(asyncio.wait_for(_screenshot(window, args), SCREENSHOT_TIMEOUT_S))
            window.show()
            if args.file:
                window.open_file(args.file)
            opened.set_handler(window.open_file)   # files Finder sent so far, then each as it comes
            closed = asyncio.Event()
            app.aboutToQuit.connect(closed.set)
            loop.run_until_complete(closed.wait())
            return 0
    finally:
        window.shutdown()
        _end_when_the_engine_has(LAST_WAIT_MS)


def _end_when_the_engine_has(timeout_ms: int) -> None:
    """Return once no engine thread outlives the window; or end the process without Python's teardown.

    A QThread that Python's teardown destroys while it runs aborts the process, and the engine may
    be inside a model load or a download that nothing can interrupt. Everything the user made is
    already on disk by then: each batch and each label is its own committed SQLite transaction, and
    a transaction cut short is rolled back when the database next opens. So after a bounded wait
    (the window is hidden by now) the process ends with os._exit, after flushing what Python buffers.
    """
    from triage_app.ui.background.worker import EngineThread

    if EngineThread.wait_outliving(timeout_ms):
        return
    print("triage-app: the engine was still busy; exiting without waiting for it", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _import_engine() -> None:
    """Import the engine's torch side here, before Qt, not later on the worker's thread.

    With PySide6 6.12 loaded, every import passes through shiboken's import hook; importing torch
    on the worker thread while the UI thread ran Python crashed the interpreter once here
    ("none_dealloc"). Done first, the hook never sees these imports. Costs a few seconds at start.
    """
    import triage_app.engine.device  # noqa: F401
    import triage_app.engine.models  # noqa: F401
    import triage_app.engine.verify  # noqa: F401
    import triage_app.files.embeddings  # noqa: F401  (the sentence encoder's modules, which it loads on the worker)
    import triage_app.run.job  # noqa: F401


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="triage-app gui", description="The Triage window.")
    parser.add_argument("file", nargs="?", help="a ticket file to open (CSV, TSV, XLSX, JSON, JSONL)")
    parser.add_argument("--screenshot", metavar="PATH", help="render the window to this PNG and exit")
    parser.add_argument("--run", type=int, metavar="N", help="with --screenshot: first label N tickets")
    parser.add_argument("--model", default="smollm2-135m", help="with --run: the model (default: the bundled "
                                                                 "SmolLM2, offline)")
    parser.add_argument("--tab", choices=["labels", "accuracy"], default="labels", help="with --screenshot")
    parser.add_argument("--review", action="store_true", help="with --screenshot: show the review queue")
    parser.add_argument("--size", default=(1440, 880), type=_size, metavar="WxH",
                        help="with --screenshot: window size, WxH")
    return parser


def _size(text: str) -> tuple[int, int]:
    """--size WxH: two whole numbers above zero; anything else is argparse's one-line error."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(part.strip().isdigit() and int(part) > 0 for part in parts):
        raise argparse.ArgumentTypeError("use WxH, e.g. 1440x880")
    return int(parts[0]), int(parts[1])


async def _screenshot(window, args) -> int:
    window.resize(*args.size)
    window.show()
    if args.file:
        window.open_file(args.file)
        await _next(window.file_loaded, window.error_shown)
    if args.run and window.table is not None:
        window.load_model(args.model)
        ended = _next(window.run_ended)
        if window.run(limit=args.run) is not None:
            await ended
    window.tabs.setCurrentIndex(1 if args.tab == "accuracy" else 0)
    if args.review:
        window.tickets.set_review_queue(True)
    await asyncio.sleep(0.5)   # let the throttled counts, accuracy and chart catch up
    path = Path(args.screenshot)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(path)):
        print(f"triage-app: cannot write {path}", file=sys.stderr)
        return 1
    print(f"wrote {path}", file=sys.stderr)
    return 0


def _next(*signals) -> asyncio.Future:
    """A future that resolves with the arguments of whichever signal fires first."""
    future = asyncio.get_event_loop().create_future()

    def fired(*values):
        if not future.done():
            future.set_result(values)

    for signal in signals:
        signal.connect(fired)
    return future
