// Row lists of the CPU kernel families; each is defined at the end of its
// family's file and concatenated into the CPU kernel table.
#pragma once

#include <vector>

#include "tessera/ops/kernel_table.h"

namespace tessera::cpu {

std::vector<KernelRow> UnaryMathKernels();       // elementwise_unary.cc
std::vector<KernelRow> BinaryMathKernels();      // elementwise_binary.cc
std::vector<KernelRow> LogicKernels();           // logic.cc
std::vector<KernelRow> ActivationKernels();      // activations.cc
std::vector<KernelRow> ShapeKernels();           // tensor_shape.cc
std::vector<KernelRow> LayoutKernels();          // tensor_layout.cc
std::vector<KernelRow> CastKernels();            // cast.cc
std::vector<KernelRow> IndexingKernels();        // gather_scatter.cc
std::vector<KernelRow> ReduceKernels();          // reduce.cc
std::vector<KernelRow> SoftmaxKernels();         // softmax.cc
std::vector<KernelRow> LossKernels();            // losses.cc
std::vector<KernelRow> MatMulKernels();          // matmul.cc
std::vector<KernelRow> ConvKernels();            // conv.cc
std::vector<KernelRow> PoolKernels();            // pool.cc
std::vector<KernelRow> NormalizationKernels();   // normalization.cc
std::vector<KernelRow> RecurrentKernels();       // rnn.cc
std::vector<KernelRow> ControlFlowKernels();     // control_flow.cc
std::vector<KernelRow> ResizeKernels();          // resize.cc
std::vector<KernelRow> AttentionKernels();       // attention.cc

}  // namespace tessera::cpu
