"""bench --workload taught learns as classify --person-labels now learns: on the bundled encoder's embeddings
and its similarity to the queues (run/embedded.py), with the law kept: every learned label float32's."""

from __future__ import annotations

from encoder_helpers import bundled_encoder
from test_checked_learning import checked_tiny  # noqa: F401  (a fixture)

from triage_app.engine import checked


def test_the_taught_bench_learns_on_embeddings_and_every_learned_label_is_float32s(monkeypatch, checked_tiny):  # noqa: F811
    from triage_app.bench.taught import compare_taught, report

    monkeypatch.setattr(checked.Decision, "pays", property(lambda self: True))
    result = compare_taught(checked_tiny, 40, log=lambda line: None, encoder=bundled_encoder())
    assert result["encoder"] == "all-MiniLM-L6-v2" and "learned on all-MiniLM-L6-v2" in report(result)
    assert all(side.get("labels_different", 0) == 0 for side in result["sides"].values())
