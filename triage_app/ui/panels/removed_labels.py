"""Labels removed in the editor, kept per field: a removed label's description, alias and examples come back
when a new, bare label takes its name again (in any case: one name to a person), as its person labels do
(review/person_labels.py). Removing a label by mistake never loses the typed work."""

from __future__ import annotations

from dataclasses import replace

from triage_app.engine.labels import Example, Label, LabelSet, folded


class RemovedLabels:
    def __init__(self):
        self._kept: dict[tuple[str, str], tuple[Label, tuple[Example, ...]]] = {}   # (field, folded name)

    def keep(self, field: str, before: LabelSet, after: LabelSet) -> None:
        """The labels of before that after no longer has, with their examples."""
        for label in (label for label in before.labels if label.name not in after.names):
            self._kept[field, folded(label.name)] = (label, tuple(e for e in before.examples if e.label == label.name))

    def restored(self, field: str, shown: LabelSet, edited: LabelSet) -> LabelSet:
        """edited, a new label in it that is bare (no description, no example: a name typed) and named as one
        removed from this field given that one's description, alias and examples; shown: the set before the edit."""
        own = {e.label for e in edited.examples} | {label.name for label in edited.labels if label.description}
        back = {label.name: self._kept.pop((field, folded(label.name))) for label in edited.labels
                if label.name not in {*shown.names, *own} and (field, folded(label.name)) in self._kept}
        labels = tuple(replace(label, description=back[label.name][0].description, alias=label.alias or
                               back[label.name][0].alias) if label.name in back else label for label in edited.labels)
        examples = tuple(replace(e, label=name) for name, (_, theirs) in back.items() for e in theirs)
        try:     # its alias may be another label's name since: the name alone then
            return LabelSet(labels, edited.examples + examples)
        except ValueError:
            return edited
