// torch_npu's SQLite export as `trace summary` reads it (trace/ascend_db): the input is written as a
// .db file and read. Seeds are small excerpts of the real export (fuzz/make_ascend_db_seeds.py), so
// mutations reach the records (values of the wrong type, NULLs, huge or negative times, missing
// tables) as well as SQLite's own corruption checks.
// Properties: only InputError escapes; a trace that loads has the shape check_trace asks for; reading
// the same file twice gives the same events; the read leaves no file beside the database.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "common/errors.h"
#include "fuzz_check.h"
#include "fuzz_files.h"
#include "trace/readers/ascend_db.h"
#include "trace_checks.h"

using namespace banjia;
using namespace banjia::trace;

namespace {
const FuzzDir dir("ascend_db");

std::optional<TraceShape> read(const std::filesystem::path& p) {
  try {
    return check_trace(read_ascend_db(p));
  } catch (const InputError&) {
    return std::nullopt;
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto db = dir.write("p.db", std::string_view(reinterpret_cast<const char*>(data), size));
  std::optional<TraceShape> first = read(db);
  FUZZ_CHECK(read(db) == first, "reading the same database twice gives the same events");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.root())) ++files;
  FUZZ_CHECK(files == 1, "reading leaves no -wal/-shm/-journal file beside the database");
  return 0;
}
