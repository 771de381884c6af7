#include "trace/readers/profiler_identity.h"

#include <simdjson.h>

#include "common/file_io.h"

namespace banjia::trace {

namespace {

std::optional<int64_t> integer_at(simdjson::dom::element e, std::string_view key) {
  int64_t v = 0;
  if (e.at_key(key).get_int64().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

// A profiler_info file is a few KiB; anything larger is not one and is ignored.
constexpr size_t kMaxInfoBytes = size_t{1} << 20;

}  // namespace

RankIdentity parse_distributed_info(std::string_view json) {
  RankIdentity id;
  simdjson::dom::parser parser;
  simdjson::padded_string text(json);
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS || !doc.is_object()) return id;
  id.rank = integer_at(doc, "rank");
  id.world_size = integer_at(doc, "world_size");
  return id;
}

RankIdentity torch_npu_identity(const std::filesystem::path& output_dir) {
  RankIdentity id;
  std::error_code ec;
  std::vector<std::filesystem::path> infos;
  for (const auto& dir : {output_dir.parent_path(), output_dir}) {
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      std::string n = e.path().filename().string();
      if (n.starts_with("profiler_info") && n.ends_with(".json")) infos.push_back(e.path());
    }
    if (!infos.empty()) break;
  }
  if (infos.size() != 1) return id;  // none, or several: no single identity to take
  std::string text;
  try {
    text = read_text_file(infos[0], kMaxInfoBytes, "a profiler_info JSON file");
  } catch (const std::exception&) {
    return id;  // metadata only: an unreadable file leaves the rank unknown, the trace is still read
  }
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS || !doc.is_object()) return id;
  id.rank = integer_at(doc, "rank_id");
  std::string_view dir;
  if (doc.at_pointer("/config/common_config/on_trace_ready/_dir_name").get_string().get(dir) == simdjson::SUCCESS)
    id.job = std::string(dir);
  return id;
}

}  // namespace banjia::trace
