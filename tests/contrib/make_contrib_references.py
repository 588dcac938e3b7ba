#!/usr/bin/python3
"""Writes the com.microsoft operator tests in tests/data/contrib/: one small
model per op and attribute variant, in the ONNX backend-test layout
(model.onnx, test_data_set_0/input_K.pb, output_K.pb), so `tessera
conformance tests/data/contrib` runs them like the ONNX node tests.

The expected outputs come from an oracle Tessera did not write: ONNX Runtime
1.30 (npm onnxruntime-node, through tests/support/ort_run.js), which runs
these ops on its CPU EP. For the ops ORT 1.30 has no CPU kernel for
(BiasAdd, BiasSplitGelu, BiasSoftmax) the reference is the documented
formula in float64 numpy, rounded to the tensor's type.

    /usr/bin/python3 tests/contrib/make_contrib_references.py [OUT_DIR]

Needs Debian's python3-onnx and ORT from scripts/setup.sh (or ORT_NODE_PATH).
The outputs are committed; rerun this after changing a case.
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RUNNER = os.path.join(ROOT, "tests", "support", "ort_run.js")
MS = "com.microsoft"
NP_TO_ONNX = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.float16: TensorProto.FLOAT16,
              np.int64: TensorProto.INT64, np.int32: TensorProto.INT32, np.int8: TensorProto.INT8,
              np.uint8: TensorProto.UINT8, np.int16: TensorProto.INT16, np.uint16: TensorProto.UINT16}


class Case:
    """One test: a single node over graph inputs (name -> array), optional
    outputs left out with "" in `outputs`. reference: None = ORT, else a
    function of the input arrays returning the outputs."""

    def __init__(self, name, op, inputs, outputs, attrs=None, domain=MS, opset=17, reference=None, out_types=None,
                 consts=None, node_inputs=None):
        self.name, self.op, self.inputs, self.outputs = name, op, inputs, outputs
        self.attrs, self.domain, self.opset, self.reference = attrs or {}, domain, opset, reference
        self.out_types = out_types or {}
        self.consts = consts or {}  # initializers (weights), not fed
        # The node's input list ("" for an omitted optional one); default:
        # the fed inputs, then the constants.
        self.node_inputs = node_inputs or list(self.inputs) + list(self.consts)

    def model(self):
        ins = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype.type], a.shape) for n, a in self.inputs.items()]
        elem = NP_TO_ONNX[next(iter(self.inputs.values())).dtype.type]
        outs = [helper.make_tensor_value_info(o, self.out_types.get(o, elem), None) for o in self.outputs if o]
        node = helper.make_node(self.op, self.node_inputs, self.outputs, domain=self.domain, **self.attrs)
        inits = [numpy_helper.from_array(a, n) for n, a in self.consts.items()]
        graph = helper.make_graph([node], self.name, ins, outs, initializer=inits)
        opsets = [helper.make_opsetid("", self.opset)]
        if self.domain == MS:
            opsets.append(helper.make_opsetid(MS, 1))
        return helper.make_model(graph, opset_imports=opsets, ir_version=8, producer_name="tessera-contrib-tests")


def rng_normal(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def gelu64(x):
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def bias_softmax64(axis):
    def ref(data, bias):
        z = data.astype(np.float64) + bias.astype(np.float64)
        shape = z.shape
        flat = z.reshape(int(np.prod(shape[:axis], dtype=np.int64)), -1)
        e = np.exp(flat - flat.max(axis=1, keepdims=True))
        return [(e / e.sum(axis=1, keepdims=True)).reshape(shape).astype(data.dtype)]
    return ref


def cases():
    rng = np.random.default_rng(2026)
    r = lambda *s, dtype=np.float32: rng_normal(rng, *s, dtype=dtype)  # noqa: E731
    out = []
    # ---- the Gelu family ----
    out.append(Case("gelu", "Gelu", {"x": r(2, 3, 8) * 3}, ["y"]))
    out.append(Case("gelu_double", "Gelu", {"x": r(4, 5, dtype=np.float64) * 3}, ["y"],
                    reference=lambda x: [gelu64(x)]))
    out.append(Case("bias_gelu", "BiasGelu", {"a": r(2, 3, 8) * 2, "b": r(8)}, ["y"]))
    out.append(Case("fast_gelu_bias", "FastGelu", {"x": r(2, 3, 16) * 2, "bias": r(16)}, ["y"]))
    out.append(Case("fast_gelu", "FastGelu", {"x": r(3, 7) * 4}, ["y"]))
    out.append(Case("quick_gelu", "QuickGelu", {"x": r(2, 9) * 4}, ["y"]))
    out.append(Case("quick_gelu_alpha", "QuickGelu", {"x": r(2, 9) * 4}, ["y"], {"alpha": 1.25}))
    # ---- bias fusions ORT 1.30 runs only on GPUs: the documented formulas ----
    out.append(Case("bias_add", "BiasAdd", {"x": r(2, 4, 8), "bias": r(8), "skip": r(2, 4, 8)}, ["y"],
                    reference=lambda x, b, s: [(x.astype(np.float64) + b + s).astype(np.float32)]))

    def split_gelu(x, b):
        z = x.astype(np.float64) + b
        h = z.shape[-1] // 2
        return [(z[..., :h] * gelu64(z[..., h:])).astype(np.float32)]
    out.append(Case("bias_split_gelu", "BiasSplitGelu", {"x": r(2, 3, 16) * 2, "bias": r(16)}, ["y"],
                    reference=split_gelu))
    # scores (B, N, S, S) with a mask over keys: inner broadcast (1 on the head
    # and query axes), and a bias repeated over the batch: outer broadcast.
    out.append(Case("bias_softmax_inner", "BiasSoftmax", {"data": r(2, 3, 4, 5), "bias": r(2, 1, 1, 5) * 3}, ["y"],
                    {"axis": 3, "is_inner_broadcast": 1}, reference=bias_softmax64(3)))
    out.append(Case("bias_softmax_outer", "BiasSoftmax", {"data": r(2, 3, 4, 5), "bias": r(1, 3, 4, 5)}, ["y"],
                    {"axis": 3, "is_inner_broadcast": 0}, reference=bias_softmax64(3)))
    out.append(Case("bias_softmax_axis1", "BiasSoftmax", {"data": r(2, 3, 4), "bias": r(2, 3, 4)}, ["y"],
                    {"axis": 1, "is_inner_broadcast": 0}, reference=bias_softmax64(1)))
    # ---- normalizations ----
    h = 16
    ln_in = lambda: {"input": r(2, 3, h) * 2, "skip": r(2, 3, h)}  # noqa: E731
    out.append(Case("skip_layer_norm", "SkipLayerNormalization",
                    {**ln_in(), "gamma": r(h), "beta": r(h), "bias": r(h)}, ["y", "", "", "sum"],
                    {"epsilon": 1e-5}))
    out.append(Case("skip_layer_norm_gamma_only", "SkipLayerNormalization", {**ln_in(), "gamma": r(h)}, ["y"]))
    out.append(Case("skip_layer_norm_skip_2d", "SkipLayerNormalization",
                    {"input": r(2, 3, h), "skip": r(3, h), "gamma": r(h), "beta": r(h)}, ["y", "", "", "sum"]))
    out.append(Case("skip_simplified_layer_norm", "SkipSimplifiedLayerNormalization",
                    {**ln_in(), "gamma": r(h), "bias": r(h)}, ["y", "", "", "sum"], {"epsilon": 1e-6}))
    out.append(Case("skip_simplified_layer_norm_no_bias", "SkipSimplifiedLayerNormalization",
                    {**ln_in(), "gamma": r(h)}, ["y"]))
    out.append(Case("simplified_layer_norm", "SimplifiedLayerNormalization", {"x": r(2, 3, h), "scale": r(h)}, ["y"],
                    {"epsilon": 1e-6, "axis": -1}, domain=""))
    out.append(Case("simplified_layer_norm_inv_std", "SimplifiedLayerNormalization",
                    {"x": r(4, h), "scale": r(h)}, ["y", "inv_std_var"], {"epsilon": 1e-5}, domain="", opset=14))
    out.append(Case("layer_norm_opset12", "LayerNormalization", {"x": r(2, 3, h), "scale": r(h), "bias": r(h)},
                    ["y"], {"epsilon": 1e-5, "axis": -1}, domain="", opset=12))
    # ---- rotary embeddings: caches (max_pos, rot / 2) ----
    def caches(max_pos, half):
        theta = np.outer(np.arange(max_pos), 1.0 / 10000 ** (np.arange(half) / half))
        return np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    c8, s8 = caches(32, 8)
    out.append(Case("rotary_4d_position_ids", "RotaryEmbedding",
                    {"x": r(2, 3, 5, 16), "pos": rng.integers(0, 32, (2, 5)).astype(np.int64), "cos": c8, "sin": s8},
                    ["y"]))
    out.append(Case("rotary_3d_offset_interleaved", "RotaryEmbedding",
                    {"x": r(2, 4, 48), "pos": np.array([7], np.int64), "cos": c8, "sin": s8}, ["y"],
                    {"interleaved": 1}))
    c4, s4 = caches(32, 4)
    out.append(Case("rotary_3d_partial_dim", "RotaryEmbedding",
                    {"x": r(1, 3, 32), "pos": np.array([[0, 5, 9]], np.int64), "cos": c4, "sin": s4}, ["y"],
                    {"num_heads": 2, "rotary_embedding_dim": 8}))
    # ---- MatMulNBits: weights quantized per block along K ----
    def quantize(n, k, bits, block, with_zp=True, g_idx=None):
        """(B packed, scales, zero points (unpacked ints), dequantized W (N, K) in float64)."""
        w = rng.standard_normal((n, k))
        blocks = (k + block - 1) // block
        top = (1 << bits) - 1
        q = np.zeros((n, blocks * block), np.int64)
        scales = np.zeros((n, blocks), np.float32)
        zps = np.full((n, blocks), 1 << (bits - 1), np.int64)
        group = g_idx if g_idx is not None else np.arange(k) // block
        for b in range(blocks):
            cols = np.nonzero(group == b)[0]
            lo, hi = w[:, cols].min(axis=1), w[:, cols].max(axis=1)
            if with_zp:
                sc = np.maximum(hi - lo, 1e-6) / top
                zps[:, b] = np.clip(np.round(-lo / sc), 0, top)
            else:
                sc = np.maximum(np.abs(lo), np.abs(hi)) / (1 << (bits - 1))
            scales[:, b] = sc
        s32 = scales.astype(np.float64)
        for kk in range(k):
            b = group[kk]
            q[:, kk] = np.clip(np.round(w[:, kk] / s32[:, b]) + zps[:, b], 0, top)
        deq = np.zeros((n, k))
        for kk in range(k):
            b = group[kk]
            deq[:, kk] = (q[:, kk] - zps[:, b]) * s32[:, b]
        per_byte = 8 // bits
        blob = block * bits // 8
        packed = np.zeros((n, blocks, blob), np.uint8)
        for b in range(blocks):
            for i in range(block):
                packed[:, b, i // per_byte] |= (q[:, b * block + i] << ((i % per_byte) * bits)).astype(np.uint8)
        return packed, scales, zps, deq

    def pack_zp(zps, bits):
        n, blocks = zps.shape
        per_byte = 8 // bits
        out = np.zeros((n, (blocks * bits + 7) // 8), np.uint8)
        for b in range(blocks):
            out[:, b // per_byte] |= (zps[:, b] << ((b % per_byte) * bits)).astype(np.uint8)
        return out

    def nbits_case(name, m_shape, n, k, bits, block, zp="packed", bias=False, g_idx=None, level=None, ref="ort"):
        packed, scales, zps, deq = quantize(n, k, bits, block, with_zp=zp is not None, g_idx=g_idx)
        consts = {"B": packed, "scales": scales}
        names = ["A", "B", "scales"]
        if zp == "packed":
            consts["zp"] = pack_zp(zps, bits)
        elif zp == "float":
            consts["zp"] = zps.astype(np.float32)
        names.append("zp" if zp else "")
        if g_idx is not None:
            consts["g_idx"] = g_idx.astype(np.int32)
        names.append("g_idx" if g_idx is not None else "")
        if bias:
            consts["bias"] = r(n)
        names.append("bias" if bias else "")
        while names[-1] == "":
            names.pop()
        attrs = {"K": k, "N": n, "bits": bits, "block_size": block}
        if level is not None:
            attrs["accuracy_level"] = level
        a = r(*m_shape, k)
        reference = None
        if ref == "numpy":
            def reference(a_, *cs, deq=deq, bias_v=consts.get("bias")):
                y = a_.astype(np.float64) @ deq.T
                if bias_v is not None:
                    y = y + bias_v
                return [y.astype(np.float32)]
        out.append(Case(name, "MatMulNBits", {"A": a}, ["Y"], attrs, consts=consts, node_inputs=names,
                        reference=reference))

    nbits_case("matmul_nbits_4bit_decode", (1, 1), 24, 64, 4, 32)
    nbits_case("matmul_nbits_4bit_prefill_bias", (1, 37), 40, 128, 4, 32, bias=True)
    nbits_case("matmul_nbits_4bit_no_zero_point", (2, 3), 16, 64, 4, 16, zp=None)
    nbits_case("matmul_nbits_4bit_float_zero_point", (3,), 16, 64, 4, 64, zp="float")
    nbits_case("matmul_nbits_4bit_k_not_multiple", (2,), 8, 40, 4, 16)
    nbits_case("matmul_nbits_4bit_block_256", (1, 2), 8, 512, 4, 256)
    nbits_case("matmul_nbits_8bit", (2, 2), 12, 64, 8, 32)
    nbits_case("matmul_nbits_2bit", (1, 3), 12, 64, 2, 32)
    perm = rng.permutation(64)
    nbits_case("matmul_nbits_4bit_g_idx", (1, 5), 8, 64, 4, 16, g_idx=(perm // 16), ref="numpy")
    # accuracy_level 4 lets A be quantized to int8 per block: ORT and Tessera
    # both do so in a decode step (M <= 4 rows here), to the same values.
    nbits_case("matmul_nbits_4bit_accuracy_level4", (4,), 16, 64, 4, 32, level=4)
    # ---- GroupQueryAttention: B, S new tokens, past P rows, Hq / Hkv heads of D ----
    def gqa_numpy(hq, hkv):
        """Causal GQA without rotary, window or softcap, in float64: output only."""
        def ref(q, k, v, pk, pv, seqlens, total):
            b_n, s_n, _ = q.shape
            d = k.shape[2] // hkv
            out = np.zeros(q.shape)
            for b in range(b_n):
                past = seqlens[b] + 1 - s_n
                for h in range(hq):
                    g = h // (hq // hkv)
                    kk = np.concatenate([pk[b, g, :past], k[b, :, g * d:(g + 1) * d]]).astype(np.float64)
                    vv = np.concatenate([pv[b, g, :past], v[b, :, g * d:(g + 1) * d]]).astype(np.float64)
                    for i in range(s_n):
                        sc = kk[:past + i + 1] @ q[b, i, h * d:(h + 1) * d].astype(np.float64) / math.sqrt(d)
                        p = np.exp(sc - sc.max())
                        out[b, i, h * d:(h + 1) * d] = (p / p.sum()) @ vv[:past + i + 1]
            return [out.astype(np.float32)]
        return ref

    def gqa_case(name, b, s_new, past, hq, hkv, d, seqlens, total, attrs=None, rotary=False, packed=False,
                 presents=True, reference=None):
        feeds = {}
        names = []
        if packed:
            feeds["qkv"] = r(b, s_new, (hq + 2 * hkv) * d)
            names += ["qkv", "", ""]
        else:
            feeds.update({"query": r(b, s_new, hq * d), "key": r(b, s_new, hkv * d), "value": r(b, s_new, hkv * d)})
            names += ["query", "key", "value"]
        if past:
            feeds.update({"past_key": r(b, hkv, past, d), "past_value": r(b, hkv, past, d)})
            names += ["past_key", "past_value"]
        else:
            names += ["", ""]
        feeds["seqlens_k"] = np.array(seqlens, np.int32)
        feeds["total_sequence_length"] = np.array(total, np.int32)
        names += ["seqlens_k", "total_sequence_length"]
        attrs = dict(attrs or {}, num_heads=hq, kv_num_heads=hkv)
        if rotary:
            cos, sin = caches(32, d // 2)
            feeds.update({"cos_cache": cos, "sin_cache": sin})
            names += ["cos_cache", "sin_cache"]
            attrs["do_rotary"] = 1
        outputs = ["output", "present_key", "present_value"] if presents else ["output"]
        out.append(Case(name, "GroupQueryAttention", feeds, outputs, attrs, node_inputs=names, reference=reference))

    gqa_case("gqa_prompt", 2, 4, 0, 4, 2, 8, [3, 3], 4)
    gqa_case("gqa_decode", 2, 1, 5, 4, 2, 8, [5, 5], 6)
    # Without the present outputs ORT 1.30 reads past the end of the new-key
    # buffer (its outputs differ by up to 1.0 here; with them it agrees with
    # numpy): the reference is float64 numpy.
    gqa_case("gqa_decode_ragged_no_presents", 2, 1, 6, 4, 1, 8, [6, 3], 7, presents=False, reference=gqa_numpy(4, 1))
    gqa_case("gqa_prompt_rotary", 1, 3, 0, 2, 2, 16, [2], 3, rotary=True)
    gqa_case("gqa_decode_rotary_interleaved", 1, 1, 4, 2, 1, 16, [4], 5, {"rotary_interleaved": 1}, rotary=True)
    gqa_case("gqa_packed_qkv", 1, 3, 0, 4, 2, 8, [2], 3, packed=True)
    gqa_case("gqa_local_window", 1, 6, 0, 2, 1, 8, [5], 6, {"local_window_size": 2})
    gqa_case("gqa_softcap_scale", 1, 4, 0, 2, 2, 8, [3], 4, {"softcap": 2.0, "scale": 0.5})
    gqa_case("gqa_smooth_softmax", 1, 2, 3, 2, 2, 8, [4], 5, {"smooth_softmax": 1})
    # ---- Attention (BERT / GPT-2 form): input x merged QKV weights ----
    def bert_attention(name, b, s_new, din, heads, mask=None, past=0, attrs=None, widths=None, attn_bias=False):
        wq, wk, wv = widths or (din, din, din)
        feeds = {"input": r(b, s_new, din), "weights": r(din, wq + wk + wv) * 0.3, "bias": r(wq + wk + wv) * 0.1}
        names = ["input", "weights", "bias"]
        if mask is not None:
            feeds["mask_index"] = np.array(mask, np.int32)
            names.append("mask_index")
        else:
            names.append("")
        outputs = ["output"]
        if past:
            feeds["past"] = r(2, b, heads, past, wq // heads)
            names.append("past")
            outputs.append("present")
        else:
            names.append("")
        if attn_bias:
            feeds["attention_bias"] = r(b, heads, s_new, past + s_new)
            names.append("attention_bias")
        while names[-1] == "":
            names.pop()
        attrs = dict(attrs or {}, num_heads=heads)
        if widths:
            attrs["qkv_hidden_sizes"] = list(widths)
        out.append(Case(name, "Attention", feeds, outputs, attrs, node_inputs=names))

    bert_attention("attention_raw_mask", 2, 4, 16, 2, mask=[[1, 1, 1, 0], [1, 1, 0, 0]])
    bert_attention("attention_lengths_mask", 2, 4, 16, 4, mask=[3, 4])
    bert_attention("attention_left_padding", 2, 4, 16, 2, mask=[4, 4, 1, 0])
    bert_attention("attention_3d_mask", 1, 3, 8, 2, mask=[[[1, 0, 1], [1, 1, 0], [0, 1, 1]]])
    bert_attention("attention_unidirectional_past", 1, 2, 16, 2, past=3, attrs={"unidirectional": 1})
    bert_attention("attention_qkv_hidden_sizes", 1, 3, 16, 2, widths=(16, 16, 8))
    bert_attention("attention_bias_scale", 2, 3, 8, 2, attrs={"scale": 0.25}, attn_bias=True)
    # ---- EmbedLayerNormalization: BERT's embeddings ----
    def embed_case(name, with_segments=True, with_mask=True, with_positions=False, sum_out=False):
        b, s_n, h, vocab = 2, 5, 16, 30
        feeds = {"input_ids": rng.integers(0, vocab, (b, s_n)).astype(np.int32)}
        names = ["input_ids"]
        if with_segments:
            feeds["segment_ids"] = rng.integers(0, 2, (b, s_n)).astype(np.int32)
        names.append("segment_ids" if with_segments else "")
        consts = {"word_embedding": r(vocab, h), "position_embedding": r(12, h)}
        if with_segments:
            consts["segment_embedding"] = r(2, h)
        consts.update({"gamma": r(h), "beta": r(h)})
        names += ["word_embedding", "position_embedding", "segment_embedding" if with_segments else "", "gamma", "beta"]
        if with_mask:
            feeds["mask"] = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], np.int32)
        if with_positions:
            feeds["position_ids"] = np.array([[3, 4, 5, 6, 7]], np.int32)
        names += ["mask" if with_mask else "", "position_ids" if with_positions else ""]
        while names[-1] == "":
            names.pop()
        outputs = ["output", "mask_index"] + (["embedding_sum"] if sum_out else [])
        inputs = dict(feeds)
        # Graph inputs first (the fed ids), then the tables as initializers.
        out.append(Case(name, "EmbedLayerNormalization", inputs, outputs, {"epsilon": 1e-5}, consts=consts,
                        node_inputs=names, out_types={"output": TensorProto.FLOAT, "embedding_sum": TensorProto.FLOAT,
                                                      "mask_index": TensorProto.INT32}))

    embed_case("embed_layer_norm")
    embed_case("embed_layer_norm_no_segments_sum", with_segments=False, sum_out=True)
    embed_case("embed_layer_norm_position_ids", with_mask=False, with_positions=True)
    # ---- quantized: MatMulIntegerToFloat and the contrib Q / DQ ----
    f32 = {"Y": TensorProto.FLOAT, "y": TensorProto.FLOAT}
    out.append(Case("matmul_integer_to_float_u8s8", "MatMulIntegerToFloat",
                    {"A": rng.integers(0, 256, (2, 3, 16)).astype(np.uint8)}, ["Y"],
                    consts={"B": rng.integers(-128, 128, (16, 8)).astype(np.int8),
                            "a_scale": np.array(0.02, np.float32), "b_scale": (rng.random(8) * 0.05).astype(np.float32),
                            "a_zero_point": np.array(131, np.uint8), "b_zero_point": np.zeros(8, np.int8),
                            "bias": r(8)}, out_types=f32))
    out.append(Case("matmul_integer_to_float_s8s8", "MatMulIntegerToFloat",
                    {"A": rng.integers(-128, 128, (4, 16)).astype(np.int8)}, ["Y"],
                    consts={"B": rng.integers(-128, 128, (16, 5)).astype(np.int8),
                            "a_scale": np.array(0.1, np.float32), "b_scale": np.array(0.03, np.float32)},
                    out_types=f32))
    out.append(Case("quantize_linear_ms_u8", "QuantizeLinear", {"x": r(3, 4) * 3}, ["y"],
                    consts={"y_scale": np.array(0.05, np.float32), "y_zero_point": np.array(128, np.uint8)},
                    out_types={"y": TensorProto.UINT8}))
    out.append(Case("quantize_linear_ms_int16_axis", "QuantizeLinear", {"x": r(2, 3, 4) * 100}, ["y"], {"axis": 1},
                    consts={"y_scale": np.array([0.01, 0.02, 0.05], np.float32),
                            "y_zero_point": np.array([0, 10, -7], np.int16)}, out_types={"y": TensorProto.INT16}))
    out.append(Case("dequantize_linear_ms_s8_axis", "DequantizeLinear",
                    {"x": rng.integers(-128, 128, (2, 4)).astype(np.int8)}, ["y"], {"axis": 1},
                    consts={"x_scale": np.array([0.1, 0.2, 0.3, 0.4], np.float32),
                            "x_zero_point": np.array([1, -2, 3, 0], np.int8)}, out_types=f32))
    out.append(Case("dequantize_linear_ms_u16", "DequantizeLinear",
                    {"x": rng.integers(0, 65536, (5,)).astype(np.uint16)}, ["y"],
                    consts={"x_scale": np.array(0.001, np.float32), "x_zero_point": np.array(30000, np.uint16)},
                    out_types=f32))
    u8 = {"y": TensorProto.UINT8}
    for name, opset, axis, shape in [("qlinear_softmax_opset13", 13, -1, (2, 3, 10)),
                                     ("qlinear_softmax_opset13_axis1", 13, 1, (2, 4, 3)),
                                     ("qlinear_softmax_opset12", 12, 1, (2, 3, 4))]:
        out.append(Case(name, "QLinearSoftmax", {"x": rng.integers(0, 256, shape).astype(np.uint8)}, ["y"],
                        {"opset": opset, "axis": axis},
                        consts={"x_scale": np.array(0.04, np.float32), "x_zero_point": np.array(120, np.uint8),
                                "y_scale": np.array(1.0 / 256, np.float32), "y_zero_point": np.array(0, np.uint8)},
                        out_types=u8))
    out.append(Case("qlinear_softmax_s8", "QLinearSoftmax", {"x": rng.integers(-128, 128, (3, 16)).astype(np.int8)},
                    ["y"], {"opset": 13},
                    consts={"x_scale": np.array(0.1, np.float32), "x_zero_point": np.array(-3, np.int8),
                            "y_scale": np.array(1.0 / 256, np.float32), "y_zero_point": np.array(-128, np.int8)},
                    out_types={"y": TensorProto.INT8}))
    out.append(Case("qlinear_conv_ms", "QLinearConv", {"x": rng.integers(0, 256, (1, 3, 6, 6)).astype(np.uint8)},
                    ["y"], {"pads": [1, 1, 1, 1]},
                    consts={"x_scale": np.array(0.02, np.float32), "x_zero_point": np.array(128, np.uint8),
                            "w": rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8),
                            "w_scale": (rng.random(4) * 0.01 + 0.005).astype(np.float32),
                            "w_zero_point": np.zeros(4, np.int8),
                            "y_scale": np.array(0.05, np.float32), "y_zero_point": np.array(100, np.uint8),
                            "B": rng.integers(-500, 500, 4).astype(np.int32)}, out_types=u8))
    def qgemm_case(name, m, k, n, trans_a=0, trans_b=0, c=None, quantized=True, alpha=1.0):
        a_shape = (k, m) if trans_a else (m, k)
        b_shape = (n, k) if trans_b else (k, n)
        consts = {"a_scale": np.array(0.03, np.float32), "a_zero_point": np.array(110, np.uint8),
                  "B": rng.integers(-128, 128, b_shape).astype(np.int8),
                  "b_scale": (rng.random(n) * 0.02 + 0.01).astype(np.float32), "b_zero_point": np.zeros(n, np.int8)}
        names = ["A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point"]
        if c is not None:
            consts["C"] = c
        names.append("C" if c is not None else "")
        if quantized:
            consts.update({"y_scale": np.array(0.2, np.float32), "y_zero_point": np.array(128, np.uint8)})
            names += ["y_scale", "y_zero_point"]
        while names[-1] == "":
            names.pop()
        out.append(Case(name, "QGemm", {"A": rng.integers(0, 256, a_shape).astype(np.uint8)}, ["Y"],
                        {"transA": trans_a, "transB": trans_b, "alpha": alpha}, consts=consts, node_inputs=names,
                        out_types={"Y": TensorProto.UINT8 if quantized else TensorProto.FLOAT}))

    qgemm_case("qgemm_quantized_bias", 3, 16, 5, c=rng.integers(-300, 300, 5).astype(np.int32))
    qgemm_case("qgemm_float_trans_b", 2, 16, 4, trans_b=1, quantized=False, alpha=0.5)
    qgemm_case("qgemm_trans_a_matrix_c", 3, 8, 4, trans_a=1, c=rng.integers(-100, 100, (3, 4)).astype(np.int32))
    # ---- MultiHeadAttention: Q, K, V already projected ----
    def mha(name, feeds, names, outputs, attrs):
        while names[-1] == "":
            names.pop()
        out.append(Case(name, "MultiHeadAttention", feeds, outputs, dict(attrs, num_heads=2), node_inputs=names))

    mha("mha_self_bias_mask", {"query": r(2, 4, 16), "key": r(2, 4, 16), "value": r(2, 4, 16), "bias": r(48) * 0.1,
                               "key_padding_mask": np.array([[1, 1, 1, 0], [1, 1, 1, 1]], np.int32)},
        ["query", "key", "value", "bias", "key_padding_mask"], ["output"], {})
    mha("mha_cross_cache_layout", {"query": r(1, 3, 16), "key": r(1, 2, 5, 8), "value": r(1, 2, 5, 8)},
        ["query", "key", "value"], ["output"], {})
    mha("mha_past_unidirectional", {"query": r(1, 2, 16), "key": r(1, 2, 16), "value": r(1, 2, 16),
                                    "past_key": r(1, 2, 3, 8), "past_value": r(1, 2, 3, 8)},
        ["query", "key", "value", "", "", "", "past_key", "past_value"], ["output", "present_key", "present_value"],
        {"unidirectional": 1})
    # ORT 1.30 has no CPU kernel for packed QKV: the reference is float64 numpy.
    def packed_qkv_ref(qkv):
        b, s_n, n, _, h = qkv.shape
        x = qkv.astype(np.float64)
        q, k, v = x[:, :, :, 0], x[:, :, :, 1], x[:, :, :, 2]  # (B, S, N, H)
        sc = np.einsum("bsnh,btnh->bnst", q, k) / math.sqrt(h)
        p = np.exp(sc - sc.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        return [np.einsum("bnst,btnh->bsnh", p, v).reshape(b, s_n, n * h).astype(np.float32)]
    out.append(Case("mha_packed_qkv", "MultiHeadAttention", {"qkv": r(2, 3, 2, 3, 8)}, ["output"], {"num_heads": 2},
                    reference=packed_qkv_ref))
    def packed_kv_ref(query, kv, attn_bias, scale=0.3):
        b, s_n, d = query.shape
        n, h = kv.shape[2], kv.shape[4]
        q = query.astype(np.float64).reshape(b, s_n, n, h)
        k, v = kv[:, :, :, 0].astype(np.float64), kv[:, :, :, 1].astype(np.float64)
        sc = np.einsum("bsnh,btnh->bnst", q, k) * scale + attn_bias
        p = np.exp(sc - sc.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        return [np.einsum("bnst,btnh->bsnh", p, v).reshape(b, s_n, n * h).astype(np.float32)]
    out.append(Case("mha_packed_kv_bias", "MultiHeadAttention",
                    {"query": r(1, 3, 16), "kv": r(1, 4, 2, 2, 8), "attention_bias": r(1, 2, 3, 4)}, ["output"],
                    {"num_heads": 2, "scale": 0.3}, node_inputs=["query", "kv", "", "", "", "attention_bias"],
                    reference=packed_kv_ref))
    mha("mha_attention_bias_scale", {"query": r(2, 3, 16), "key": r(2, 4, 16), "value": r(2, 4, 16),
                                     "attention_bias": r(1, 2, 3, 4)},
        ["query", "key", "value", "", "", "attention_bias"], ["output"], {"scale": 0.3})
    # ---- Inverse, GridSample, FusedConv ----
    mats = r(3, 4, 4) + 4 * np.eye(4, dtype=np.float32)  # well conditioned
    out.append(Case("inverse", "Inverse", {"x": mats}, ["y"]))
    out.append(Case("grid_sample_bilinear_align", "GridSample", {"x": r(1, 2, 4, 5), "grid": (rng.random((1, 3, 3, 2)) * 2.4 - 1.2).astype(np.float32)},
                    ["y"], {"mode": "bilinear", "align_corners": 1}))
    out.append(Case("grid_sample_nearest_border", "GridSample", {"x": r(2, 1, 3, 3), "grid": (rng.random((2, 2, 4, 2)) * 2.4 - 1.2).astype(np.float32)},
                    ["y"], {"mode": "nearest", "padding_mode": "border"}))
    for act, params in [("Relu", None), ("LeakyRelu", [0.1]), ("Tanh", None), ("Clip", [-0.5, 0.5])]:
        attrs = {"activation": act, "kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
        if params:
            attrs["activation_params"] = params
        out.append(Case("fused_conv_" + act.lower(), "FusedConv", {"x": r(1, 3, 5, 5)}, ["y"], attrs,
                        consts={"w": r(4, 3, 3, 3) * 0.3, "b": r(4) * 0.1}))
    # ---- the rest ----
    out.append(Case("fused_matmul", "FusedMatMul", {"a": r(2, 3, 4), "b": r(2, 4, 5)}, ["y"], {"alpha": 0.5}))
    out.append(Case("fused_matmul_trans", "FusedMatMul", {"a": r(2, 4, 3), "b": r(5, 4)}, ["y"],
                    {"alpha": 2.0, "transA": 1, "transB": 1}))
    out.append(Case("trilu_lower", "Trilu", {"x": r(2, 4, 5), "k": np.array(1, dtype=np.int64)}, ["y"],
                    {"upper": 0}, out_types={"y": TensorProto.FLOAT}))
    out.append(Case("range_float", "Range", {"start": np.array(1.5, np.float32), "limit": np.array(7.0, np.float32),
                                             "delta": np.array(0.75, np.float32)}, ["y"]))
    out.append(Case("range_int64", "Range", {"start": np.array(10, np.int64), "limit": np.array(-3, np.int64),
                                             "delta": np.array(-4, np.int64)}, ["y"]))
    # transBatch moves the operand's axis 0 to the row position, before trans.
    out.append(Case("fused_matmul_trans_batch_a", "FusedMatMul", {"a": r(2, 3, 4, 5), "b": r(3, 4, 5, 6)}, ["y"],
                    {"alpha": 0.5, "transBatchA": 1}))
    out.append(Case("fused_matmul_trans_batch_a_trans", "FusedMatMul", {"a": r(2, 3, 4, 5), "b": r(3, 4, 2, 6)},
                    ["y"], {"transBatchA": 1, "transA": 1}))
    out.append(Case("fused_matmul_trans_batch_b_trans", "FusedMatMul", {"a": r(3, 4, 5, 6), "b": r(7, 3, 4, 6)},
                    ["y"], {"transBatchB": 1, "transB": 1}))
    out.append(Case("fused_matmul_trans_batch_both", "FusedMatMul", {"a": r(2, 3, 4), "b": r(4, 3, 6)}, ["y"],
                    {"transBatchA": 1, "transBatchB": 1}))
    # FusedConv's Z: added before the activation (ORT's Conv + Add fusion).
    out.append(Case("fused_conv_sum_relu", "FusedConv", {"x": r(1, 3, 5, 5), "z": r(1, 4, 3, 3)}, ["y"],
                    {"activation": "Relu", "kernel_shape": [3, 3]},
                    consts={"w": r(4, 3, 3, 3) * 0.3, "b": r(4) * 0.1}, node_inputs=["x", "w", "b", "z"]))
    out.append(Case("fused_conv_sum_no_bias", "FusedConv", {"x": r(2, 2, 4, 4), "z": r(2, 3, 4, 4)}, ["y"],
                    {"activation": "LeakyRelu", "activation_params": [0.2], "pads": [1, 1, 1, 1]},
                    consts={"w": r(3, 2, 3, 3) * 0.3}, node_inputs=["x", "w", "", "z"]))
    # MatMulNBits accuracy_level 4 in a prefill: 18 rows, 20 columns (not a
    # whole number of Tessera's panels of 8), A quantized to int8 on both.
    nbits_case("matmul_nbits_4bit_accuracy_level4_prefill", (2, 9), 20, 128, 4, 32, level=4)
    return out


def find_ort():
    for d in (os.environ.get("ORT_NODE_PATH"), os.path.expanduser("~/.cache/tessera/ort-1.30.0")):
        if d and os.path.isdir(os.path.join(d, "node_modules", "onnxruntime-node")):
            return os.path.join(d, "node_modules")
    sys.exit("onnxruntime-node@1.30.0 not found: run scripts/setup.sh or set ORT_NODE_PATH")


def ort_outputs(model_path, inputs, node_path, tmp):
    feeds = []
    for k, (name, a) in enumerate(inputs.items()):
        f = os.path.join(tmp, f"in_{k}.npy")
        np.save(f, a)
        feeds.append(f"{name}={f}")
    env = dict(os.environ, NODE_PATH=node_path)
    r = subprocess.run(["node", RUNNER, model_path, tmp, *feeds], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    outs, k = [], 0
    while os.path.exists(os.path.join(tmp, f"output_{k}.npy")):
        outs.append(np.load(os.path.join(tmp, f"output_{k}.npy")))
        k += 1
    return outs


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "contrib")
    node_path = find_ort()
    shutil.rmtree(out_dir, ignore_errors=True)
    for case in cases():
        folder = os.path.join(out_dir, "test_" + case.name)
        data = os.path.join(folder, "test_data_set_0")
        os.makedirs(data)
        model = case.model()
        model_path = os.path.join(folder, "model.onnx")
        with open(model_path, "wb") as f:
            f.write(model.SerializeToString())
        with tempfile.TemporaryDirectory() as tmp:
            if case.reference is None:
                outs = ort_outputs(model_path, case.inputs, node_path, tmp)
                source = "onnxruntime 1.30"
            else:
                outs = case.reference(*case.inputs.values(), *case.consts.values())
                source = "numpy float64"
        named = [o for o in case.outputs if o]
        if len(outs) != len(named):
            sys.exit(f"{case.name}: the reference gave {len(outs)} outputs for {len(named)}")
        for k, (name, a) in enumerate(case.inputs.items()):
            with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, name).SerializeToString())
        for k, (name, a) in enumerate(zip(named, outs)):
            with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(a), name).SerializeToString())
        print(f"{case.name}: {case.domain or 'ai.onnx'}:{case.op}, reference {source}")


if __name__ == "__main__":
    main()
