"""A field's rename and a label written from another window meet in the results database (issue 32 item 3)."""

from __future__ import annotations

from triage_app.files.store import ResultStore


def test_a_rename_between_reading_the_renames_and_writing_a_label_never_splits_a_field(tmp_path, monkeypatch):
    """Window B writes a label under "priority" while window A renames priority to urgency: B's read of the
    renames and its write are one transaction, so A's rename comes wholly before (B is redirected) or
    wholly after (it moves B's label): never a label left behind under the old name (issue 32 item 3)."""
    import threading

    from triage_app.files import store as store_module

    a, b = ResultStore(tmp_path / "r.db"), ResultStore(tmp_path / "r.db", timeout=10)
    a.set_person_labels("f.csv", {0: ("h0", "Urgent")}, axis="priority")
    real, main, renames = store_module.followed, threading.current_thread(), []

    def racing(db, file, axis, known):
        found = real(db, file, axis, known)
        if threading.current_thread() is main and not renames:    # B has read the renames: A renames now
            renames.append(threading.Thread(target=a.rename_axis, args=("f.csv", "priority", "urgency")))
            renames[0].start()
            renames[0].join(1.0)
        return found

    monkeypatch.setattr(store_module, "followed", racing)
    b.set_person_labels("f.csv", {1: ("h1", "Low")}, axis="priority", known=frozenset())
    renames[0].join(10)
    monkeypatch.undo()
    held = {axis: {row: label for row, _, label in a.stored_person_labels("f.csv", axis=axis)}
            for axis in a.person_label_axes("f.csv")}
    a.close(), b.close()
    assert held == {"urgency": {0: "Urgent", 1: "Low"}}
