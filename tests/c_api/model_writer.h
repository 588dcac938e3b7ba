/* Writes small ONNX models (protobuf wire format, by hand) for the C API
 * tests, so they need no ONNX tooling: a one-node graph of any element
 * type, with metadata for the metadata entries. */
#ifndef TESSERA_TESTS_C_API_MODEL_WRITER_H_
#define TESSERA_TESTS_C_API_MODEL_WRITER_H_

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t* data;
  size_t size;
  size_t capacity;
} ModelBytes;

/* A model "op_type(x) -> y" whose input and output are tensors of ONNX
 * element type `elem_type` (TensorProto code) and shape `dims` (a negative
 * entry is the symbolic dimension "batch"). Producer "c_api_test", graph
 * "g", one metadata entry author=tessera. Free with FreeModel. */
ModelBytes OneNodeModel(const char* op_type, int elem_type, const int64_t* dims, size_t rank, int64_t opset);
/* "Add(x, w) -> y" over float[4]; the initializer w = {1, 2, 3, 4} is
 * stored inline, or (external != 0) as external data at offset 0 of the
 * file "weights.bin", which the caller supplies. overridable != 0 lists w
 * among the graph inputs too (a feed may replace it). */
ModelBytes AddModel(int external, int overridable);
void FreeModel(ModelBytes* m);

#endif
