"""Scale-out on Ray: the same labels as the local command, every row exactly once, even after a crash."""

from __future__ import annotations

import argparse
import os

import pandas as pd
import pytest

from cli_helpers import write_rows
from triage_app.engine.config import ModelChoice, RunSettings
from triage_app.engine.labels import LabelSet
from triage_app.scale.recipe import ClassifierRecipe
from triage_app.scale.rows import ROW, RowsNotExactlyOnce, in_order
from triage_app.scale.writer import write_results

TICKETS = 48      # four blocks of BLOCK for two actors: what is checked is each row's place and label
BLOCK = 12
CRASH_TICKETS = 36   # three blocks: the first kills its actor, the others run while it is retried
SMOLLM2_CPU = RunSettings(ModelChoice("smollm2-135m", "cpu", "float32"))
# Ray 2.60's own DataContext() trips the deprecations of fields it sets itself
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")


def blocks(*row_lists):
    return [pd.DataFrame({ROW: rows}) for rows in row_lists]


def test_rows_in_order_exactly_once_pass():
    assert len(list(in_order(blocks([0, 1], [2], [3, 4]), 5))) == 3


@pytest.mark.parametrize("rows, total", [
    (([0, 1], [1, 2]), 3),      # a retried block delivered twice
    (([0, 1], [3]), 4),         # a lost row
    (([0, 1], [2]), 4),         # rows missing at the end
    (([2, 3], [0, 1]), 4),      # out of order
])
def test_rows_not_exactly_once_fail(rows, total):
    with pytest.raises(RowsNotExactlyOnce):
        list(in_order(blocks(*rows), total))


def test_a_failed_check_leaves_no_output(tmp_path):
    out = tmp_path / "out.parquet"
    frames = (pd.DataFrame({"x": [b[ROW].iloc[0]]}) for b in in_order(blocks([0], [0]), 2))
    with pytest.raises(RowsNotExactlyOnce):
        write_results(frames, out, ["a", "b"])
    assert list(tmp_path.iterdir()) == []


def test_ray_arguments():
    from triage_app.scale.command import LOCAL, add_arguments, wants_ray

    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    add_arguments(parser)
    assert not wants_ray(parser.parse_args(["t.csv"]))
    assert parser.parse_args(["t.csv", "--ray"]).ray == LOCAL
    assert parser.parse_args(["--ray=auto", "t.csv"]).ray == "auto"
    args = parser.parse_args(["t.csv", "--ray", "head:6379", "--actors", "4"])
    assert (args.ray, args.actors, args.rows_per_block) == ("head:6379", 4, 512)


def test_a_recipe_checks_its_labels_on_the_driver():
    with pytest.raises(TypeError, match="LabelSet"):
        ClassifierRecipe(RunSettings(), LabelSet.default())
    with pytest.raises(ValueError):
        ClassifierRecipe(RunSettings(), {"labels": [{"name": "only one"}]})
    assert ClassifierRecipe.of(LabelSet.default()).label_set == LabelSet.default()


def test_the_command_line_ships_its_own_settings_and_a_label_file_read_on_the_driver(tmp_path):
    """Every classify option reaches the actors as the local command builds it; the labels file need
    not exist on a worker."""
    import pickle

    from triage_app.cli import options
    from triage_app.cli.parser import build_parser

    labels_file = tmp_path / "only-here.json"
    LabelSet.from_names(["refund", "bug"]).save(labels_file)
    args = build_parser().parse_args(["classify", "t.csv", "-o", "o.csv", "--labels-file", str(labels_file),
                                     "--device", "cuda", "--method", "direct", "--length", "mean",
                                     "--no-buckets", "--max-ticket-tokens", "300", "--ray"])
    recipe = ClassifierRecipe.of(options.label_set(args), options.settings(args))
    labels_file.unlink()
    shipped = pickle.loads(pickle.dumps(recipe))
    assert shipped.label_set.names == ["refund", "bug"] and shipped.device == "cuda"
    assert shipped.settings == options.settings(args)
    assert (shipped.settings.scoring.method, shipped.settings.scoring.length) == ("direct", "mean")
    assert shipped.settings.run.buckets is False and shipped.settings.max_ticket_tokens == 300


def test_the_job_gets_the_cache_and_offline_settings_and_never_a_token(monkeypatch):
    from triage_app.scale.ray_job import worker_env

    wanted = {"TRIAGE_CACHE_DIR": "/cache/triage", "TRIAGE_DATA_DIR": "/data/triage", "HF_HOME": "/cache/hf",
              "HF_HUB_CACHE": "/cache/hf/hub", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    secret = {"HF_TOKEN": "hf_secret", "HUGGING_FACE_HUB_TOKEN": "hf_secret", "HF_TOKEN_PATH": "/home/u/.hf_token",
              "HF_ENDPOINT": "https://user:pass@mirror.example", "TRIAGE_SETTINGS_FILE": "/home/u/settings.ini",
              "TRANSFORMERS_TOKEN": "hf_secret"}
    for name in [k for k in os.environ if k.startswith(("TRIAGE_", "HF_", "HUGGING", "TRANSFORMERS_"))]:
        monkeypatch.delenv(name)
    for name, value in (wanted | secret).items():
        monkeypatch.setenv(name, value)
    assert worker_env() == wanted


def test_an_unusable_results_database_fails_before_ray_starts(tmp_path, monkeypatch):
    pytest.importorskip("ray")
    from triage_app.files.store import StoreUnavailable
    from triage_app.scale import ray_job

    started = []
    monkeypatch.setattr(ray_job, "_start", lambda *args: started.append(args))
    (tmp_path / "t.csv").write_text("id,text\n1,my invoice is wrong\n")
    (tmp_path / "results.db").write_bytes(b"not a database\n" * 100)
    with pytest.raises(StoreUnavailable, match="results.db is damaged or not a SQLite database"):
        ray_job.classify_with_ray(tmp_path / "t.csv", tmp_path / "out.csv", smollm2_recipe(),
                                  db=str(tmp_path / "results.db"))
    assert started == [] and not (tmp_path / "out.csv").exists()


# --- on a real local Ray instance, with the bundled SmolLM2 -----------------------------------------

@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    from triage_app.scale.ray_job import start_local

    start_local(ray, num_cpus=3, object_store_gb=1)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def short_tickets(tmp_path_factory, sample_rows, smollm2):  # smollm2: the converted model is cached first
    # Subjects as the text: real tickets, short enough that the local run takes seconds, not minutes.
    rows = [dict(r, text=r["subject"]) for r in sample_rows[:TICKETS]]
    rows[7] = dict(rows[7], text="")  # a blank ticket keeps its place
    return write_rows(tmp_path_factory.mktemp("scale") / "tickets.csv", rows)


@pytest.fixture(scope="module")
def local_results(short_tickets, tmp_path_factory):
    """What the single-machine command writes for the same file, model and dtype."""
    from triage_app import cli

    folder = tmp_path_factory.mktemp("local")
    out = folder / "local.csv"
    assert cli.main(["classify", str(short_tickets), "-o", str(out), "--model", "smollm2-135m",
                     "--device", "cpu", "--dtype", "float32", "--db", str(folder / "results.db")]) == 0
    return pd.read_csv(out, dtype=str, keep_default_na=False)


def smollm2_recipe():
    return ClassifierRecipe.of(LabelSet.default(), SMOLLM2_CPU)


def test_ray_labels_identical_to_local_command(ray_local, short_tickets, local_results, tmp_path):
    from triage_app import cli

    out = tmp_path / "ray.parquet"
    assert cli.main(["classify", str(short_tickets), "-o", str(out), "--model", "smollm2-135m", "--device", "cpu",
                     "--dtype", "float32", "--db", str(tmp_path / "results.db"), "--ray", "--actors", "2",
                     "--rows-per-block", str(BLOCK)]) == 0
    ray_out = pd.read_parquet(out)
    assert list(ray_out.columns) == list(local_results.columns)
    assert ray_out["id"].tolist() == local_results["id"].tolist()
    labels = ray_out["label"].fillna("").tolist()
    assert labels == local_results["label"].tolist()
    assert labels[7] == "" and ray_out["text"][7] == ""
    for name in LabelSet.default().names:
        ours = ray_out[f"p_{name}"].drop(7).to_numpy()
        theirs = local_results[f"p_{name}"].drop(7).astype(float).to_numpy()
        assert ours == pytest.approx(theirs, abs=1e-4)  # other batch neighbours: float32 rounding only


def test_every_format_is_read_as_the_local_reader_reads_it(ray_local, tmp_path):
    from triage_app.files import reader
    from triage_app.scale.ray_job import _read, _with_row_index, block_texts, input_format

    frame = pd.DataFrame({"id": ["00123", "7"], "text": ["a refund, please\nthanks", ""]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet")
    (tmp_path / "t.jsonl").write_text('{"id": "00123", "text": "a refund, please\\nthanks"}\n{"id": "7"}\n')
    local = reader.read_tickets(tmp_path / "t.csv")
    frame.to_json(tmp_path / "t.json", orient="records")
    for name in ("t.csv", "t.parquet", "t.jsonl", "t.json"):
        path = tmp_path / name
        ds, total, columns = _with_row_index(ray_local, _read(ray_local, path, input_format(path)))
        block = ds.to_pandas()
        assert (total, columns, block[ROW].tolist()) == (2, ["id", "text"], [0, 1]), name
        assert block["id"].tolist() == ["00123", "7"], name
        assert block_texts(block, "text", None) == local.texts("text"), name


def test_row_indexes_run_across_blocks_in_order(ray_local):
    from triage_app.scale.ray_job import _with_row_index

    ds = ray_local.data.from_items([{"n": k} for k in range(10)], override_num_blocks=4)
    indexed, total, columns = _with_row_index(ray_local, ds)
    rows = indexed.to_pandas()
    assert total == 10 and columns == ["n"] and len(indexed.to_arrow_refs()) == 4
    assert rows[ROW].tolist() == rows["n"].tolist() == list(range(10))


def test_a_worker_killed_mid_block_is_retried_and_every_row_comes_once(ray_local, short_tickets,
                                                                      local_results, tmp_path):
    from triage_app.scale.ray_job import classify_with_ray

    marker = str(tmp_path / "crashed")

    class CrashOnce(ClassifierRecipe):
        # The first block any actor gets kills its process, as a lost node or an OOM kill would.
        def build(self):
            classifier = super().build()
            run = classifier.run

            def run_or_die(texts, config):
                if not os.path.exists(marker):
                    open(marker, "w").close()
                    os._exit(1)
                return run(texts, config)

            classifier.run = run_or_die
            return classifier

    recipe = CrashOnce.of(LabelSet.default(), SMOLLM2_CPU)
    out = tmp_path / "ray.csv"
    summary = classify_with_ray(short_tickets, out, recipe, actors=2, rows_per_block=BLOCK, limit=CRASH_TICKETS,
                                db=str(tmp_path / "results.db"))
    assert os.path.exists(marker)
    ray_out = pd.read_csv(out, dtype=str, keep_default_na=False)
    local = local_results.head(CRASH_TICKETS)
    assert summary.rows == len(ray_out) == CRASH_TICKETS
    assert ray_out["id"].tolist() == local["id"].tolist()  # each once, in input order
    assert ray_out["label"].tolist() == local["label"].tolist()


def test_formats_it_cannot_read_or_write_are_one_line_errors(tmp_path, short_tickets):
    from triage_app.files.reader import BadInput
    from triage_app.scale.ray_job import classify_with_ray

    pytest.importorskip("ray")
    with pytest.raises(ValueError, match="writes .parquet or .csv"):
        classify_with_ray(short_tickets, tmp_path / "out.xlsx", smollm2_recipe())
    (tmp_path / "t.xlsx").write_bytes(b"PK")
    with pytest.raises(BadInput, match="local command"):
        classify_with_ray(tmp_path / "t.xlsx", tmp_path / "out.csv", smollm2_recipe())


def test_a_persons_labels_are_found_where_the_local_command_finds_them(ray_local, smollm2, tmp_path):
    """Arrow reads a JSON record's missing key as None and its numbers as numbers: the rows are hashed as the
    local reader reads them, and a ticket that moved (a record added above it) keeps its label."""
    from triage_app.files.reader import read_tickets
    from triage_app.files.store import ResultStore
    from triage_app.files.ticket_keys import file_key, row_hashes
    from triage_app.scale.ray_job import classify_with_ray

    path, db = tmp_path / "t.jsonl", str(tmp_path / "results.db")
    records = ['{"id": 1, "text": "my card was charged twice", "n": 1.50}',
               '{"id": 2, "text": "I cannot log in to my account"}',     # no "n": a cell the row does not have
               '{"id": 3, "text": "the app crashes when I open it", "n": 2}']
    path.write_text("\n".join(records) + "\n")
    hashes = row_hashes(read_tickets(path).frame)
    with ResultStore(db) as store:     # as the window stores them, a label none of the model's answers agree with
        store.set_person_labels(file_key(path), {0: (hashes[0], "account"), 1: (hashes[1], "billing"),
                                                 2: (hashes[2], "billing")})
    path.write_text('{"id": 0, "text": "where is my parcel"}\n' + "\n".join(records) + "\n")
    out = tmp_path / "ray.csv"
    classify_with_ray(path, out, smollm2_recipe(), actors=1, rows_per_block=2, db=db)
    ray_out = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert ray_out["label"].tolist()[1:] == ["account", "billing", "billing"]
    assert ray_out["person"].tolist() == ["False", "True", "True", "True"]
