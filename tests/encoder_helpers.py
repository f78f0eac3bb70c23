"""The bundled sentence encoder, loaded once per test process whichever module asks first (the
modules' own session fixtures would each load it: seconds apiece)."""

from __future__ import annotations

import functools


@functools.cache
def bundled_encoder():
    from triage_app.engine.encoder import SentenceEncoder

    return SentenceEncoder.bundled()
