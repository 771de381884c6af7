// The dump model's functions that do not depend on the layout a dump was read from (dump_model.h).
#include "compare/model/dump_model.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/safe_paths.h"
#include "compare/readers/torch_pt.h"

namespace banjia::compare {

namespace fs = std::filesystem;

bool data_name_stays_inside(std::string_view name) {
  fs::path p{std::string(name)};
  if (p.is_absolute() || name.empty()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
}

std::string load_tensor(const Dump& dump, const DumpEntry& entry, LoadedTensor& out) {
  std::string_view bytes;
  switch (entry.data) {
    case DataKind::kNone: return "statistics only (no tensor data)";
    case DataKind::kMissingFile: return fmt::format("data file {} not found", entry.data_path);
    case DataKind::kOutsideDump:
      return fmt::format("data file name {} leaves the dump's directory; not read", excerpt(entry.data_path, 200));
    case DataKind::kPtFile: return load_pt_tensor(entry.data_path, out);
    case DataKind::kNpyFile:
      try {
        out.mapping = std::make_shared<const MappedFile>(entry.data_path);
      } catch (const InputError& e) {
        return e.what();
      }
      bytes = out.mapping->bytes();
      break;
    case DataKind::kNpzMember: {
      std::string problem = dump.archive->read(entry.npz_member, out.buffer, bytes);
      if (!problem.empty()) return fmt::format("{}: {}", entry.data_path, problem);
      break;
    }
  }
  auto parsed = parse_npy(bytes);
  if (auto* err = std::get_if<std::string>(&parsed)) return fmt::format("{}: {}", entry.data_path, *err);
  out.view = std::get<NpyView>(parsed);
  return "";
}

std::string name_without_call_count(const DumpEntry& entry, const std::string& format) {
  auto is_digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  std::vector<std::string_view> parts;
  std::string_view k = entry.key;
  for (size_t start = 0;;) {
    size_t dot = k.find('.', start);
    parts.push_back(k.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (format == "banjia" && parts.size() > 1 && is_digits(parts[0])) {
    parts.erase(parts.begin());  // "0012.blocks.1.ln2.forward.output": the prefix is the call order
  } else {
    // msprobe: Api.name.{count}.forward... or Module.name.Class.forward.{count}...
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i] != "forward" && parts[i] != "backward") continue;
      if (i > 0 && is_digits(parts[i - 1])) parts.erase(parts.begin() + static_cast<long>(i - 1));
      else if (i + 1 < parts.size() && is_digits(parts[i + 1])) parts.erase(parts.begin() + static_cast<long>(i + 1));
      break;
    }
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '.';
    out += parts[i];
  }
  return out;
}

}  // namespace banjia::compare
