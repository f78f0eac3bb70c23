"""The frozen app's entry point: the window when double-clicked, the CLI when given a command.

A Mac .app is started with no arguments (older macOS add -psn_…); files opened from Finder arrive
later as QFileOpenEvents, not in argv. Elsewhere a file may be passed on the command line.
"""

import multiprocessing
import os
import sys


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("-psn_")]
    if args[:1] == ["--self-test"]:
        from triage_app.selftest import main as self_test

        return self_test()
    if not args or (len(args) == 1 and os.path.isfile(args[0])):
        from triage_app.ui.app import main as window

        return window(args)
    from triage_app.cli import main as cli

    return cli(args)


if __name__ == "__main__":
    # first thing: a frozen child process (torch/tokenizers may spawn one) must not start the app again
    multiprocessing.freeze_support()
    raise SystemExit(main())
