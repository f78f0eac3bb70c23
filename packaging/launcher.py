"""The frozen app's entry point: freeze_support first, then the self-test or triage-app's own main.

triage-app already opens the window when given no arguments or a file (a double-clicked .app gets
none; older macOS add -psn_…, dropped here). Files opened from Finder arrive later, as
QFileOpenEvents (triage_app/ui/drops.py). --self-test is answered here too, so a frozen build
can be checked whatever the CLI does with that flag.
"""

import multiprocessing
import sys


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("-psn_")]
    if args[:1] == ["--self-test"]:
        from triage_app.cli.selftest import main as self_test

        return self_test()
    from triage_app.cli import main as triage_app

    return triage_app(args)


if __name__ == "__main__":
    # first thing: a frozen child process (torch/tokenizers may spawn one) must not start the app again
    multiprocessing.freeze_support()
    raise SystemExit(main())
