#include "compare/model/dump_loader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <simdjson.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/safe_paths.h"
#include "compare/model/msprobe_dump.h"
#include "compare/readers/relaxed_json.h"
#include "compare/readers/torch_pt.h"

namespace banjia::compare {

namespace {
namespace fs = std::filesystem;

std::string strip_npy_suffix(const std::string& name) {
  return name.ends_with(".npy") ? name.substr(0, name.size() - 4) : name;
}

void load_npz(const fs::path& path, Dump& dump) {
  dump.archive = std::make_shared<NpzArchive>(path);
  const auto& members = dump.archive->members();
  for (size_t i = 0; i < members.size(); ++i) {
    DumpEntry e;
    e.key = strip_npy_suffix(members[i].name);
    e.module = e.key;
    e.data = DataKind::kNpzMember;
    e.npz_member = i;
    e.data_path = members[i].name;
    dump.entries.push_back(std::move(e));
  }
}

DumpEntry npy_entry(const fs::path& file) {
  DumpEntry e;
  e.key = file.stem().string();
  e.module = e.key;
  e.data = DataKind::kNpyFile;
  e.data_path = file.string();
  return e;
}

std::optional<double> stat_field(simdjson::dom::object stats, const char* name) {
  simdjson::dom::element v;
  if (stats[name].get(v) != simdjson::SUCCESS) return std::nullopt;
  if (v.is_null()) {
    // Strict JSON writes a non-finite statistic as null and names its value in "nonfinite".
    std::string_view flagged;
    if (stats["nonfinite"][name].get(flagged) != simdjson::SUCCESS) return std::nullopt;
    if (flagged == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (flagged == "inf") return std::numeric_limits<double>::infinity();
    if (flagged == "-inf") return -std::numeric_limits<double>::infinity();
    return std::nullopt;
  }
  return relaxed_number(v);
}

// banjia capture layout: index.json + tensors.npz (or per-entry .npy files named in "file").
void load_banjia(const fs::path& dir, Dump& dump) {
  fs::path index = dir / "index.json";
  simdjson::dom::parser parser;
  simdjson::dom::element root = parse_relaxed_json_file(index.string(), parser, "JSON");
  simdjson::dom::array entries;
  if (root["entries"].get(entries) != simdjson::SUCCESS)
    throw InputError(index.string(), "index has no \"entries\" array");
  dump.format = "banjia";
  std::string_view mode = "tensors";
  if (root["mode"].get(mode) != simdjson::SUCCESS) mode = "tensors";
  dump.task = mode == "stats" ? "statistics" : "tensor";
  simdjson::dom::object top;
  if (root.get(top) == simdjson::SUCCESS) {
    for (auto [k, v] : top) {
      if (k == "entries") continue;
      if (v.is_string()) dump.meta[std::string(k)] = std::string(std::string_view(v.get_string()));
      else if (v.is_number() || v.is_bool()) dump.meta[std::string(k)] = simdjson::minify(v);
    }
  }
  if (simdjson::dom::element scheme; root["sketch"].get(scheme) == simdjson::SUCCESS) dump.sketch = parse_sketch_scheme(scheme);
  fs::path npz = dir / "tensors.npz";
  std::unordered_map<std::string, size_t> member_of;
  std::error_code ec;
  if (fs::is_regular_file(npz, ec)) {
    dump.archive = std::make_shared<NpzArchive>(npz);
    const auto& members = dump.archive->members();
    for (size_t i = 0; i < members.size(); ++i) member_of[strip_npy_suffix(members[i].name)] = i;
  }
  for (simdjson::dom::element item : entries) {
    simdjson::dom::object obj;
    std::string_view key;
    if (item.get(obj) != simdjson::SUCCESS || obj["key"].get(key) != simdjson::SUCCESS)
      throw InputError(index.string(), "an entry lacks its \"key\"");
    DumpEntry e;
    e.key = std::string(key);
    auto text_field = [&](const char* name, std::string& out) {
      std::string_view v;
      if (obj[name].get(v) == simdjson::SUCCESS) out = std::string(v);
    };
    text_field("module", e.module);
    text_field("type", e.type);
    text_field("dtype", e.dtype);
    text_field("autocast", e.autocast);
    if (int64_t k = 0; obj["reduce"].get(k) == simdjson::SUCCESS && k > 0) e.reduction = k;
    if (bool t = false; obj["training"].get(t) == simdjson::SUCCESS) e.training = t;
    if (bool c = false; obj["computes_in_output_dtype"].get(c) == simdjson::SUCCESS) e.computes_in_output_dtype = c;
    simdjson::dom::array shape;
    if (obj["shape"].get(shape) == simdjson::SUCCESS) {
      auto dims = shape_dimensions(shape);
      if (!dims) throw InputError(index.string(), "entry '" + e.key + "': a shape dimension is not an integer in [0, 2^63)");
      e.has_shape = true;
      e.shape = std::move(*dims);
    }
    simdjson::dom::object stats;
    if (obj["stats"].get(stats) == simdjson::SUCCESS) {
      e.stats.max = stat_field(stats, "max");
      e.stats.min = stat_field(stats, "min");
      e.stats.mean = stat_field(stats, "mean");
      e.stats.norm = stat_field(stats, "norm");
      auto count = [](std::optional<double> n) -> std::optional<int64_t> {
        if (!n || !std::isfinite(*n) || *n < 0 || *n > 9e18) return std::nullopt;
        return static_cast<int64_t>(*n);
      };
      e.stats.nan_count = count(stat_field(stats, "nan"));
      e.stats.inf_count = count(stat_field(stats, "inf"));
      simdjson::dom::array sketch;
      if (dump.sketch && stats["sketch"].get(sketch) == simdjson::SUCCESS && sketch.size() == static_cast<size_t>(dump.sketch->buckets)) {
        for (simdjson::dom::element v : sketch) {
          double x = 0;
          if (v.get(x) != simdjson::SUCCESS || !std::isfinite(x)) {
            e.stats.sketch.clear();
            break;
          }
          e.stats.sketch.push_back(x);
        }
      }
    }
    std::string file;
    text_field("file", file);
    if (!file.empty() && !data_name_stays_inside(file)) {
      e.data_path = file;
      e.data = DataKind::kOutsideDump;
    } else if (!file.empty()) {
      e.data_path = (dir / file).string();
      e.data = fs::is_regular_file(e.data_path, ec) ? DataKind::kNpyFile : DataKind::kMissingFile;
    } else if (auto it = member_of.find(e.key); it != member_of.end()) {
      e.data = DataKind::kNpzMember;
      e.npz_member = it->second;
      e.data_path = dump.archive->members()[it->second].name;
    } else if (dump.task == "tensor" && !dump.archive) {
      // Every such entry would be an error of its own: one line says what is missing.
      throw InputError(npz.string(), fs::exists(npz, ec) ? "not a regular file; index.json (mode \"tensors\") keeps "
                                                           "its tensors in it"
                                                         : "no such file; index.json (mode \"tensors\") keeps its "
                                                           "tensors in it");
    } else if (dump.task == "tensor") {
      e.data = DataKind::kMissingFile;
      e.data_path = "tensors.npz:" + e.key;
    }
    dump.entries.push_back(std::move(e));
  }
}

// A .npy named on the command line is the whole input: one that cannot be read is bad input (exit 2,
// one line naming it), not a per-entry error in a report that would say "first divergence: none".
void check_npy_input(const std::string& path) {
  MappedFile mapping(path);  // throws InputError naming the file
  auto parsed = parse_npy(mapping.bytes());
  if (auto* problem = std::get_if<std::string>(&parsed)) throw InputError(path, *problem);
}

// The dump.json files below `dir`, up to three levels down (msprobe nests them in
// step{N}/rank{ID}/ or step{N}/proc{pid}/), in path order.
std::vector<fs::path> find_msprobe_jsons(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() > 3) { it.disable_recursion_pending(); continue; }
    if (it->path().filename() == "dump.json") found.push_back(it->path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// One msprobe run directory holding a dump.json per step and rank: every entry's key and call name
// get their folder path as a prefix ("step0.rank1."), so two runs pair by step and rank. Process
// folders (proc<pid>) are left out of the prefix: the pid differs from run to run.
void load_msprobe_run(const fs::path& dir, const std::vector<fs::path>& jsons, Dump& dump) {
  std::map<std::string, fs::path> seen;
  for (const fs::path& json : jsons) {
    std::string prefix;
    for (const auto& part : json.parent_path().lexically_relative(dir)) {
      std::string p = part.string();
      bool proc = p.starts_with("proc") && p.size() > 4 &&
                  std::all_of(p.begin() + 4, p.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      if (proc || p == ".") continue;
      prefix += p + ".";
    }
    if (auto [it, fresh] = seen.emplace(prefix, json); !fresh)
      throw InputError(dir.string(), fmt::format("{} and {} are the same step and rank ({}); pass one of their folders",
                                                 it->second.string(), json.string(), prefix.empty() ? "top level" : prefix));
    Dump part;
    load_msprobe_dump(json, part);
    dump.format = part.format;
    dump.task = part.task;
    dump.meta = part.meta;
    for (DumpEntry& e : part.entries) {
      e.key = prefix + e.key;
      e.module = prefix + e.module;
      dump.entries.push_back(std::move(e));
    }
  }
}
}  // namespace

Dump load_dump(const std::string& path_text) {
  fs::path path(path_text);
  Dump dump;
  dump.path = path_text;
  dump.task = "tensor";
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path_text, "no such file or directory");
  if (fs::is_directory(path, ec)) {
    if (fs::is_regular_file(path / "index.json", ec)) {
      load_banjia(path, dump);
    } else if (fs::is_regular_file(path / "dump.json", ec)) {
      load_msprobe_dump(path / "dump.json", dump);
    } else {
      std::vector<fs::path> npys;
      for (const auto& de : fs::directory_iterator(path, ec))
        if (de.path().extension() == ".npy") npys.push_back(de.path());
      if (npys.empty()) {
        if (auto jsons = find_msprobe_jsons(path); jsons.size() == 1) {
          load_msprobe_dump(jsons.front(), dump);
          return dump;
        } else if (!jsons.empty()) {
          load_msprobe_run(path, jsons, dump);
          return dump;
        }
        throw InputError(path_text, "not a dump: no index.json (banjia), dump.json (msprobe) or .npy files");
      }
      std::sort(npys.begin(), npys.end());
      dump.format = "npy";
      for (const auto& f : npys) dump.entries.push_back(npy_entry(f));
    }
    return dump;
  }
  std::string ext = path.extension().string();
  if (ext == ".npy") {
    check_npy_input(path_text);
    dump.format = "npy";
    dump.entries.push_back(npy_entry(path));
  } else if (ext == ".npz") {
    dump.format = "npz";
    load_npz(path, dump);
  } else if (path.filename() == "dump.json") {
    load_msprobe_dump(path, dump);
  } else if (path.filename() == "index.json") {
    load_banjia(path.parent_path(), dump);
  } else if (ext == ".pt" || ext == ".pth") {
    throw InputError(path_text, "a .pt file is read as an msprobe data file inside its dump, not as a dump of its "
                                "own; pass the dump's directory, or save tensors with numpy.save or banjia.capture");
  } else {
    throw InputError(path_text, "unknown input: expected a dump directory, dump.json, .npy or .npz");
  }
  return dump;
}

}  // namespace banjia::compare
