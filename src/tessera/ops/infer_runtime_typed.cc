// Schema entries of the ops whose outputs only their kernels type, when they
// run: control flow, sequences and optionals, strings, random sampling,
// signal windows and transforms, the quantization primitives Tessera leaves
// untyped, the classic ML ops (ai.onnx.ml) and the preview domains. Their
// traits still matter to the passes (random ops are never folded or merged;
// growing ops are folded only when their output is known to be small).
#include "tessera/ops/infer_rules.h"

namespace tessera::shape_inference {

namespace {

using namespace op_trait;

constexpr OpSchema Untyped(std::string_view op, uint32_t traits = 0) { return Onnx(op, nullptr, traits); }
constexpr OpSchema Preview(std::string_view domain, std::string_view op) { return {domain, op, 1, 1, nullptr, 0}; }

}  // namespace

std::vector<OpSchema> RuntimeTypedSchemas() {
  return {
      // Control flow, sequences, optionals.
      Untyped("If"), Untyped("Loop"), Untyped("Scan"), Untyped("SequenceAt"), Untyped("SequenceConstruct"),
      Untyped("SequenceEmpty"), Untyped("SequenceErase"), Untyped("SequenceInsert"), Untyped("SequenceLength"),
      Untyped("SequenceMap"), Untyped("SplitToSequence"), Untyped("ConcatFromSequence"), Untyped("Optional"),
      Untyped("OptionalGetElement"), Untyped("OptionalHasElement"),
      // Random sampling.
      Untyped("RandomNormal", kNondeterministic), Untyped("RandomNormalLike", kNondeterministic),
      Untyped("RandomUniform", kNondeterministic), Untyped("RandomUniformLike", kNondeterministic),
      Untyped("Bernoulli", kNondeterministic), Untyped("Multinomial", kNondeterministic),
      // Outputs sized by attributes or values.
      Untyped("Range", kMayGrow), Untyped("OneHot", kMayGrow), Untyped("Col2Im", kMayGrow),
      Untyped("NonMaxSuppression", kMayGrow), Untyped("Unique"), Untyped("BitCast"),
      // Signal processing.
      Untyped("DFT", kMayGrow), Untyped("STFT", kMayGrow), Untyped("MelWeightMatrix", kMayGrow),
      Untyped("BlackmanWindow", kMayGrow), Untyped("HannWindow", kMayGrow), Untyped("HammingWindow", kMayGrow),
      // Strings and images.
      Untyped("StringConcat"), Untyped("StringNormalizer"), Untyped("StringSplit", kMayGrow),
      Untyped("RegexFullMatch"), Untyped("TfIdfVectorizer", kMayGrow), Untyped("ImageDecoder", kMayGrow),
      // Quantization primitives and integer products.
      Untyped("QuantizeLinear"), Untyped("DequantizeLinear"), Untyped("DynamicQuantizeLinear"),
      Untyped("QLinearConv"), Untyped("QLinearMatMul"), Untyped("ConvInteger"), Untyped("MatMulInteger"),
      // Other compute ops.
      Untyped("AffineGrid"), Untyped("CausalConvWithState"), Untyped("DeformConv"), Untyped("Det"),
      Untyped("LinearAttention"), Untyped("MaxRoiPool"), Untyped("NegativeLogLikelihoodLoss"),
      Untyped("SoftmaxCrossEntropyLoss"), Untyped("SwiGLU"),

      OnnxMl("ArrayFeatureExtractor"), OnnxMl("Binarizer"), OnnxMl("CastMap"), OnnxMl("CategoryMapper"),
      OnnxMl("DictVectorizer"), OnnxMl("FeatureVectorizer"), OnnxMl("Imputer"), OnnxMl("LabelEncoder"),
      OnnxMl("LinearClassifier"), OnnxMl("LinearRegressor"), OnnxMl("Normalizer"), OnnxMl("OneHotEncoder"),
      OnnxMl("SVMClassifier"), OnnxMl("SVMRegressor"), OnnxMl("Scaler"), OnnxMl("TreeEnsemble"),
      OnnxMl("TreeEnsembleClassifier"), OnnxMl("TreeEnsembleRegressor"), OnnxMl("ZipMap"),

      Preview("ai.onnx.preview", "FlexAttention"), Preview("ai.onnx.preview.training", "Adagrad"),
      Preview("ai.onnx.preview.training", "Adam"), Preview("ai.onnx.preview.training", "Gradient"),
      Preview("ai.onnx.preview.training", "Momentum"),
  };
}

}  // namespace tessera::shape_inference
