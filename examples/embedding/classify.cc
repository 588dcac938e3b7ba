// Runs Tessera's bundled default model (models/default/model.onnx, a tiny
// CNN classifier) through the public C++ API and checks what comes back.
// Exits non-zero, saying why, when anything is off.
//   classify models/default/model.onnx
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace {

int Fail(const std::string& why) {
  std::fprintf(stderr, "classify: %s\n", why.c_str());
  return 1;
}

// A deterministic image batch: every pixel a different value in [0, 1).
tessera::v1::Tensor MakeImages(int64_t batch) {
  std::vector<float> pixels(static_cast<size_t>(batch * 3 * 32 * 32));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>((i * 37) % 101) / 101.0f;
  return tessera::v1::Tensor::FromVector<float>({batch, 3, 32, 32}, pixels);
}

}  // namespace

int main(int argc, char** argv) {
  namespace ts = tessera::v1;
  if (argc != 2) return Fail("usage: classify MODEL.onnx");
  try {
    ts::SessionOptions options;
    options.intra_op_threads = 1;
    ts::Session session = ts::Session::Load(argv[1], options);
    std::printf("tessera %s, providers:", ts::Version());
    for (const auto& p : session.providers()) std::printf(" %s", p.c_str());
    std::printf("\n");

    if (session.inputs().size() != 1) return Fail("expected one input, the image batch");
    const ts::TensorInfo& input = session.inputs()[0];
    if (input.name != "image" || input.type != ts::ElementType::kFloat || input.shape.size() != 4 ||
        input.shape[0] != -1 || input.symbolic_dims[0] != "batch")
      return Fail("unexpected input " + input.name);

    // Two images at once, then the first alone: the rows must agree.
    std::vector<ts::Tensor> outputs = session.Run({{"image", MakeImages(2)}});
    if (outputs.size() != 1) return Fail("expected one output");
    const ts::Tensor& probabilities = outputs[0];
    if (probabilities.shape() != std::vector<int64_t>{2, 10})
      return Fail("output is " + probabilities.Describe() + ", expected float[2,10]");
    std::vector<float> batch2 = probabilities.ToVector<float>();
    for (int row = 0; row < 2; ++row) {
      double sum = 0;
      for (int k = 0; k < 10; ++k) sum += batch2[static_cast<size_t>(row * 10 + k)];
      if (std::fabs(sum - 1.0) > 1e-4) return Fail("softmax row " + std::to_string(row) + " sums to " + std::to_string(sum));
    }
    std::vector<float> first(MakeImages(2).ToVector<float>());
    first.resize(3 * 32 * 32);
    std::vector<float> batch1 =
        session.Run({{"image", ts::Tensor::FromVector<float>({1, 3, 32, 32}, first)}}, {"probabilities"})[0]
            .ToVector<float>();
    for (size_t k = 0; k < 10; ++k)
      if (std::fabs(batch1[k] - batch2[k]) > 1e-5f) return Fail("batch of one disagrees with batch of two");

    int best = 0;
    for (int k = 1; k < 10; ++k)
      if (batch1[static_cast<size_t>(k)] > batch1[static_cast<size_t>(best)]) best = k;
    std::printf("class %d, p=%.4f\n", best, batch1[static_cast<size_t>(best)]);

    // A wrong feed is reported as a tessera::v1::Error naming the input.
    try {
      session.Run({{"image", ts::Tensor::Zeros(ts::ElementType::kFloat, {1, 3, 16, 16})}});
      return Fail("a 16x16 image was accepted");
    } catch (const ts::Error& e) {
      if (e.code() != ts::ErrorCode::kInvalidArgument || std::string(e.what()).find("image") == std::string::npos)
        return Fail(std::string("wrong error for a bad feed: ") + ts::ErrorCodeName(e.code()) + ": " + e.what());
    }
  } catch (const tessera::v1::Error& e) {
    return Fail(std::string(tessera::v1::ErrorCodeName(e.code())) + ": " + e.what());
  }
  std::printf("ok\n");
  return 0;
}
