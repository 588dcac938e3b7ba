// `tessera generate`: greedy decoding with a decoder in the layout ONNX
// Runtime's LLM builder writes (bench/make_decoder.py makes one):
// input_ids, attention_mask and past_key_values.{i}.key/.value in;
// logits and present.{i}.key/.value out. Where the model's attention can
// keep its cache in one buffer (runtime/kv_cache.h), each cache is
// allocated once for the prompt and every new token, fed as the past and
// bound as the present, so no step copies a row it did not write. Other
// caches grow: the presents of one step move, without a copy, to the next
// step's pasts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/api/providers.h"
#include "tessera/ops/bound_outputs.h"
#include "tessera/runtime/kv_cache.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

std::vector<int64_t> ParseTokens(const std::string& text) {
  std::vector<int64_t> tokens;
  for (const std::string& t : SplitList(text)) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || v < 0) TS_THROW(kInvalidArgument, "--prompt-tokens wants token ids like 1,2,3, got '", t, "'");
    tokens.push_back(v);
  }
  if (tokens.empty()) TS_THROW(kInvalidArgument, "--prompt-tokens is empty");
  return tokens;
}

Tensor TokenTensor(const std::vector<int64_t>& tokens) {
  return Tensor::FromVector<int64_t>(tokens, {1, static_cast<int64_t>(tokens.size())});
}

}  // namespace

int GenerateCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"quiet"});
  if (args.positional.empty()) TS_THROW(kInvalidArgument, "generate needs a MODEL");
  const std::vector<int64_t> prompt = ParseTokens(args.get("prompt-tokens", ""));
  const int max_new = args.get_int("max-new-tokens", 16);
  if (max_new < 1) TS_THROW(kInvalidArgument, "--max-new-tokens must be >= 1, got ", max_new);
  SessionOptions options;
  options.intra_op_num_threads = args.get_int("threads", 0);
  ApplyCompileArgs(args, options);
  auto session = Session::FromFile(args.positional[0], options,
                                   MakeProviders(SplitList(args.get("providers", DefaultProviderList()))));
  for (const char* name : {"input_ids", "attention_mask"}) {
    bool found = false;
    for (const auto& in : session->inputs()) found |= in.name == name;
    if (!found) TS_THROW(kInvalidModel, "generate expects a decoder with an input '", name, "' (ORT's LLM layout)");
  }
  const std::vector<KvCacheSlot> slots = KvCacheSlots(*session);
  std::vector<std::string> wanted = {"logits"};
  for (const auto& s : slots) wanted.push_back(s.present);

  // Shared caches hold every token of the run from the start; the others
  // start empty. Both are (batch 1, the declared heads, rows, head size).
  const int64_t capacity = static_cast<int64_t>(prompt.size()) + max_new;
  std::vector<Value> cache;
  for (const auto& s : slots) {
    if (!s.type.shape || s.type.shape->size() != 4 || !(*s.type.shape)[1].known() || !(*s.type.shape)[3].known())
      TS_THROW(kInvalidModel, "cache input '", s.past, "' must be (batch, kv_heads, past, head) with known heads and size");
    Tensor t(s.type.elem_type, {1, (*s.type.shape)[1].value, s.shares_buffer ? capacity : 0, (*s.type.shape)[3].value});
    if (t.nbytes() > 0) std::memset(t.raw_data(), 0, t.nbytes());
    cache.emplace_back(std::move(t));
  }
  BoundOutputMap bound;
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i].shares_buffer) bound[slots[i].present] = cache[i].tensor();
  std::vector<int64_t> tokens = prompt, generated;
  double prefill_s = 0, decode_s = 0;
  std::vector<int64_t> step_input = prompt;
  for (int step = 0; step < max_new; ++step) {
    Feeds feeds;
    feeds.emplace_back("input_ids", TokenTensor(step_input));
    feeds.emplace_back("attention_mask",
                       Tensor::FromVector<int64_t>(std::vector<int64_t>(tokens.size(), 1), {1, static_cast<int64_t>(tokens.size())}));
    for (size_t i = 0; i < slots.size(); ++i)
      feeds.emplace_back(slots[i].past, slots[i].shares_buffer ? cache[i] : std::move(cache[i]));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Value> out;
    {
      ScopedBoundOutputs in_place(bound.empty() ? nullptr : &bound);
      out = session->Run(feeds, wanted);
    }
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    (step == 0 ? prefill_s : decode_s) += dt;
    const Tensor& logits = out[0].tensor();
    if (logits.dtype() != DataType::kFloat || logits.rank() != 3)
      TS_THROW(kInvalidModel, "logits must be float (batch, sequence, vocabulary), got ", logits.Describe());
    const int64_t vocab = logits.dim(2);
    const float* last = logits.data<float>() + (logits.dim(1) - 1) * vocab;
    const int64_t next = std::max_element(last, last + vocab) - last;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!slots[i].shares_buffer) {
        cache[i] = std::move(out[i + 1]);
      } else if (!out[i + 1].is_tensor() || out[i + 1].tensor().raw_data() != cache[i].tensor().raw_data()) {
        // The kernel could not write in place (an unaligned buffer, another
        // provider): keep what it wrote, at the cache's capacity.
        const Tensor& got = out[i + 1].tensor();
        if (got.shape() != cache[i].tensor().shape())
          TS_THROW(kInvalidModel, "'", slots[i].present, "' came back ", got.Describe(), ", not the cache's ",
                   cache[i].tensor().Describe());
        std::memcpy(cache[i].tensor().raw_data(), got.raw_data(), got.nbytes());
      }
    }
    tokens.push_back(next);
    generated.push_back(next);
    step_input = {next};
  }
  std::string text;
  for (int64_t t : generated) text += (text.empty() ? "" : ",") + std::to_string(t);
  std::printf("generated %s\n", text.c_str());
  std::printf("prefill  %zu tokens in %.2f ms: %.1f tokens/s\n", prompt.size(), prefill_s * 1e3,
              static_cast<double>(prompt.size()) / prefill_s);
  if (max_new > 1)
    std::printf("decode   %d tokens in %.2f ms: %.1f tokens/s\n", max_new - 1, decode_s * 1e3,
                static_cast<double>(max_new - 1) / decode_s);
  return 0;
}

}  // namespace tessera::cli
