"""tessera.generate: greedy decoding with a decoder in the layout ONNX
Runtime's LLM builder writes (input_ids, attention_mask,
past_key_values.{i}.key/.value in; logits and present.{i}.* out), as
`tessera generate` does on the command line. The presents of one step are
passed, without a copy, as the next step's pasts."""
import time

import numpy as np


class GenerationResult:
    """The new tokens and the two rates, in tokens per second."""

    def __init__(self, tokens, prefill_tokens_per_s, decode_tokens_per_s):
        self.tokens = tokens
        self.prefill_tokens_per_s = prefill_tokens_per_s
        self.decode_tokens_per_s = decode_tokens_per_s

    def __repr__(self):
        return (f"GenerationResult(tokens={self.tokens}, prefill_tokens_per_s={self.prefill_tokens_per_s:.1f}, "
                f"decode_tokens_per_s={self.decode_tokens_per_s:.1f})")


def generate(session, prompt_tokens, max_new_tokens=16):
    """Greedy decoding: `session` is an InferenceSession (or a model path),
    `prompt_tokens` a list of token ids. Returns a GenerationResult."""
    from . import InferenceSession  # noqa: PLC0415  (the package imports this module)

    if isinstance(session, str):
        session = InferenceSession(session, providers=["CPUExecutionProvider"])
    prompt = [int(t) for t in prompt_tokens]
    if not prompt or min(prompt) < 0:
        raise ValueError("prompt_tokens must be a non-empty list of token ids")
    if max_new_tokens < 1:
        raise ValueError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
    inputs = {i.name: i for i in session.get_inputs()}
    for name in ("input_ids", "attention_mask"):
        if name not in inputs:
            raise ValueError(f"generate expects a decoder with an input '{name}' (ORT's LLM layout)")
    pasts = [n for n in inputs if n.startswith("past_key_values.")]
    presents = ["present." + n[len("past_key_values."):] for n in pasts]
    cache = {}
    for name in pasts:
        shape = inputs[name].shape
        if len(shape) != 4 or not isinstance(shape[1], int) or not isinstance(shape[3], int):
            raise ValueError(f"cache input '{name}' must be (batch, kv_heads, past, head) with known heads and size")
        cache[name] = np.zeros((1, shape[1], 0, shape[3]), np.float32)
    wanted = ["logits"] + presents
    tokens, new, step_input = list(prompt), [], list(prompt)
    prefill = decode = 0.0
    for step in range(max_new_tokens):
        feeds = {"input_ids": np.array([step_input], np.int64), "attention_mask": np.ones((1, len(tokens)), np.int64)}
        feeds.update(cache)
        t0 = time.perf_counter()
        out = session.run(wanted, feeds)
        dt = time.perf_counter() - t0
        if step == 0:
            prefill += dt
        else:
            decode += dt
        token = int(np.argmax(out[0][0, -1]))
        cache = dict(zip(pasts, out[1:]))
        tokens.append(token)
        new.append(token)
        step_input = [token]
    return GenerationResult(new, len(prompt) / prefill, (max_new_tokens - 1) / decode if decode > 0 else 0.0)
