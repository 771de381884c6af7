#include "compare/model/msprobe_dump.h"

#include <fmt/format.h>
#include <simdjson.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "compare/readers/relaxed_json.h"

namespace banjia::compare {

namespace {
namespace fs = std::filesystem;
using simdjson::dom::element;

struct Flattener {
  const std::string& path;  // the dump.json, for error messages
  Dump& dump;
  std::vector<fs::path> data_dirs;
  bool tensor_task;

  void leaf(const std::string& call, const std::string& name, simdjson::dom::object obj) {
    std::string_view type;
    if (obj["type"].get(type) != simdjson::SUCCESS || !type.ends_with("Tensor")) return;  // ints, slices...
    DumpEntry e;
    e.key = name;
    e.module = call;
    e.type = call.substr(0, call.find('.'));
    std::string_view dtype;
    if (obj["dtype"].get(dtype) == simdjson::SUCCESS) e.dtype = std::string(dtype);
    simdjson::dom::array shape;
    if (obj["shape"].get(shape) == simdjson::SUCCESS) {
      auto dims = shape_dimensions(shape);
      if (!dims) throw InputError(path, "'" + name + "': a shape dimension is not an integer in [0, 2^63)");
      e.has_shape = true;
      e.shape = std::move(*dims);
    }
    auto stat = [&](const char* field) -> std::optional<double> {
      element v;
      if (obj[field].get(v) != simdjson::SUCCESS) return std::nullopt;
      return relaxed_number(v);
    };
    e.stats.max = stat("Max");
    e.stats.min = stat("Min");
    e.stats.mean = stat("Mean");
    e.stats.norm = stat("Norm");
    bool rg = false;
    if (obj["requires_grad"].get(rg) == simdjson::SUCCESS) {
      e.requires_grad_known = true;
      e.requires_grad = rg;
    }
    std::string_view data_name;
    if (obj["data_name"].get(data_name) == simdjson::SUCCESS && !data_name.empty() &&
        !data_name_stays_inside(data_name)) {
      e.data_path = std::string(data_name);
      e.data = DataKind::kOutsideDump;
    } else if (obj["data_name"].get(data_name) == simdjson::SUCCESS && !data_name.empty()) {
      e.data_path = std::string(data_name);
      e.data = DataKind::kMissingFile;
      for (const auto& dir : data_dirs) {
        fs::path candidate = dir / std::string(data_name);
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) {
          e.data_path = candidate.string();
          e.data = candidate.extension() == ".pt" ? DataKind::kPtFile : DataKind::kNpyFile;
          break;
        }
      }
    } else if (tensor_task) {
      e.data = DataKind::kMissingFile;
    }
    // A tensor-task entry whose data file is absent is compared by the statistics dump.json gives
    // for it (msprobe writes both), rather than not at all.
    if (e.data == DataKind::kMissingFile && e.stats.any()) e.data = DataKind::kNone;
    dump.entries.push_back(std::move(e));
  }

  void walk(const std::string& call, const std::string& name, element v) {
    if (v.is_object()) {
      simdjson::dom::object obj = v.get_object();
      std::string_view type;
      if (obj["type"].get(type) == simdjson::SUCCESS) return leaf(call, name, obj);
      if (element t; obj["tensor"].get(t) == simdjson::SUCCESS) return walk(call, name, t);  // P2POp
      for (auto [k, child] : obj) walk(call, name + "." + std::string(k), child);
    } else if (v.is_array()) {
      size_t i = 0;
      for (element child : v.get_array()) walk(call, fmt::format("{}.{}", name, i++), child);
    }
  }

  void call(const std::string& call_name, simdjson::dom::object obj) {
    // Inputs, then parameters, then outputs (msprobe's row order); parameters_grad entries map
    // parameter names straight to tensors.
    static constexpr std::pair<const char*, const char*> kGroups[] = {
        {"input_args", ".input"}, {"input_kwargs", ".input"}, {"input", ".input"},
        {"parameters", ".parameters"}, {"output", ".output"}};
    bool known = false;
    for (const auto& [field, suffix] : kGroups) {
      element v;
      if (obj[field].get(v) == simdjson::SUCCESS) {
        known = true;
        walk(call_name, call_name + suffix, v);
      }
    }
    if (!known) {
      for (auto [k, child] : obj) walk(call_name, call_name + "." + std::string(k), child);
    }
  }
};
}  // namespace

void load_msprobe_dump(const fs::path& dump_json, Dump& dump) {
  simdjson::dom::parser parser;
  simdjson::dom::element root = parse_relaxed_json_file(dump_json.string(), parser, "msprobe dump JSON");
  simdjson::dom::object data;
  if (root["data"].get(data) != simdjson::SUCCESS)
    throw InputError(dump_json.string(), "msprobe dump.json has no \"data\" object");
  dump.format = "msprobe";
  std::string_view task = "statistics";
  if (root["task"].get(task) != simdjson::SUCCESS) task = "statistics";
  dump.task = task == "tensor" ? "tensor" : "statistics";
  for (const char* k : {"task", "level", "framework"}) {
    std::string_view v;
    if (root[k].get(v) == simdjson::SUCCESS) dump.meta[k] = std::string(v);
  }
  fs::path dir = dump_json.parent_path();
  const std::string path = dump_json.string();
  Flattener f{path, dump, {dir / "dump_tensor_data", dir}, dump.task == "tensor"};
  std::string_view data_dir;
  if (root["dump_data_dir"].get(data_dir) == simdjson::SUCCESS && !data_dir.empty())
    f.data_dirs.insert(f.data_dirs.begin(), fs::path(std::string(data_dir)));
  for (auto [call_name, value] : data) {
    simdjson::dom::object obj;
    if (value.get(obj) != simdjson::SUCCESS) continue;
    f.call(std::string(call_name), obj);
  }
}

}  // namespace banjia::compare
