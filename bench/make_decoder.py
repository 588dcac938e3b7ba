#!/usr/bin/python3
"""Writes a Llama-shaped decoder in the form ONNX Runtime's LLM builder
gives such models, with random weights from a fixed seed:

  inputs   input_ids (B, S) int64, attention_mask (B, T) int64,
           past_key_values.{i}.key / .value (B, kv_heads, P, head) float
  outputs  logits (B, S, vocab), present.{i}.key / .value (B, kv_heads, T, head)
  per layer: (Skip)SimplifiedLayerNormalization, MatMulNBits 4-bit Q/K/V/O and
  gate/up/down projections, GroupQueryAttention with rotary embeddings inside
  and the KV cache in and out, SiLU-gated MLP; a 4-bit MatMulNBits LM head.

    /usr/bin/python3 bench/make_decoder.py OUT.onnx [--preset 0.5b|tiny] [--seed N] [--accuracy-level 0|4]

The default preset has about 0.5B parameters (hidden 1536, 18 layers, MLP
4096, 16 query and 4 KV heads, vocabulary 32000); `tiny` is for tests.
Weights are drawn directly in their packed form (uint8 nibbles, float
scales): quantizing float weights would take minutes and change nothing
the benchmark measures. --accuracy-level 4 sets MatMulNBits' accuracy_level
to int8, as ORT's LLM builder does for CPU with int4_accuracy_level=4 (the
runtime may then quantize activations to int8); the default, 0, leaves it
unset.
"""
import argparse
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

PRESETS = {
    "0.5b": dict(hidden=1536, layers=18, mlp=4096, heads=16, kv_heads=4, vocab=32000, max_pos=4096),
    "tiny": dict(hidden=64, layers=2, mlp=128, heads=4, kv_heads=2, vocab=96, max_pos=64),
}
BLOCK = 32
MS = "com.microsoft"


class Builder:
    def __init__(self, rng, accuracy_level=0):
        self.rng, self.nodes, self.inits = rng, [], []
        self.nbits_attrs = {"accuracy_level": accuracy_level} if accuracy_level else {}

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0] + "_node", domain=domain, **attrs))
        return outputs[0]

    def nbits(self, x, name, k, n):
        """MatMulNBits over a random 4-bit (N, K) weight with block scales."""
        blocks = k // BLOCK
        packed = self.rng.integers(0, 256, (n, blocks, BLOCK // 2), dtype=np.uint8)
        # Scales so that the product keeps unit variance: weights of about
        # 1/sqrt(K) with 4-bit values centered on 8 (spread ~4.6).
        scales = np.full((n, blocks), 1.0 / (4.6 * math.sqrt(k)), np.float32)
        scales *= self.rng.uniform(0.8, 1.2, (n, blocks)).astype(np.float32)
        zp = np.full((n, (blocks + 1) // 2), 0x88, np.uint8)
        return self.node("MatMulNBits", [x, self.const(name + ".qweight", packed), self.const(name + ".scales", scales),
                                         self.const(name + ".zp", zp)], [name], domain=MS,
                         K=k, N=n, bits=4, block_size=BLOCK, **self.nbits_attrs)


def build(cfg, seed, accuracy_level=0):
    rng = np.random.default_rng(seed)
    b = Builder(rng, accuracy_level)
    h, heads, kv, head = cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["hidden"] // cfg["heads"]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total_sequence"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "sequence", cfg["vocab"]])]
    embed = b.const("embed_tokens", (rng.standard_normal((cfg["vocab"], h)) * 0.02).astype(np.float32))
    x = b.node("Gather", [embed, "input_ids"], ["embeddings"])
    # GroupQueryAttention's lengths from the mask: tokens per row - 1, and the longest.
    total = b.node("ReduceSum", ["attention_mask", b.const("axis_1", np.array([1], np.int64))], ["mask_sum"], keepdims=0)
    seqlens = b.node("Sub", [total, b.const("one_i64", np.array(1, np.int64))], ["seqlens_k_i64"])
    seqlens = b.node("Cast", [seqlens], ["seqlens_k"], to=TensorProto.INT32)
    shape = b.node("Shape", ["attention_mask"], ["mask_shape"])
    total_len = b.node("Gather", [shape, b.const("index_1", np.array(1, np.int64))], ["total_len_i64"], axis=0)
    total_len = b.node("Cast", [total_len], ["total_sequence_length"], to=TensorProto.INT32)
    theta = np.outer(np.arange(cfg["max_pos"]), 1.0 / 10000 ** (np.arange(head // 2) * 2.0 / head))
    cos = b.const("cos_cache", np.cos(theta).astype(np.float32))
    sin = b.const("sin_cache", np.sin(theta).astype(np.float32))
    ones = lambda name: b.const(name, (1.0 + 0.1 * rng.standard_normal(h)).astype(np.float32))  # noqa: E731
    residual, delta = x, None
    for i in range(cfg["layers"]):
        p = f"layers.{i}"
        if delta is None:
            normed = b.node("SimplifiedLayerNormalization", [x, ones(p + ".ln1")], [p + ".ln1_out"], epsilon=1e-5)
        else:
            normed = b.node("SkipSimplifiedLayerNormalization", [delta, residual, ones(p + ".ln1")],
                            [p + ".ln1_out", "", "", p + ".residual1"], domain=MS, epsilon=1e-5)
            residual = p + ".residual1"
        q = b.nbits(normed, p + ".q_proj", h, heads * head)
        k = b.nbits(normed, p + ".k_proj", h, kv * head)
        v = b.nbits(normed, p + ".v_proj", h, kv * head)
        past_k, past_v = f"past_key_values.{i}.key", f"past_key_values.{i}.value"
        for name in (past_k, past_v):
            inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", kv, "past_sequence", head]))
        pres_k, pres_v = f"present.{i}.key", f"present.{i}.value"
        for name in (pres_k, pres_v):
            outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", kv, "total_sequence", head]))
        attn = b.node("GroupQueryAttention", [q, k, v, past_k, past_v, seqlens, total_len, cos, sin],
                      [p + ".attn", pres_k, pres_v], domain=MS, num_heads=heads, kv_num_heads=kv, do_rotary=1)
        o = b.nbits(attn, p + ".o_proj", heads * head, h)
        normed2 = b.node("SkipSimplifiedLayerNormalization", [o, residual, ones(p + ".ln2")],
                         [p + ".ln2_out", "", "", p + ".residual2"], domain=MS, epsilon=1e-5)
        residual = p + ".residual2"
        gate = b.nbits(normed2, p + ".gate_proj", h, cfg["mlp"])
        up = b.nbits(normed2, p + ".up_proj", h, cfg["mlp"])
        silu = b.node("Mul", [gate, b.node("Sigmoid", [gate], [p + ".gate_sigmoid"])], [p + ".gate_silu"])
        delta = b.nbits(b.node("Mul", [silu, up], [p + ".mlp_in"]), p + ".down_proj", cfg["mlp"], h)
    final = b.node("SkipSimplifiedLayerNormalization", [delta, residual, ones("final_norm")], ["final_normed"],
                   domain=MS, epsilon=1e-5)
    b.nbits(final, "logits", h, cfg["vocab"])
    graph = helper.make_graph(b.nodes, "decoder", inputs, outputs, initializer=b.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
                             ir_version=8, producer_name="tessera-bench-decoder")


def step_feeds(cfg, step_tokens, total_tokens, cache=None):
    """The feeds of one greedy step: `step_tokens` new ids, an all-ones mask
    over `total_tokens`, and the pasts (`cache`: the previous step's present
    arrays by layer and part, or None for the empty cache of a first step)."""
    kv, head = cfg["kv_heads"], cfg["hidden"] // cfg["heads"]
    feeds = {"input_ids": np.array([step_tokens], np.int64), "attention_mask": np.ones((1, total_tokens), np.int64)}
    for i in range(cfg["layers"]):
        for part in ("key", "value"):
            name = f"past_key_values.{i}.{part}"
            feeds[name] = cache[(i, part)] if cache else np.zeros((1, kv, 0, head), np.float32)
    return feeds


def presents(cfg, names, outputs):
    """The present arrays of a run's outputs, by (layer, part)."""
    return {(i, part): outputs[names.index(f"present.{i}.{part}")] for i in range(cfg["layers"])
            for part in ("key", "value")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="0.5b")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--accuracy-level", type=int, choices=(0, 4), default=0)
    args = ap.parse_args()
    cfg = PRESETS[args.preset]
    model = build(cfg, args.seed, args.accuracy_level)
    params = sum(int(np.prod(t.dims)) * (2 if t.name.endswith(".qweight") else 1) for t in model.graph.initializer
                 if not t.name.endswith((".scales", ".zp")))
    with open(args.out, "wb") as f:
        f.write(model.SerializeToString())
    print(f"{args.out}: {args.preset}, {params / 1e6:.0f}M parameters, {len(model.graph.node)} nodes")


if __name__ == "__main__":
    main()
