"""A person's label lives in one place: the field's PersonLabels. The answers the table shows and the
export writes read it, a key press writes into it, and nothing keeps a copy to push back."""

from __future__ import annotations

import pandas as pd

from triage_app.learn.model import PERSON
from triage_app.review.answers import FileAnswers
from triage_app.review.person_labels import PersonLabels

from ui_helpers import make_window, open_file, settings_file, write_slice  # noqa: F401


def test_the_answers_read_the_one_person_labels_and_a_key_press_writes_into_it():
    person = PersonLabels("tickets.csv", ["h0", "h1", "h2"])
    answers = FileAnswers(3, ["billing", "account"])
    answers.show_person_labels(person)
    person.give(0, "billing")                            # given elsewhere (a replay, a column taken): no push
    assert answers.label_of(0) == "billing" and answers.is_person_label(0) and answers.source(0) == PERSON
    assert answers.set_person_label(1, "account") and person.labels == {0: "billing", 1: "account"}
    person.give(2, "shipping")                           # a name not in the set: kept, set aside, not shown
    assert answers.person_labels == {0: "billing", 1: "account"} and not answers.is_person_label(2)
    assert answers.set_label_names(["billing", "account", "shipping"])
    assert answers.person_labels == {0: "billing", 1: "account", 2: "shipping"}
    assert answers.set_person_label(1, None) and person.labels == {0: "billing", 2: "shipping"}


def test_the_table_and_the_export_read_the_windows_person_labels_themselves(qtbot, make_window, tmp_path):
    window = make_window()
    open_file(qtbot, window, write_slice(tmp_path, 6))
    person = window.labelling.person
    assert window.model.state.person is person
    assert window.model.set_person_label(0, "billing") and person.labels == {0: "billing"}
    with qtbot.waitSignal(window.labels_panel.changed):
        window.labels_panel.add_label()                  # a label-set edit: still the same one, nothing pushed
    assert window.model.state.person is window.labelling.person is person
    person.give(3, "account")                            # written into it alone: the table and export see it
    assert window.model.label_of(3) == "account" and window.model.is_person_label(3)
    out = pd.read_csv(window.export_to(tmp_path / "out.csv"), dtype=str, keep_default_na=False)
    assert [r for r in range(len(out)) if out["person"][r] == "True"] == [0, 3]
    assert out["label"][3] == "account" and out["source"][3] == "person"
