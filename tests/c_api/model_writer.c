#include "model_writer.h"

#include <stdlib.h>
#include <string.h>

static void Put(ModelBytes* b, const void* p, size_t n) {
  if (b->size + n > b->capacity) {
    b->capacity = (b->size + n) * 2 + 64;
    b->data = (uint8_t*)realloc(b->data, b->capacity);
    if (!b->data) abort();
  }
  memcpy(b->data + b->size, p, n);
  b->size += n;
}

static void Varint(ModelBytes* b, uint64_t v) {
  uint8_t byte;
  do {
    byte = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) byte |= 0x80;
    Put(b, &byte, 1);
  } while (v);
}

static void IntField(ModelBytes* b, int field, int64_t v) {
  Varint(b, (uint64_t)field << 3);
  Varint(b, (uint64_t)v);
}

static void BytesField(ModelBytes* b, int field, const void* p, size_t n) {
  Varint(b, ((uint64_t)field << 3) | 2);
  Varint(b, n);
  Put(b, p, n);
}

static void StringField(ModelBytes* b, int field, const char* s) { BytesField(b, field, s, strlen(s)); }

static void MessageField(ModelBytes* b, int field, ModelBytes* inner) {
  BytesField(b, field, inner->data, inner->size);
  FreeModel(inner);
}

static ModelBytes Empty(void) {
  ModelBytes b = {NULL, 0, 0};
  return b;
}

/* ValueInfoProto { name, type { tensor_type { elem_type, shape { dim* } } } } */
static ModelBytes TensorValueInfo(const char* name, int elem_type, const int64_t* dims, size_t rank) {
  ModelBytes shape = Empty(), tensor = Empty(), type = Empty(), info = Empty();
  for (size_t i = 0; i < rank; ++i) {
    ModelBytes dim = Empty();
    if (dims[i] < 0) StringField(&dim, 2, "batch");
    else IntField(&dim, 1, dims[i]);
    MessageField(&shape, 1, &dim);
  }
  IntField(&tensor, 1, elem_type);
  MessageField(&tensor, 2, &shape);
  MessageField(&type, 1, &tensor);
  StringField(&info, 1, name);
  MessageField(&info, 2, &type);
  return info;
}

ModelBytes OneNodeModel(const char* op_type, int elem_type, const int64_t* dims, size_t rank, int64_t opset) {
  ModelBytes node = Empty(), graph = Empty(), opset_id = Empty(), meta = Empty(), model = Empty();
  StringField(&node, 1, "x");
  StringField(&node, 2, "y");
  StringField(&node, 3, "the_node");
  StringField(&node, 4, op_type);
  MessageField(&graph, 1, &node);
  StringField(&graph, 2, "g");
  StringField(&graph, 10, "graph doc");
  ModelBytes in = TensorValueInfo("x", elem_type, dims, rank);
  MessageField(&graph, 11, &in);
  ModelBytes out = TensorValueInfo("y", elem_type, dims, rank);
  MessageField(&graph, 12, &out);
  IntField(&model, 1, 10); /* ir_version */
  StringField(&model, 2, "c_api_test");
  StringField(&model, 4, "test.domain");
  IntField(&model, 5, 7); /* model_version */
  StringField(&model, 6, "model doc");
  MessageField(&model, 7, &graph);
  StringField(&opset_id, 1, "");
  IntField(&opset_id, 2, opset);
  MessageField(&model, 8, &opset_id);
  StringField(&meta, 1, "author");
  StringField(&meta, 2, "tessera");
  MessageField(&model, 14, &meta);
  return model;
}

ModelBytes AddModel(int external, int overridable) {
  const int64_t dims[1] = {4};
  const float w[4] = {1, 2, 3, 4};
  ModelBytes node = Empty(), graph = Empty(), init = Empty(), opset_id = Empty(), model = Empty();
  StringField(&node, 1, "x");
  StringField(&node, 1, "w");
  StringField(&node, 2, "y");
  StringField(&node, 4, "Add");
  MessageField(&graph, 1, &node);
  StringField(&graph, 2, "add_graph");
  IntField(&init, 1, 4);  /* dims */
  IntField(&init, 2, 1);  /* float */
  StringField(&init, 8, "w");
  if (external) {
    const char* keys[3] = {"location", "offset", "length"};
    const char* values[3] = {"weights.bin", "0", "16"};
    for (int i = 0; i < 3; ++i) {
      ModelBytes kv = Empty();
      StringField(&kv, 1, keys[i]);
      StringField(&kv, 2, values[i]);
      MessageField(&init, 13, &kv);
    }
    IntField(&init, 14, 1); /* data_location = EXTERNAL */
  } else {
    BytesField(&init, 9, w, sizeof w);
  }
  MessageField(&graph, 5, &init);
  ModelBytes in = TensorValueInfo("x", 1, dims, 1);
  MessageField(&graph, 11, &in);
  if (overridable) {
    ModelBytes w_in = TensorValueInfo("w", 1, dims, 1);
    MessageField(&graph, 11, &w_in);
  }
  ModelBytes out = TensorValueInfo("y", 1, dims, 1);
  MessageField(&graph, 12, &out);
  IntField(&model, 1, 10);
  MessageField(&model, 7, &graph);
  StringField(&opset_id, 1, "");
  IntField(&opset_id, 2, 21);
  MessageField(&model, 8, &opset_id);
  return model;
}

void FreeModel(ModelBytes* m) {
  free(m->data);
  m->data = NULL;
  m->size = m->capacity = 0;
}
