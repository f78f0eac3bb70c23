"""An edit in the label editor keeps what the editor does not show: a label's alias, the surface form the
model reads (engine/labels.Label.alias), from the label-set file the person loaded. Every edit rebuilt
each label from its name and description alone, so describing one label dropped every alias."""

from __future__ import annotations

from triage_app.engine.labels import Example, Label, LabelSet
from triage_app.ui.panels.label_editor import LabelsPanel


def test_an_edit_of_names_and_descriptions_keeps_every_alias(qtbot):
    labels = LabelSet((Label("billing", "invoices", alias="billing and payments"), Label("technical", alias="tech"),
                       Label("account")), (Example("I was charged twice", "billing"),))
    panel = LabelsPanel(labels)
    qtbot.addWidget(panel)
    panel.labels.item(2, 1).setText("logins and passwords")      # describe the one without an alias
    panel.labels.item(0, 0).setText("payments")                  # rename the one with one
    assert [(label.name, label.alias) for label in panel.label_set.labels] == [
        ("payments", "billing and payments"), ("technical", "tech"), ("account", "")]
    assert panel.label_set.labels[2].description == "logins and passwords"
    assert panel.label_set.examples == (Example("I was charged twice", "payments"),)


def test_a_removed_label_named_again_gets_back_its_description_alias_and_examples(qtbot):
    """Removing a label set its examples aside with it, not into nothing: typed work comes back with the name
    (typed in another case too: one name to a person)."""
    labels = LabelSet((Label("billing", "invoices", alias="billing and payments"), Label("technical"),
                       Label("account")), (Example("I was charged twice", "billing"), Example("app crash", "technical"),
                                           Example("refund my order", "billing")))
    panel = LabelsPanel(labels)
    qtbot.addWidget(panel)
    panel.labels.selectRow(0)
    panel.remove_selected_label()
    assert panel.label_set.names == ["technical", "account"] and len(panel.label_set.examples) == 1
    panel.add_label()
    panel.labels.item(panel.labels.rowCount() - 1, 0).setText("Billing")
    back = panel.label_set.labels[-1]
    assert (back.name, back.description, back.alias) == ("Billing", "invoices", "billing and payments")
    assert set(panel.label_set.examples) == {Example("app crash", "technical"), Example("I was charged twice", "Billing"),
                                             Example("refund my order", "Billing")}


def test_a_label_renamed_to_a_removed_ones_name_keeps_its_own_description_and_examples(qtbot):
    """Only a new, bare label takes a removed one's typed work: a label with its own is renamed, not merged."""
    labels = LabelSet((Label("billing", "invoices"), Label("refund"), Label("account")),
                      (Example("charged twice", "billing"), Example("money back please", "refund")))
    panel = LabelsPanel(labels)
    qtbot.addWidget(panel)
    panel.labels.selectRow(0)
    panel.remove_selected_label()
    panel.labels.item(0, 0).setText("billing")                    # refund, renamed
    assert [(label.name, label.description) for label in panel.label_set.labels] == [("billing", ""), ("account", "")]
    assert panel.label_set.examples == (Example("money back please", "billing"),)
