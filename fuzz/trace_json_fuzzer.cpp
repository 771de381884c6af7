// Trace JSON reader (trace/json_trace_reader: json_source + json_chunks + the On-Demand event parser,
// AVX2 build when the CPU has it): Kineto `{"traceEvents": [...]}` and torch_npu bare arrays, plain
// and gzip. Each input is read the way `trace summary` reads it (default parts), again (same result),
// as one whole document, in 512-byte parts (the splitter rewrites separators in place) and gzipped.
// Properties: only InputError escapes; every complete event has a time and a non-negative
// duration, both within +-kMaxTimeNs, ids inside the string pool, all columns the same length; re-reading gives the same
// events; the gzip copy gives exactly what the plain file gives.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/errors.h"
#include "fuzz_check.h"
#include "fuzz_files.h"
#include "trace_checks.h"
#include "trace/readers/json_trace_reader.h"

using namespace banjia;
using namespace banjia::trace;

namespace {
const FuzzDir dir("trace_json");

std::optional<TraceShape> read(const std::filesystem::path& p, std::optional<size_t> part_bytes) {
  try {
    return check_trace(part_bytes ? read_json_trace(p, *part_bytes) : read_json_trace(p));
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// As `trace ops` reads: small parts, every thread, and the "Input type" lists kept.
std::optional<TraceShape> read_with_input_types(const std::filesystem::path& p) {
  try {
    return check_trace(read_json_trace(p, 512, 0, true));
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// One deflate state for the process, reset per input: a fresh one is ~400 KB of zlib tables, which
// ASan maps and unmaps for every input (page faults and TLB shootdowns were a third of the time).
std::string gzip(std::string_view in) {
  static z_stream z = [] {
    z_stream s{};
    if (deflateInit2(&s, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
    return s;
  }();
  if (deflateReset(&z) != Z_OK) std::abort();
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto plain = dir.write("trace.json", text);
  std::optional<TraceShape> first = read(plain, std::nullopt);
  FUZZ_CHECK(read(plain, std::nullopt) == first, "reading the same bytes twice gives the same events");
  std::optional<TraceShape> whole = read(plain, 0), tiny = read(plain, 512);
  // Splitting is a layout shortcut: where the parts and the whole document both load, they agree.
  if (whole && first) FUZZ_CHECK(whole->events == first->events, "whole-document and parted reads agree");
  if (whole && tiny) FUZZ_CHECK(whole->events == tiny->events, "whole-document and tiny-part reads agree");
  std::optional<TraceShape> typed = read_with_input_types(plain);
  FUZZ_CHECK(typed.has_value() == tiny.has_value() && (!typed || *typed == *tiny),
             "keeping the input types changes nothing else a read gives");
  if (text.starts_with("\x1f\x8b")) return 0;  // already gzip: a second layer would be read as data
  auto gz = dir.write("trace.json.gz", gzip(text));
  FUZZ_CHECK(read(gz, std::nullopt) == first, "the gzip copy reads like the plain file");
  return 0;
}
