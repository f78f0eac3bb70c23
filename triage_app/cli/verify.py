"""verify: the fast path against the reference loop, on a spread of the file's tickets."""

from __future__ import annotations

import triage_app.cli.options as options


def run(args) -> int:
    from triage_app.engine.verify import verify
    from triage_app.files.clean import clean_texts

    cleaning = options.cleaning(args)
    _, texts = options.read_tickets(args)
    settings = options.settings(args)
    classifier = options.classifier(args, settings)
    report = verify(classifier, clean_texts(texts, cleaning), args.probes, settings.run)
    for d in report.disagreements:
        kind = "near-tie" if d.near_tie else "DISAGREEMENT"
        print(f"  ticket {d.index}: reference {d.reference}, fast {d.fast} "
              f"(reference log-margin {d.reference_log_margin:.3g}) {kind}")
    print(report.summary())
    return 0 if report.ok else 1
