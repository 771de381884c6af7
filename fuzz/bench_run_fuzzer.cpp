// bench compare inputs: the recorder's JSON and iteration CSVs. Bad input may only end in
// InputError; a run that loads has finite, positive times only.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bench/run.h"
#include "common/errors.h"
#include "fuzz_check.h"

using namespace banjia;

namespace {
template <class F>
void check_run(F&& parse) {
  try {
    bench::Run run = parse();
    for (double t : run.times_ms) FUZZ_CHECK(std::isfinite(t) && t > 0, "loaded times are finite and positive");
  } catch (const InputError&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // simdjson needs its padding: give it an owning string rather than a view of libFuzzer's buffer.
  std::string text(reinterpret_cast<const char*>(data), size);
  check_run([&] { return bench::parse_json_run(text, "fuzz.json"); });
  check_run([&] { return bench::parse_csv_run(text, "fuzz.csv"); });
  return 0;
}
