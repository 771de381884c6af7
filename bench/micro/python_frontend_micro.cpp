// Tokenizer and the whole per-file scan over a real file of torch: BANJIA_MICRO_SAMPLE names it
// (bench/run.sh passes torch/nn/modules/module.py of the .venv).
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "common/file_io.h"
#include "python/module.h"
#include "python/tokenizer.h"
#include "rules/sources/python_scanner.h"

namespace {

const std::string& sample() {
  static const std::string text = [] {
    const char* path = std::getenv("BANJIA_MICRO_SAMPLE");
    return path ? banjia::read_file(path) : std::string();
  }();
  return text;
}

void BM_Tokenize(benchmark::State& state) {
  const auto& text = sample();
  if (text.empty()) state.SkipWithError("set BANJIA_MICRO_SAMPLE to a Python file");
  for (auto _ : state) {
    auto ts = banjia::python::tokenize(text);
    benchmark::DoNotOptimize(ts.tokens.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Tokenize);

void BM_FrontEnd(benchmark::State& state) {
  const auto& text = sample();
  if (text.empty()) state.SkipWithError("set BANJIA_MICRO_SAMPLE to a Python file");
  for (auto _ : state) {
    auto ts = banjia::python::tokenize(text);
    auto view = banjia::python::build_view(text, ts);
    auto imports = banjia::python::collect_imports(view);
    auto refs = banjia::python::resolve_dotted_names(view, imports);
    benchmark::DoNotOptimize(refs.refs.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_FrontEnd);

void BM_ScanPythonFile(benchmark::State& state) {
  const auto& text = sample();
  const auto& rules = banjia::rules::RuleCatalog::builtin();
  for (auto _ : state) {
    std::vector<banjia::Finding> out;
    banjia::rules::scan_python(text, "module.py", rules, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ScanPythonFile);

}  // namespace
