"""learn/ teaches, quality/ measures: the learning curve lives on the measuring side, so learn never
imports quality (quality.evaluate once imported learn.curve, which imported quality.metrics back)."""

from __future__ import annotations

from test_architecture import upward_imports


def test_learn_never_imports_quality():
    assert upward_imports("learn", ("quality",)) == []
