// The CPU kernel table: the concatenation of every family's rows.
#include "tessera/providers/common/simd_isa.h"
#include "tessera/providers/common/view_kernels.h"
#include "tessera/providers/cpu/cpu_execution_provider.h"
#include "tessera/providers/cpu/families.h"

namespace tessera {

const KernelTable& CpuKernelTable() {
  static const KernelTable table = [] {
    using namespace cpu;
    std::vector<KernelRow> rows;
    for (auto family : {UnaryMathKernels, BinaryMathKernels, LogicKernels, ActivationKernels, ViewKernels, ShapeKernels,
                        LayoutKernels, PadKernels, CastKernels, IndexingKernels, SelectionKernels, CumulativeKernels,
                        ReduceKernels, SoftmaxKernels, LossKernels,
                        MatMulKernels, EinsumKernels, ConvKernels, IntegerConvKernels, DeformConvKernels, CausalConvKernels,
                        PoolKernels, NormalizationKernels, RecurrentKernels,
                        ControlFlowKernels, ResizeKernels, GridSampleKernels, ObjectDetectionKernels, Col2ImKernels,
                        AttentionKernels, QuantizationKernels, QuantizedMatMulKernels, SignalKernels, SequenceKernels, StringKernels, MlKernels, RandomKernels, TrainingKernels, ImageKernels, LinearAlgebraKernels, AttentionVariantKernels, FusedKernels,
                        QLinearBinaryKernels, QLinearLookupKernels, QLinearConcatKernels, QLinearPoolKernels,
                        DynamicQuantizeMatMulKernels, MicrosoftActivationKernels, MicrosoftNormalizationKernels,
                        MatMulNBitsKernels, MicrosoftAttentionKernels, MicrosoftBertAttentionKernels,
                        QLinearSoftmaxKernels, QGemmKernels}) {
      auto part = family();
      rows.insert(rows.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
    return KernelTable("cpu", std::move(rows));
  }();
  return table;
}

void CpuExecutionProvider::CapIsa(IsaLevel level) const { cpu::CapSimdTargets(level); }

std::vector<std::pair<std::string, std::string>> CpuExecutionProvider::IsaInUse() const {
  return {{"highway", cpu::ActiveSimdTarget()}, {"openblas", cpu::BlasCoreName()}};
}

std::shared_ptr<const ExecutionProvider> MakeCpuExecutionProvider() {
  return std::make_shared<CpuExecutionProvider>();
}

}  // namespace tessera
