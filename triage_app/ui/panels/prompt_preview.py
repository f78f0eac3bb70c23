"""The prompt the model sees, read-only: the static prefix and the per-ticket part told apart."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextEdit, QVBoxLayout

NO_MODEL = ("The prompt is written with the model's own chat template and counted with its tokenizer, "
            "so it is shown once a model is loaded. Load a model (Model ▸ Load) and open this again.")
_PREFIX_STYLE = "background:#eef3f8; color:#223;"
_TICKET_STYLE = "background:#fff1c1; color:#402; font-weight:bold;"
_TAIL_STYLE = "background:#e3f4e1; color:#132;"


class PromptPreview(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("The prompt the model sees")
        self.resize(760, 620)
        layout = QVBoxLayout(self)
        self.summary = QLabel(NO_MODEL)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.text = QTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        layout.addWidget(self.text, 1)
        self.legend = QLabel(_legend(channel=False))
        self.legend.setWordWrap(True)
        layout.addWidget(self.legend)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)

    def show_waiting(self, has_model: bool) -> None:
        self.summary.setText("Building the prompt…" if has_model else NO_MODEL)
        self.text.clear()

    def show_prompt(self, info) -> None:
        """info: a worker PromptInfo."""
        labels = ", ".join(f"{name} ({n} token{'s' * (n != 1)})" for name, n in info.label_tokens.items())
        warnings = "".join(f"<br><span style='color:#a00'>{html.escape(w)}</span>" for w in info.warnings)
        if info.channel_label:
            self.summary.setText(f"Channel scoring: one prompt per label, this one for "
                                 f"<b>{html.escape(info.channel_label)}</b> ({info.prefix_tokens:,} tokens, computed "
                                 f"once per run). A label's score is how likely the ticket's own words are after "
                                 f"its prompt.")
        else:
            self.summary.setText(f"Static prefix: <b>{info.prefix_tokens:,} tokens</b>, computed once per run and "
                                 f"reused for every ticket. Each answer is scored as one of: {html.escape(labels)}."
                                 f"{warnings}")
        self.legend.setText(_legend(channel=bool(info.channel_label)))
        ticket = info.ticket or "‹the ticket's text›"
        self.text.setHtml(f"<pre style='white-space:pre-wrap; font-family:monospace'>"
                          f"<span style='{_PREFIX_STYLE}'>{html.escape(info.prefix)}</span>"
                          f"<span style='{_TICKET_STYLE}'>{html.escape(ticket)}</span>"
                          f"<span style='{_TAIL_STYLE}'>{html.escape(info.tail)}</span></pre>")

    @property
    def plain_text(self) -> str:
        return self.text.toPlainText()


def _legend(channel: bool) -> str:
    prefix = f'<span style="{_PREFIX_STYLE}">&nbsp;static prefix: computed once, reused for every ticket&nbsp;</span>'
    if channel:
        return prefix + f' &nbsp; <span style="{_TICKET_STYLE}">&nbsp;the ticket: its tokens are scored&nbsp;</span>'
    return (prefix + f' &nbsp; <span style="{_TICKET_STYLE}">&nbsp;the ticket&nbsp;</span> &nbsp; '
            f'<span style="{_TAIL_STYLE}">&nbsp;per-ticket end, then the label is scored&nbsp;</span>')
