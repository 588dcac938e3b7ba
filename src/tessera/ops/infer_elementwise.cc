// Schema entries of the ai.onnx ops that keep their input's shape
// (activations, unary math, normalizations, scans, scatters) or broadcast
// their inputs (arithmetic, comparisons, Where), and of the casts.
#include "tessera/ops/infer_rules.h"

namespace tessera::shape_inference {

namespace {

using namespace op_trait;

// Dropout's optional second output is the boolean mask.
std::vector<TypeInfo> DropoutRule(const InferenceInput& in) {
  std::vector<TypeInfo> result = {in.inputs[0]};
  if (in.node.outputs.size() > 1) {
    TypeInfo mask = in.inputs[0];
    mask.elem_type = DataType::kBool;
    result.push_back(mask);
  }
  return result;
}

std::vector<TypeInfo> BroadcastAs(const InferenceInput& in, DataType t) {
  auto shape = Broadcast(in.inputs);
  return {shape ? TensorOf(t, *shape) : TensorOf(t)};
}

std::vector<TypeInfo> BroadcastArithmetic(const InferenceInput& in) { return BroadcastAs(in, in.inputs[0].elem_type); }
std::vector<TypeInfo> BroadcastPredicate(const InferenceInput& in) { return BroadcastAs(in, DataType::kBool); }
std::vector<TypeInfo> WhereRule(const InferenceInput& in) {
  return BroadcastAs(in, in.inputs.size() > 1 ? in.inputs[1].elem_type : in.inputs[0].elem_type);
}

std::vector<TypeInfo> BoolOfInput0(const InferenceInput& in) {
  TypeInfo r = in.inputs[0];
  r.elem_type = DataType::kBool;
  return {r};
}

std::vector<TypeInfo> CastRule(const InferenceInput& in) {
  TypeInfo r = in.inputs[0];
  r.kind = TypeInfo::Kind::kTensor;
  r.elem_type = static_cast<DataType>(AttrInt(in.node, "to", 0));
  return {r};
}

std::vector<TypeInfo> CastLikeRule(const InferenceInput& in) {
  TypeInfo r = in.inputs[0];
  if (in.inputs.size() > 1) r.elem_type = in.inputs[1].elem_type;
  return {r};
}

constexpr OpSchema Preserving(std::string_view op, uint32_t traits = 0) {
  return Onnx(op, SameAsInput0, kShapePreserving | traits);
}

}  // namespace

std::vector<OpSchema> ElementwiseSchemas() {
  return {
      // Unary math and activations.
      Preserving("Abs"), Preserving("Neg"), Preserving("Exp"), Preserving("Log"), Preserving("Sqrt"),
      Preserving("Reciprocal"), Preserving("Floor"), Preserving("Ceil"), Preserving("Round"), Preserving("Sign"),
      Preserving("Sin"), Preserving("Cos"), Preserving("Tan"), Preserving("Asin"), Preserving("Acos"),
      Preserving("Atan"), Preserving("Sinh"), Preserving("Cosh"), Preserving("Asinh"), Preserving("Acosh"),
      Preserving("Atanh"), Preserving("Erf"), Preserving("Relu"), Preserving("LeakyRelu"), Preserving("Elu"),
      Preserving("Selu"), Preserving("Celu"), Preserving("Sigmoid"), Preserving("HardSigmoid"),
      Preserving("HardSwish"), Preserving("Tanh"), Preserving("Softplus"), Preserving("Softsign"),
      Preserving("ThresholdedRelu"), Preserving("Gelu"), Preserving("Mish"), Preserving("Shrink"),
      Preserving("Swish"), Preserving("Clip"), Preserving("PRelu"), Preserving("BitwiseNot"), Preserving("Not"),
      // Along an axis or over the whole tensor, same shape out.
      Preserving("Softmax"), Preserving("LogSoftmax"), Preserving("Hardmax"), Preserving("BatchNormalization"),
      Preserving("LayerNormalization"), Preserving("InstanceNormalization"), Preserving("GroupNormalization"),
      Preserving("LRN"), Preserving("LpNormalization"), Preserving("MeanVarianceNormalization"),
      Preserving("RMSNormalization"), Preserving("SimplifiedLayerNormalization"), Preserving("CumSum"),
      Preserving("CumProd"), Preserving("Trilu"), Preserving("RotaryEmbedding"), Preserving("TensorScatter"),
      Preserving("Scatter"), Preserving("EyeLike", kMayGrow),
      // Same shape, elements moved or passed on.
      Preserving("Identity", kDataMovement), Preserving("ReverseSequence", kDataMovement),
      Preserving("ScatterElements", kDataMovement), Preserving("ScatterND", kDataMovement),
      // Samples its mask in training mode; the redundant-node pass removes it
      // when it provably runs in inference mode.
      Onnx("Dropout", DropoutRule, kShapePreserving | kNondeterministic),
      // Broadcasting.
      Onnx("Add", BroadcastArithmetic), Onnx("Sub", BroadcastArithmetic), Onnx("Mul", BroadcastArithmetic),
      Onnx("Div", BroadcastArithmetic), Onnx("Pow", BroadcastArithmetic), Onnx("Mod", BroadcastArithmetic),
      Onnx("Max", BroadcastArithmetic), Onnx("Min", BroadcastArithmetic), Onnx("Sum", BroadcastArithmetic),
      Onnx("Mean", BroadcastArithmetic), Onnx("BitShift", BroadcastArithmetic),
      Onnx("BitwiseAnd", BroadcastArithmetic), Onnx("BitwiseOr", BroadcastArithmetic),
      Onnx("BitwiseXor", BroadcastArithmetic), Onnx("Equal", BroadcastPredicate), Onnx("Less", BroadcastPredicate),
      Onnx("Greater", BroadcastPredicate), Onnx("LessOrEqual", BroadcastPredicate),
      Onnx("GreaterOrEqual", BroadcastPredicate), Onnx("And", BroadcastPredicate), Onnx("Or", BroadcastPredicate),
      Onnx("Xor", BroadcastPredicate), Onnx("Where", WhereRule),
      // Element tests and casts.
      Onnx("IsNaN", BoolOfInput0), Onnx("IsInf", BoolOfInput0), Onnx("Cast", CastRule, kDataMovement),
      Onnx("CastLike", CastLikeRule, kDataMovement),
  };
}

}  // namespace tessera::shape_inference
