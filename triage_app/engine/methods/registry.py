"""The scoring methods by name: the one registry, imported as code, so the import graph shows them.

Adding a method is a new engine file with a class after engine/methods/base.py's ScoringMethod, one line
here, and its torch-free facts in engine/config.py's METHOD_FACTS (what the window may know of it).
"""

from __future__ import annotations

from triage_app.engine.methods.direct_after import DirectAfterMethod
from triage_app.engine.methods.channel import ChannelMethod
from triage_app.engine.methods.direct import DirectMethod
from triage_app.engine.methods.direct_fields import DirectFieldsMethod

METHOD_CLASSES = {"channel": ChannelMethod, "direct": DirectMethod, "direct-after": DirectAfterMethod,
                  "direct-fields": DirectFieldsMethod}


def method_class(name: str) -> type:
    """The class behind a method's name (engine/methods/base.py's ScoringMethod)."""
    return METHOD_CLASSES[name]
