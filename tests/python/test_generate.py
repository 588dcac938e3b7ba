"""tessera.generate on the tiny decoder of bench/make_decoder.py: the same
tokens as a greedy loop written out with InferenceSession.run, and the same
as `tessera generate` (the CLI)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import make_decoder  # noqa: E402


@pytest.fixture(scope="module")
def decoder(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("decoder") / "tiny_decoder.onnx")
    with open(path, "wb") as f:
        f.write(make_decoder.build(make_decoder.PRESETS["tiny"], 11).SerializeToString())
    return path


def manual_greedy(session, prompt, steps):
    cfg = make_decoder.PRESETS["tiny"]
    names = [o.name for o in session.get_outputs()]
    tokens, out_tokens = list(prompt), []
    feeds = make_decoder.step_feeds(cfg, prompt, len(prompt))
    for _ in range(steps):
        outs = session.run(None, feeds)
        token = int(np.argmax(outs[0][0, -1]))
        tokens.append(token)
        out_tokens.append(token)
        feeds = make_decoder.step_feeds(cfg, [token], len(tokens), make_decoder.presents(cfg, names, outs))
    return out_tokens


def test_generate_matches_a_manual_greedy_loop(decoder):
    session = tessera.InferenceSession(decoder, providers=["CPUExecutionProvider"])
    result = tessera.generate(session, [3, 1, 4, 1, 5], max_new_tokens=7)
    assert result.tokens == manual_greedy(session, [3, 1, 4, 1, 5], 7)
    assert result.prefill_tokens_per_s > 0 and result.decode_tokens_per_s > 0


def test_generate_matches_the_cli(decoder):
    binary = os.path.join(os.path.dirname(tessera.__file__), "..", "..", "bin", "tessera")
    if not os.path.exists(binary):
        pytest.skip("the tessera binary is not next to the built package")
    r = subprocess.run([binary, "generate", decoder, "--prompt-tokens", "2,7,1,8", "--max-new-tokens", "5",
                        "--providers", "cpu"], capture_output=True, text=True, check=True)
    cli = [int(t) for t in r.stdout.split("\n")[0].split()[1].split(",")]
    assert tessera.generate(decoder, [2, 7, 1, 8], max_new_tokens=5).tokens == cli


def test_generate_rejects_what_is_not_a_decoder(tmp_path):
    from tiny_models import add_model  # noqa: PLC0415
    path = tmp_path / "add.onnx"
    path.write_bytes(add_model())
    with pytest.raises(ValueError, match="expects a decoder with an input 'input_ids'"):
        tessera.generate(str(path), [1, 2])
    with pytest.raises(ValueError, match="max_new_tokens must be >= 1"):
        tessera.generate(str(path), [1], max_new_tokens=0)


def test_gqa_caches_share_one_buffer(decoder):
    session = tessera.InferenceSession(decoder, providers=["CPUExecutionProvider"])
    slots = session._sess.kv_cache_slots()
    assert slots and all(shares for _, _, shares in slots)
    assert [p for p, _, _ in slots] == [i.name for i in session.get_inputs() if i.name.startswith("past_key_values.")]
