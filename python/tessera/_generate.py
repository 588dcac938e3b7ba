"""tessera.generate: greedy decoding with a decoder in the layout ONNX
Runtime's LLM builder writes (input_ids, attention_mask,
past_key_values.{i}.key/.value in; logits and present.{i}.* out), as
`tessera generate` does on the command line. Where the model's attention
can keep its cache in one buffer (GroupQueryAttention), each cache is
allocated once for the whole run and bound as both past and present
(IOBinding), so a step writes only its new rows; other caches grow, the
presents of one step passed without a copy as the next step's pasts."""
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
    from . import InferenceSession, OrtValue  # noqa: PLC0415  (the package imports this module)

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
    slots = session._sess.kv_cache_slots()
    capacity = len(prompt) + max_new_tokens
    cache, shared = {}, {}
    for past, present, shares in slots:
        shape = inputs[past].shape
        if len(shape) != 4 or not isinstance(shape[1], int) or not isinstance(shape[3], int):
            raise ValueError(f"cache input '{past}' must be (batch, kv_heads, past, head) with known heads and size")
        if shares:
            # Tessera's own (zeroed, 64-byte aligned) memory, which kernels write in place.
            shared[present] = OrtValue.ortvalue_from_shape_and_type((1, shape[1], capacity, shape[3]), np.float32)
            cache[past] = shared[present]
        else:
            cache[past] = OrtValue.ortvalue_from_shape_and_type((1, shape[1], 0, shape[3]), np.float32)
    binding = session.io_binding()
    binding.bind_output("logits")
    for past, present, shares in slots:
        if shares:
            binding.bind_ortvalue_output(present, shared[present])
        else:
            binding.bind_output(present)
    tokens, new, step_input = list(prompt), [], list(prompt)
    prefill = decode = 0.0
    for step in range(max_new_tokens):
        binding.bind_cpu_input("input_ids", np.array([step_input], np.int64))
        binding.bind_cpu_input("attention_mask", np.ones((1, len(tokens)), np.int64))
        for past, _, _ in slots:
            binding.bind_ortvalue_input(past, cache[past])
        t0 = time.perf_counter()
        session.run_with_iobinding(binding)
        dt = time.perf_counter() - t0
        if step == 0:
            prefill += dt
        else:
            decode += dt
        out = binding.get_outputs()
        token = int(np.argmax(out[0].numpy()[0, -1]))
        for i, (past, _, shares) in enumerate(slots):
            if not shares:
                cache[past] = out[i + 1]
        tokens.append(token)
        new.append(token)
        step_input = [token]
    return GenerationResult(new, len(prompt) / prefill, (max_new_tokens - 1) / decode if decode > 0 else 0.0)
