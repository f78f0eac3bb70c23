"""The right-hand column (side): the model and where it runs (model_choice), a run as it happens
(run_progress), the label editor (label_editor), accuracy against a gold column (accuracy), the
prompt as the model reads it (prompt_preview); and the message bar above the table (message_bar)."""
