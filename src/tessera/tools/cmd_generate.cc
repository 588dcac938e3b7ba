// `tessera generate`: greedy decoding with a decoder in the layout ONNX
// Runtime's LLM builder writes (bench/make_decoder.py makes one):
// input_ids, attention_mask and past_key_values.{i}.key/.value in;
// logits and present.{i}.key/.value out. The presents of one step are the
// next step's pasts: the values move from the outputs to the feeds, so the
// loop itself copies no cache.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "tessera/api/providers.h"
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

// The decoder's cache inputs, in input order: (input name, output name).
struct CacheSlot {
  std::string past, present;
  TypeInfo type;
};

std::vector<CacheSlot> CacheSlots(const Session& s) {
  std::vector<CacheSlot> slots;
  for (const auto& in : s.inputs()) {
    const std::string prefix = "past_key_values.";
    if (in.name.rfind(prefix, 0) != 0) continue;
    std::string present = "present." + in.name.substr(prefix.size());
    bool found = false;
    for (const auto& out : s.outputs()) found |= out.name == present;
    if (!found) TS_THROW(kInvalidModel, "cache input '", in.name, "' has no output '", present, "'");
    slots.push_back({in.name, present, in.type});
  }
  return slots;
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
  const std::vector<CacheSlot> slots = CacheSlots(*session);
  std::vector<std::string> wanted = {"logits"};
  for (const auto& s : slots) wanted.push_back(s.present);

  // Empty pasts: (batch 1, the declared head count, 0 rows, the head size).
  std::vector<Value> cache;
  for (const auto& s : slots) {
    if (!s.type.shape || s.type.shape->size() != 4 || !(*s.type.shape)[1].known() || !(*s.type.shape)[3].known())
      TS_THROW(kInvalidModel, "cache input '", s.past, "' must be (batch, kv_heads, past, head) with known heads and size");
    cache.emplace_back(Tensor(s.type.elem_type, {1, (*s.type.shape)[1].value, 0, (*s.type.shape)[3].value}));
  }
  std::vector<int64_t> tokens = prompt, generated;
  double prefill_s = 0, decode_s = 0;
  std::vector<int64_t> step_input = prompt;
  for (int step = 0; step < max_new; ++step) {
    Feeds feeds;
    feeds.emplace_back("input_ids", TokenTensor(step_input));
    feeds.emplace_back("attention_mask",
                       Tensor::FromVector<int64_t>(std::vector<int64_t>(tokens.size(), 1), {1, static_cast<int64_t>(tokens.size())}));
    for (size_t i = 0; i < slots.size(); ++i) feeds.emplace_back(slots[i].past, std::move(cache[i]));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Value> out = session->Run(feeds, wanted);
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    (step == 0 ? prefill_s : decode_s) += dt;
    const Tensor& logits = out[0].tensor();
    if (logits.dtype() != DataType::kFloat || logits.rank() != 3)
      TS_THROW(kInvalidModel, "logits must be float (batch, sequence, vocabulary), got ", logits.Describe());
    const int64_t vocab = logits.dim(2);
    const float* last = logits.data<float>() + (logits.dim(1) - 1) * vocab;
    const int64_t next = std::max_element(last, last + vocab) - last;
    for (size_t i = 0; i < slots.size(); ++i) cache[i] = std::move(out[i + 1]);
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
