"""Learning from a person while they review: their labels in the window (person_labelling.py), retrains
off the UI thread (live), the window side of it (session: status line, next to label, skipping the
model) and a half-filled column offered as labels (column_offer)."""
