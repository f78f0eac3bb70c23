"""A tiny Qwen2 (q/k/v biases, grouped-query attention) with its own freshly trained BPE tokenizer.

The tokenizer is trained without a pre-tokenizer split, so its merges cross spaces and newlines:
unlike SmolLM2's, it sometimes breaks the prefix/suffix cut, which exercises the fallback path.
Random weights make many label decisions genuine near-ties.
"""

from __future__ import annotations

import torch

from triage_app.engine import device
from triage_app.engine.models import LoadedModel
from triage_app.bench.workloads import load_sample

CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
          "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


def train_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = [r["text"] for r in load_sample()]
    # chat-formatted lines teach it merges across the end of "user\n" and the start of a ticket
    corpus = texts + [f"user\n{t}" for t in texts] + ["billing technical account system user assistant"] * 20
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.chat_template = CHATML
    return fast


def load_tiny_qwen(dtype: str = "float32", positions: int = 512) -> LoadedModel:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    tokenizer = train_tokenizer()
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=positions,
                         initializer_range=0.2, tie_word_embeddings=True)
    placement = device.choose("cpu", dtype)
    model = Qwen2ForCausalLM(config).to(dtype=placement.dtype).eval()
    return LoadedModel("tiny-qwen2", "tiny random Qwen2 (tests)", tokenizer, model, placement)
