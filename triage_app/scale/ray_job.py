"""A file's run on Ray Data: read, score on a pool of actors, write one ordered file.

Each actor builds its Classifier once (model loaded once) and runs the engine's fast path on every
block it is given, so length buckets and the prompt-prefix cache work inside each block exactly as
on one machine. Ray restarts a dead actor and retries its block; every row carries its input index,
and the writer checks that each index comes back exactly once, in order.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from triage_app.engine.axes import PLAIN
from triage_app.files import reader
from triage_app.files.clean import TextCleaning, model_texts
from triage_app.files.delimiters import DELIMITERS
from triage_app.files.export import REVIEW_BELOW
from triage_app.files.label_places import labels_as_read
from triage_app.files.ticket_keys import file_key, ticket_row_hashes
from triage_app.scale.recipe import ClassifierRecipe
from triage_app.scale.rows import CARRIED, FALLBACK, ROW, SCORES, TRUNCATED, add_row_index, in_order, num_rows
from triage_app.scale.writer import block_results, output_format, write_results

INPUT_FORMATS = ("csv", "tsv", "parquet", "jsonl", "json")
# What a worker needs to find the same converted model and hub cache, and to stay offline when
# this process is. Named one by one: a prefix would also send HF_TOKEN and whatever else a user
# keeps in the environment into every job on the cluster.
FORWARDED_ENV = ("TRIAGE_CACHE_DIR", "TRIAGE_DATA_DIR", "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE",
                 "TRANSFORMERS_OFFLINE")


class RayNotInstalled(ValueError):
    """Ray is an optional extra; a ValueError so the command line prints it as one line."""


@dataclass(slots=True)
class RayRunSummary:
    rows: int
    seconds: float
    actors: int
    output: Path

    @property
    def items_per_s(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0


class TicketScorer:
    """One Ray actor: builds the Classifier once, then scores whole blocks with the fast path."""

    def __init__(self, recipe: ClassifierRecipe, text_column: str, subject_column: str | None, threads: int,
                 cleaning: TextCleaning = TextCleaning()):
        import torch

        # Ray sets OMP_NUM_THREADS=1 for workers; an actor that holds N CPUs should use them.
        torch.set_num_threads(max(1, threads))
        self.classifier = recipe.build()
        self.config = recipe.settings.run
        self.text_column = text_column
        self.subject_column = subject_column
        self.cleaning = cleaning

    def __call__(self, block: pd.DataFrame) -> pd.DataFrame:
        # As the local job does: cleaned, stripped texts, each distinct one classified once per block.
        raw = block_texts(block, self.text_column, self.subject_column)
        texts = model_texts(raw, self.cleaning)
        distinct = list(dict.fromkeys(texts))
        found = {}
        for done in self.classifier.run(distinct, self.config):
            found |= {distinct[p.index]: p for p in done.predictions}
        rows = [found[t] for t in texts]
        return block.assign(**{SCORES: [p.scores for p in rows], TRUNCATED: [p.truncated for p in rows],
                               FALLBACK: [p.fallback for p in rows]})


def block_texts(block: pd.DataFrame, text: str, subject: str | None) -> list[str]:
    """The ticket texts of a block, built as the local reader builds them."""
    # the local reader gives "" for a missing cell; Arrow gives None
    frame = block[[c for c in (text, subject) if c]].fillna("").astype(str)
    return reader.TicketTable(Path("block"), frame, "block").texts(text, subject)


def classify_with_ray(input: str | Path, output: str | Path, recipe: ClassifierRecipe, *, text_column: str | None = None,
                      with_subject: bool = False, limit: int | None = None, address: str | None = None,
                      actors: int = 1, cpus_per_actor: int | None = None, gpus_per_actor: float | None = None,
                      rows_per_block: int = 512, object_store_gb: float = 1.5,
                      db: str | None = None, excel_bom: bool = False,
                      review_below: float = REVIEW_BELOW, cleaning: TextCleaning = TextCleaning()) -> RayRunSummary:
    """Classify a CSV/TSV/Parquet/JSONL file on Ray; write Parquet or CSV with the local command's columns.

    address None starts a local Ray instance (shut down again at the end); "auto" or "host:port"
    joins a running cluster. A Ray already initialised in this process is used as it is.
    gpus_per_actor None: one GPU per actor where the cluster has GPUs (and device is not "cpu").
    A dead actor (process killed, node lost) is restarted and its block retried by Ray Data,
    whose defaults for actor pools are unlimited restarts and retries (max_restarts=-1,
    max_task_retries=-1); Ray 2.60 deprecates setting them per call, so they are left at that.
    An exception raised by the engine is not retried: it would only fail the same way again.
    db: the results database whose labels a person gave win, as in the local command.
    recipe: the model, scoring and run options, and the label set, as the actors build them.
    cleaning: what the actors do to each ticket's text before scoring, as the local run does.
    """
    ray = _import_ray()
    from ray.data import ActorPoolStrategy, DataContext

    from triage_app.files.store import ResultStore

    output_format(output)
    fmt = input_format(Path(input))
    if actors < 1:
        raise ValueError(f"need at least one actor, not {actors}")
    cpus = cpus_per_actor or (1 if address else max(1, (os.cpu_count() or 1) // actors))
    # a database it cannot use fails now, before Ray starts or a model loads
    with ResultStore(db) as store:
        started_here = _start(ray, address, actors * cpus, object_store_gb)
        context = DataContext.get_current()
        keep_order = context.execution_options.preserve_order
        try:
            # blocks leave map_batches in input order, so the writer can stream instead of sorting
            context.execution_options.preserve_order = True
            start = time.perf_counter()
            ds = _read(ray, Path(input), fmt)
            if limit:
                ds = ds.limit(limit)
            ds, total, columns = _with_row_index(ray, ds)
            if not total:
                raise reader.BadInput(f"{Path(input).name}: the file has no tickets")
            text, subject = _text_columns(Path(input), fmt, columns, text_column, with_subject)
            # no actor idle for want of a block on a small file
            rows_per_block = max(1, min(rows_per_block, -(-total // actors)))
            ds = ds.repartition(target_num_rows_per_block=rows_per_block)
            gpus = _gpus_per_actor(ray, recipe) if gpus_per_actor is None else gpus_per_actor
            scored = ds.map_batches(
                TicketScorer, fn_constructor_args=(recipe, text, subject, cpus, cleaning),
                batch_format="pandas", batch_size=rows_per_block, compute=ActorPoolStrategy(size=actors),
                num_cpus=cpus, num_gpus=gpus or None)
            label_names = recipe.label_set.names
            given = _person_labels(store, Path(input), label_names, limit)

            def person_labels(frame, rows):
                return {i: given[row] for i, row in enumerate(rows) if row in given}

            blocks = in_order(scored.iter_batches(batch_size=None, batch_format="pandas"), total)
            frames = (block_results(block, label_names, person_labels, review_below) for block in blocks)
            write_results(frames, output, label_names, _arrow_types(ds, columns), excel_bom)
            return RayRunSummary(total, time.perf_counter() - start, actors, Path(output))
        finally:
            context.execution_options.preserve_order = keep_order
            if started_here:
                ray.shutdown()


def _person_labels(store, input: Path, names: list[str], limit: int | None) -> dict[int, str]:
    """{row: label} a person gave the file in the window, of these label names, where the local command finds
    them: the rows are hashed as the local reader reads them (Arrow reads a JSON number or a missing key
    otherwise), on this machine, and only where the database holds labels for the file. An older database's
    labels kept by text are not adopted here: the window or the local command adopts them."""
    key = file_key(input)
    if not store.stored_person_labels(key, True):
        return {}
    table = reader.read_tickets(input, limit=limit)
    found = labels_as_read(store, key, ticket_row_hashes(table), None, PLAIN, bool(limit)).labels
    return {row: label for row, label in found.items() if label in names}


def start_local(ray, num_cpus: int | None = None, object_store_gb: float = 1.5) -> None:
    """A local Ray with modest memory and no dashboard; workers see this process's settings."""
    ray.init(num_cpus=num_cpus, object_store_memory=int(object_store_gb * 2**30), include_dashboard=False,
             runtime_env={"env_vars": worker_env()}, log_to_driver=False)


def worker_env() -> dict[str, str]:
    return {k: os.environ[k] for k in FORWARDED_ENV if k in os.environ}


def _import_ray():
    try:
        import ray
    except ImportError:
        raise RayNotInstalled("Ray is not installed: pip install 'triage-app[ray]'") from None
    return ray


def _start(ray, address, actor_cpus, object_store_gb) -> bool:
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, runtime_env={"env_vars": worker_env()})
    else:
        # Logical CPUs, not cores: one more than the actors hold, so reading and the row
        # index can always be scheduled while every actor is busy.
        start_local(ray, max(os.cpu_count() or 1, actor_cpus) + 1, object_store_gb)
    return True


def input_format(path: Path) -> str:
    if not path.is_file():
        raise reader.BadInput(f"{path}: no such file")
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in INPUT_FORMATS:
        raise reader.BadInput(f"{path.name}: a Ray run reads .{', .'.join(INPUT_FORMATS)} "
                              "(XLSX and legacy encodings: use the local command)")
    return fmt


def _read(ray, path: Path, fmt: str):
    if fmt == "parquet":
        return ray.data.read_parquet(str(path))
    if fmt in ("jsonl", "json"):
        # Arrow's reader (one object a line; a JSON array falls back to json.load) keeps "00123" a
        # string; lines=True goes through pandas, which would make it the number 123
        return ray.data.read_json(str(path))
    return _read_delimited(ray, path, fmt)


def _read_delimited(ray, path: Path, fmt: str):
    import csv

    import pyarrow as pa
    from pyarrow import csv as pacsv

    with open(path, encoding="utf-8-sig", newline="") as f:
        head = f.read(65536)
    delimiter = "\t" if fmt == "tsv" else csv.Sniffer().sniff(head, delimiters=DELIMITERS).delimiter
    header = next(csv.reader([head.splitlines()[0]], delimiter=delimiter)) if head.strip() else []
    if not header:
        raise reader.BadInput(f"{path.name}: the file is empty")
    # every cell as text, as the local reader reads it: "00123" stays "00123", "" stays ""
    convert = pacsv.ConvertOptions(column_types={c: pa.string() for c in header}, strings_can_be_null=False,
                                   quoted_strings_can_be_null=False)
    parse = pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True)
    return ray.data.read_csv(str(path), parse_options=parse, convert_options=convert)


def _with_row_index(ray, ds):
    """The input with each row's index fixed once, its row count and its columns.

    The read is materialized in the object store with blocks in file order (preserve_order);
    each block then gets the rows before it as its offset. A retried or reconstructed block
    downstream carries the same indexes, so the writer can check them.
    """
    refs = ds.to_arrow_refs()
    columns = ds.columns()  # known once the read ran
    if ROW in columns:
        raise reader.BadInput(f"the input has a column {ROW!r}, a name the Ray run reserves")
    counts = ray.get([ray.remote(num_rows).remote(ref) for ref in refs])
    offsets = [sum(counts[:k]) for k in range(len(counts))]
    indexed = [ray.remote(add_row_index).remote(ref, offset) for ref, offset in zip(refs, offsets)]
    return ray.data.from_arrow_refs(indexed), sum(counts), columns


def _text_columns(path, fmt, columns, text_column, with_subject):
    table = reader.TicketTable(path, pd.DataFrame(columns=columns), fmt)
    bad = [c for c in columns if c in CARRIED]
    if bad:
        raise reader.BadInput(f"{path.name}: column name(s) {', '.join(bad)} are reserved for the Ray run")
    text = reader.check_column(table, text_column) if text_column else reader.detect_text_column(table)
    return text, reader.detect_subject_column(table) if with_subject else None


def _gpus_per_actor(ray, recipe: ClassifierRecipe) -> float:
    if recipe.device == "cpu":
        return 0
    return 1 if ray.cluster_resources().get("GPU", 0) >= 1 else 0


def _arrow_types(ds, columns) -> dict:
    import pyarrow as pa

    schema = ds.schema().base_schema
    return {c: schema.field(c).type for c in columns} if isinstance(schema, pa.Schema) else {}
