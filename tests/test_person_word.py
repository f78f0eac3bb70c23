"""One word names a label a person gave: `person`. The export's column says it, and the command
line's flag; the flag's old name is still read, so a script written for it keeps working."""

from __future__ import annotations

import math

import pandas as pd

from triage_app.cli.parser import build_parser
from triage_app.engine.classifier import Prediction
from triage_app.files.export import results_frame

NAMES = ["billing", "account"]


def test_the_export_column_of_a_persons_labels_is_person():
    frame = pd.DataFrame({"text": ["refund me", "password"]}, dtype=object)
    predictions = [Prediction(0, NAMES, [math.log(0.9), math.log(0.1)]),
                   Prediction(1, NAMES, [math.log(0.05), math.log(0.95)])]
    out = results_frame(frame, predictions, NAMES, person_labels={1: "billing"})
    assert out["person"].tolist() == [False, True] and out["label"].tolist() == ["billing", "billing"]
    assert "manual" not in out.columns  # its old name: no column of that name any more
    assert out["source"].tolist() == ["model", "person"]


def test_the_flag_that_names_a_persons_labels_is_person_labels_and_its_old_name_still_works():
    parser = build_parser()
    args = ["classify", "tickets.csv", "-o", "out.csv"]
    assert parser.parse_args([*args, "--person-labels", "queue"]).person_labels == "queue"
    old = [*args, "--learn-from", "queue"]  # its old name
    assert parser.parse_args(old).person_labels == "queue"
