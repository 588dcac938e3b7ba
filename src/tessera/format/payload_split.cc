// Parses a serialized ModelProto while keeping the main graph's initializer
// raw_data out of protobuf: a plain parse copies every weight into a
// std::string and then TensorFromWire copies it again, so loading a model
// briefly held the file's pages, the protobuf strings and the tensors at
// once (three times the weights; bert_base peaked at 1.3 GB for 0.44 GB of
// weights). Here the bytes around each payload are merged into the message
// piece by piece (concatenated fields merge like one message, the wire
// format's rule) and each payload is recorded by address instead, to be
// copied once, straight into its tensor.
#include <sys/mman.h>
#include <unistd.h>

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>

#include "tessera/format/proto_convert.h"

namespace tessera::format_internal {

namespace {

// Field numbers of the ONNX messages walked here (onnx_wire.proto).
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;
constexpr int kLengthDelimited = 2;

struct Field {
  uint32_t number = 0;
  int wire_type = 0;
  const uint8_t* begin = nullptr;    // the tag
  const uint8_t* payload = nullptr;  // length-delimited fields: the bytes after the length
  size_t payload_size = 0;
  const uint8_t* end = nullptr;
};

bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    uint8_t b = *p++;
    r |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *v = r;
      return true;
    }
  }
  return false;
}

// Reads the field at p. Groups (wire types 3 and 4, long deprecated) and
// anything malformed return false; the caller then parses the plain way,
// which reports the problem as it always did.
bool NextField(const uint8_t*& p, const uint8_t* end, Field* f) {
  f->begin = p;
  uint64_t tag = 0;
  if (!ReadVarint(p, end, &tag)) return false;
  f->number = static_cast<uint32_t>(tag >> 3);
  f->wire_type = static_cast<int>(tag & 7);
  if (f->number == 0 || (tag >> 3) > 0x1FFFFFFF) return false;
  uint64_t v = 0;
  switch (f->wire_type) {
    case 0:
      if (!ReadVarint(p, end, &v)) return false;
      break;
    case 1:
      if (end - p < 8) return false;
      p += 8;
      break;
    case kLengthDelimited:
      if (!ReadVarint(p, end, &v) || v > static_cast<uint64_t>(end - p)) return false;
      f->payload = p;
      f->payload_size = static_cast<size_t>(v);
      p += v;
      break;
    case 5:
      if (end - p < 4) return false;
      p += 4;
      break;
    default: return false;
  }
  f->end = p;
  return true;
}

bool MergeSlice(const uint8_t* begin, const uint8_t* end, int recursion_limit, google::protobuf::MessageLite* msg) {
  if (begin == end) return true;
  google::protobuf::io::CodedInputStream in(begin, static_cast<int>(end - begin));
  in.SetRecursionLimit(recursion_limit);
  return msg->MergeFromCodedStream(&in) && in.ConsumedEntireMessage();
}

bool SplitTensor(const uint8_t* p, const uint8_t* end, int recursion_limit, wire::Tensor* t, RawPayloads* payloads) {
  const uint8_t* run = p;
  while (p < end) {
    Field f;
    if (!NextField(p, end, &f)) return false;
    if (f.number != kTensorRawData || f.wire_type != kLengthDelimited) continue;
    if (!MergeSlice(run, f.begin, recursion_limit, t)) return false;
    (*payloads)[t] = RawPayload{f.payload, f.payload_size};  // a repeated optional field: the last one wins
    run = f.end;
  }
  return MergeSlice(run, end, recursion_limit, t);
}

bool SplitGraph(const uint8_t* p, const uint8_t* end, int recursion_limit, wire::Graph* g, RawPayloads* payloads) {
  const uint8_t* run = p;
  while (p < end) {
    Field f;
    if (!NextField(p, end, &f)) return false;
    if (f.number != kGraphInitializer || f.wire_type != kLengthDelimited) continue;
    if (!MergeSlice(run, f.begin, recursion_limit, g)) return false;
    if (recursion_limit < 1) return false;
    if (!SplitTensor(f.payload, f.payload + f.payload_size, recursion_limit - 1, g->add_initializer(), payloads))
      return false;
    run = f.end;
  }
  return MergeSlice(run, end, recursion_limit, g);
}

}  // namespace

bool ParseModelSplittingPayloads(const uint8_t* data, size_t size, int recursion_limit, wire::Model* model,
                                 RawPayloads* payloads) {
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  const uint8_t* run = p;
  while (p < end) {
    Field f;
    if (!NextField(p, end, &f)) return false;
    if (f.number != kModelGraph || f.wire_type != kLengthDelimited) continue;
    if (!MergeSlice(run, f.begin, recursion_limit, model)) return false;
    if (recursion_limit < 1) return false;
    if (!SplitGraph(f.payload, f.payload + f.payload_size, recursion_limit - 1, model->mutable_graph(), payloads))
      return false;
    run = f.end;
  }
  return MergeSlice(run, end, recursion_limit, model);
}

void DropMappedPages(const void* data, size_t size) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) & ~(page - 1);
  // Advice only: the pages are a private read-only file mapping, so a later
  // read simply faults them in again from the file.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace tessera::format_internal
