import pytest

from triage_app.engine.labels import Example, Label, LabelSet


def test_round_trip_through_json(tmp_path):
    labels = LabelSet.default()
    labels.save(tmp_path / "labels.json")
    again = LabelSet.load(tmp_path / "labels.json")
    assert again == labels
    assert again.fingerprint == labels.fingerprint


def test_fingerprint_changes_with_anything_the_model_sees():
    base = LabelSet.from_names(["a", "b"])
    described = LabelSet((Label("a", "the first"), Label("b")))
    with_example = LabelSet(base.labels, (Example("x", "a"),))
    assert len({base.fingerprint, described.fingerprint, with_example.fingerprint}) == 3


@pytest.mark.parametrize("build, message", [
    (lambda: LabelSet.from_names(["only"]), "at least two"),
    (lambda: LabelSet.from_names(["a", "A"]), "distinct"),
    (lambda: LabelSet.from_names(["Café", "cafe\u0301"]), "distinct"),     # é composed, and e + accent
    (lambda: LabelSet((Label("Café"), Label("b", alias="cafe\u0301"))), "aliases must be distinct"),
    (lambda: LabelSet((Label("a"), Label("b")), (Example("t", "c"),)), "not one of"),
    (lambda: Label(" a"), "spaces"),
    (lambda: Label("a", "two\nlines"), "one line"),
])
def test_bad_label_sets_fail_at_construction(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_load_rejects_malformed_files(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        LabelSet.load(tmp_path / "bad.json")
    (tmp_path / "wrong.json").write_text('{"names": []}')
    with pytest.raises(ValueError, match="not a label set"):
        LabelSet.load(tmp_path / "wrong.json")
