// compare's dump indexes: an msprobe dump.json (relaxed JSON with bare NaN/Infinity, nested
// input/output/parameters flattened into rows) and banjia's own capture index.json, each loaded
// through load_dump from a directory holding just that file, then every entry's tensor looked up.
// Properties: only InputError escapes; every entry has a key; a tensor that cannot be loaded is a
// one-line problem, never an exception; a count sketch is kept only under a scheme and with its
// number of buckets; quoting non-finite tokens never shortens the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/errors.h"
#include "compare/model/dump_loader.h"
#include "compare/model/dump_model.h"
#include "compare/readers/relaxed_json.h"
#include "fuzz_check.h"
#include "fuzz_files.h"

using namespace banjia;
using namespace banjia::compare;

namespace {
const FuzzDir dir("msprobe_dump");

void load(const std::filesystem::path& where) {
  try {
    Dump d = load_dump(where.string());
    for (const DumpEntry& e : d.entries) {
      FUZZ_CHECK(d.format == "banjia" || !e.key.empty(), "msprobe rows have names");
      FUZZ_CHECK(e.stats.sketch.empty() || (d.sketch && e.stats.sketch.size() == static_cast<size_t>(d.sketch->buckets)),
                 "a sketch is read only under a scheme, with its number of buckets");
      (void)name_without_call_count(e, d.format);
      LoadedTensor t;
      std::string problem = load_tensor(d, e, t);
      FUZZ_CHECK(!problem.empty() || t.view.byte_size() <= (t.mapping ? t.mapping->bytes().size() : t.buffer.size()),
                 "a loaded tensor lies inside its bytes");
    }
  } catch (const InputError&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  FUZZ_CHECK(quote_nonfinite_tokens(text).size() >= size, "quoting never shortens");
  dir.write("msprobe/dump.json", text);
  load(dir.root() / "msprobe");
  load(dir.root() / "msprobe" / "dump.json");
  dir.write("capture/index.json", text);
  load(dir.root() / "capture");
  return 0;
}
