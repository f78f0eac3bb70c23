"""The triage-app command line: the window (no command, or a file), classify, eval, verify, bench, inspect.

parser.py says what each command takes; options.py turns those options into the engine's typed
settings, once per command; each command is a module of its own (classify, evaluate, verify, bench,
inspect_file).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from contextlib import contextmanager

from triage_app.cli.parser import JSON_OUTPUTS, build_parser

EXIT_BAD_INPUT = 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--self-test"]:
        from triage_app.cli.selftest import main as self_test

        return self_test()
    parser = build_parser()
    if _wants_window(argv, parser):
        from triage_app.ui.app import main as window

        return window(argv[1:] if argv[:1] == ["gui"] else argv)
    args = parser.parse_args(argv)
    from triage_app.cli import wait_policy

    wait_policy.apply()   # a command, not the window: before anything imports torch or scikit-learn
    from triage_app.engine.models import ModelNotAvailable
    from triage_app.files.reader import BadInput

    try:
        with terminated_as_interrupted():
            check_paths(args)
            return args.func(args)
    except (BadInput, ModelNotAvailable, ValueError) as exc:
        return _refuse(str(exc))
    except OSError as exc:  # a file that cannot be read or written, however deep it was opened
        where = f"{exc.filename}: " if exc.filename else ""
        return _refuse(f"{where}{exc.strerror or exc}")
    except MemoryError:
        return _refuse("out of memory; try a smaller file or --limit")
    except RecursionError:
        return _refuse("the input is nested too deeply to read")
    except KeyboardInterrupt:
        print("triage-app: interrupted", file=sys.stderr)
        return 130


@contextmanager
def terminated_as_interrupted():
    """kill (SIGTERM) ends a command as Ctrl-C does, through its cleanups: the export's temporary file is
    removed (files/export.write_atomic), the database closed. Python's default ends it past them."""
    def interrupted(signum, frame):
        raise KeyboardInterrupt

    try:
        before = signal.signal(signal.SIGTERM, interrupted)
    except ValueError:   # not the main thread: signals go to the thread that can take them
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def check_paths(args) -> None:
    """No command writes one file twice, over a file it reads or over its database: refused here, before
    anything is read, opened or loaded (the files each command reads and writes: parser.py)."""
    from triage_app.files import output_paths

    def named(specs) -> list[tuple]:
        return [(flag, path, *rest) for flag, dest, *rest in specs if (path := _path(args, dest))]

    writes = named(getattr(args, "writes", ()))
    writes = [w for write in writes for w in (output_paths.with_journals(write) if write[0] == "--db" else [write])]
    reads = [*named(getattr(args, "reads", ())), *getattr(args, "shipped", ()), *_default_database(writes)]
    output_paths.check(reads, writes)
    for option, path, *_ in writes:
        if option in JSON_OUTPUTS and not path.lower().endswith(".json"):
            raise ValueError(f"{path}: {option} writes JSON; name a .json file")
    output_paths.refuse_unwritable([write for write in writes if write[0] != "--db"])   # not the database: few runs open it


def _default_database(writes) -> list[tuple]:
    """The per-user results database and its journals, where the command's --db is another file or it has
    none (bench): a person's labels are there whichever database this command uses."""
    from triage_app.files import output_paths
    from triage_app.files.store import default_path

    database = str(default_path())
    if any(flag == "--db" and output_paths.same(path, database) for flag, path, *_ in writes):
        return []       # the command's own: held to it as its --db
    return output_paths.with_journals(("", database, "the results database", ""))


def _path(args, dest: str):
    """The path an argument names; the database's default where --db is not given."""
    path = getattr(args, dest, None)
    if dest in ("model", "encoder"):
        return _local_model(path)
    if path is None and dest == "db":
        from triage_app.files.store import default_path

        return str(default_path())
    return path


def _local_model(spec: str | None) -> str | None:
    """The file or folder a --model or --encoder names here; None for an alias (smollm2-135m, bundled) or a
    Hugging Face id with no folder of that name."""
    from triage_app.engine.config import BUNDLED_ENCODER, NO_ENCODER
    from triage_app.engine.models import ALIASES, RANDOM_QWEN, SMOLLM2

    spec = ALIASES.get(spec, spec)
    if spec in (None, SMOLLM2, RANDOM_QWEN, BUNDLED_ENCODER, NO_ENCODER) or not os.path.exists(spec):
        return None
    return spec


def _refuse(message: str) -> int:
    """Bad input gets one line on stderr and exit 2, whatever the message held."""
    print(f"triage-app: {' '.join(message.splitlines())}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _wants_window(argv: list[str], parser: argparse.ArgumentParser) -> bool:
    """`triage-app`, `triage-app FILE` and `triage-app gui ...` open the window."""
    return not argv or argv[0] == "gui" or (argv[0] not in parser.commands and not argv[0].startswith("-"))
