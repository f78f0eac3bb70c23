"""verify: the fast path against the reference loop, on a spread of the file's tickets."""

from __future__ import annotations

import sys

import triage_app.cli.options as options


def run(args) -> int:
    from triage_app.engine.verify import verify
    from triage_app.files.clean import clean_texts

    options.at_least(args.probes, 1, "--probes")
    cleaning = options.cleaning(args)
    table, texts = options.read_tickets(args)
    if not any(text.strip() for text in texts):
        raise ValueError(f"{table.path.name}: every ticket is blank; verify has nothing to check")
    settings = options.settings(args)
    classifier = options.classifier(args, settings)
    with Told() as told:
        report = verify(classifier, clean_texts(texts, cleaning), args.probes, settings.run, progress=told)
    for d in report.disagreements:
        kind = "near-tie" if d.near_tie else "DISAGREEMENT"
        print(f"  ticket {d.index}: reference {d.reference}, fast {d.fast} "
              f"(reference log-margin {d.reference_log_margin:.3g}) {kind}")
    print(report.summary())
    return 0 if report.ok else 1


class Told:
    """The verify's progress on stderr: its cost before it starts, a line per probe, the passes as a bar."""

    def __init__(self):
        self.bar, self.probes_done = None, 0

    def __enter__(self) -> Told:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()

    def __call__(self, progress) -> None:
        from tqdm import tqdm

        if self.bar is None:
            print(cost_line(progress.probes, progress.passes), file=sys.stderr)
            self.bar = tqdm(total=progress.passes, unit="pass", file=sys.stderr, dynamic_ncols=True)
        self.bar.update(progress.passes_done - self.bar.n)
        if progress.probes_done != self.probes_done:
            self.bar.write(f"probe {progress.probes_done}/{progress.probes} checked, {progress.passes_done:,} of "
                           f"{progress.passes:,} passes in {progress.seconds:.0f} s", file=sys.stderr)
        self.probes_done = progress.probes_done


def cost_line(probes: int, passes: int) -> str:
    return (f"verify: {probes} probe(s) through the reference loop, {passes:,} model passes over the whole prompt "
            f"(up to one per label for each probe and each calibration ticket)")
