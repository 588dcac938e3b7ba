// The `tessera` command-line tool.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/tools/cli.h"

namespace {

void PrintUsage() {
  std::printf(
      "usage: tessera <command> [options]\n\n"
      "commands:\n"
      "  run [MODEL] [--input NAME=FILE.pb|FILE.npy ...] [--providers LIST] [--threads N] [--runs R]\n"
      "        [--profile PREFIX] [--level L] [--disable PASS,...] [--no-winograd] [--max-isa L] [--verbose] [--summary]\n"
      "        run a model (the bundled default model when MODEL is omitted) and print its outputs\n"
      "  conformance DIR... [--providers LIST] [--filter REGEX] [--report FILE.json] [--jobs N]\n"
      "        [--timeout SEC] [--expected FILE] [--skip FILE ...] [--tolerances FILE] [--rtol R] [--atol A] [--scaled-atol K]\n"
      "        [--level L] [--disable PASS,...] [--no-winograd] [--max-isa L] [--verbose]\n"
      "        run ONNX backend test folders and compare outputs with the expected ones\n"
      "  validate MODEL --reference DIR|FILE.npz [--rtol R] [--atol A] [--providers LIST] [--level L] [--no-winograd] [--max-isa L]\n"
      "        [--json]\n"
      "        run a model on reference inputs (ONNX test folders, input_i/output_i .pb/.npy, or numpy.savez\n"
      "        archives named by input/output) and compare with the reference outputs; exit 1 on a mismatch\n"
      "  ops [--providers LIST] [--json]\n"
      "        list the kernel tables: domain, op, opset range, element types\n"
      "  bench MODEL [--threads N] [--runs R] [--warmup W] [--providers LIST] [--level L] [--json] [--no-memory-arena]\n"
      "        [--no-winograd] [--max-isa L]\n"
      "        session creation, first-run and steady-state latency, peak RSS\n"
      "  partition MODEL [--providers LIST] [--level L] [--json] | partition MODEL --compare LIST_A LIST_B\n"
      "        where each node would run, partitions and copies, without running the model\n"
      "  partition MODEL [--providers LIST] --html OUT.html [--profile TRACE.json] [--annotate OUT.onnx]\n"
      "        the placement map (one self-contained page) and/or the model with each node's placement in its\n"
      "        metadata_props, for Netron (docs/profiling.md)\n"
      "  doctor MODEL [--providers LIST] [--static] [--json] [--fail-on info|warning|error]\n"
      "        export lint: foldable constants, value-dependent control flow, dynamic dims, ops and opsets the\n"
      "        providers will not take, each with the export fix; exit 1 at or above --fail-on (default error)\n"
      "  optimize IN.onnx OUT.onnx [--level L] [--disable PASS,...] [--providers LIST] [--stats] [--verbose]\n"
      "        run the graph optimizer and write the optimized model (see docs/optimizer.md)\n"
      "  quantize IN.onnx OUT.onnx --mode dynamic|static [--calibration DIR] [--method minmax|percentile|entropy]\n"
      "        [--percentile P] [--per-channel] [--reduce-range] [--weight-type int8|uint8] [--activation-type uint8|int8]\n"
      "        [--op-types A,B] [--exclude-op-types A,B] [--exclude-nodes A,B] [--extra KEY=VALUE] [--external-data]\n"
      "        write an int8 model: dynamic (MatMulInteger) or static QDQ calibrated on DIR (docs/quantization.md)\n"
      "  generate MODEL --prompt-tokens 1,2,3 [--max-new-tokens N] [--threads N] [--providers LIST]\n"
      "        greedy decoding with a decoder in ORT's LLM layout (input_ids, attention_mask, past_key_values.*),\n"
      "        the KV cache kept between steps; prints the tokens and prefill / decode tokens per second\n"
      "  isa [--max-isa L] [--providers LIST]\n"
      "        the instruction-set levels this machine runs and what each library uses under the cap;\n"
      "        exit 3 when the machine cannot run L\n"
      "  profile TRACE.json [--peak GFLOPS]\n"
      "        summarize a profile: time by op type, provider and kernel, GFLOP/s (and the share of --peak),\n"
      "        copies, slowest nodes\n\n"
      "--free-dim NAME=SIZE (run, bench, partition, validate, optimize, doctor) fixes a symbolic input dimension\n"
      "(SessionOptions::free_dimension_overrides).\n"
      "--max-isa avx512|avx2|sse4|scalar caps the SIMD level of every kernel, as TESSERA_MAX_ISA does\n"
      "(docs/simd.md); bench, profiles and run --verbose print the instruction sets in use.\n");
}

}  // namespace

// oneDNN's OpenMP threads spin for a long while after each primitive
// (libgomp's default: 300000 spins), fighting the session's own pool and any
// other work for the cores; a passive wait instead pays a futex wake-up per
// primitive. A bounded spin of 10000 measured best on the 2-core machine at
// 2 threads: efficientnet_b0 7.4 ms (passive 15.7, default 12.4), bert_base
// 131 ms (passive 142, default 145). libgomp reads the setting from the
// environment when it loads, before main, so the tool sets it and restarts
// itself once, unless the user chose a wait policy or spin count.
static void BoundOpenMpSpin(char** argv) {
#ifdef TESSERA_HAVE_DNNL
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  setenv("GOMP_SPINCOUNT", "10000", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as is
#else
  (void)argv;
#endif
}

int main(int argc, char** argv) {
  BoundOpenMpSpin(argv);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    PrintUsage();
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  try {
    if (cmd == "run") return tessera::cli::RunCommand(argc, argv);
    if (cmd == "conformance") return tessera::cli::ConformanceCommand(argc, argv);
    if (cmd == "ops") return tessera::cli::OpsCommand(argc, argv);
    if (cmd == "profile") return tessera::cli::ProfileCommand(argc, argv);
    if (cmd == "bench") return tessera::cli::BenchCommand(argc, argv);
    if (cmd == "partition") return tessera::cli::PartitionCommand(argc, argv);
    if (cmd == "validate") return tessera::cli::ValidateCommand(argc, argv);
    if (cmd == "optimize") return tessera::cli::OptimizeCommand(argc, argv);
    if (cmd == "isa") return tessera::cli::IsaCommand(argc, argv);
    if (cmd == "quantize") return tessera::cli::QuantizeCommand(argc, argv);
    if (cmd == "doctor") return tessera::cli::DoctorCommand(argc, argv);
    if (cmd == "generate") return tessera::cli::GenerateCommand(argc, argv);
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "tessera %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera %s: internal error: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "tessera: unknown command '%s'\n\n", cmd.c_str());
  PrintUsage();
  return 2;
}
