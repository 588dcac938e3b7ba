// The OpenCL EP's kernel families. Each family file holds the OpenCL C
// source of its kernels and the rows that declare them; a row here is the
// only declaration of an OpenCL kernel.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessera/ops/kernel_table.h"
#include "tessera/partition/execution_provider.h"

namespace tessera::opencl {

// A kernel row plus what the partitioner must know about it.
struct OpenClRow {
  KernelRow row;
  // Operands read on the host (shapes, axes, indices) and outputs made there.
  std::vector<size_t> host_inputs;
  std::vector<size_t> host_outputs;
  // Extra conditions (attributes, ranks, shapes): "" claims the node, any
  // other text is the reason it is declined.
  std::function<std::string(const NodeQuery&)> check;
};

std::vector<OpenClRow> ElementwiseRows();  // opencl_elementwise.cc
std::vector<OpenClRow> ShapeRows();        // opencl_shape.cc
std::vector<OpenClRow> MatMulRows();       // opencl_matmul.cc
std::vector<OpenClRow> ConvPoolRows();     // opencl_conv_pool.cc
std::vector<OpenClRow> ReduceRows();       // opencl_reduce.cc (reductions, Softmax, normalization)
std::vector<OpenClRow> LayoutRows();       // opencl_layout.cc (Transpose, Concat, Slice, Gather, ...)

extern const char* const kElementwiseSource;
extern const char* const kShapeSource;
extern const char* const kMatMulSource;
extern const char* const kConvPoolSource;
extern const char* const kReduceSource;
extern const char* const kLayoutSource;

// Every family's source, concatenated into one program.
std::string ProgramSource();

}  // namespace tessera::opencl
