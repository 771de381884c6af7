#include "env/analysis/doctor_compat.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/toml_document.h"

namespace banjia::env {
namespace {

constexpr std::string_view kTablePath = "data/env/compat.toml";

std::string string_field(const toml::table& t, std::string_view key, const std::string& where,
                         std::vector<std::string>& problems, bool required = true) {
  if (auto v = t[key].value<std::string>(); v && !v->empty()) return *v;
  if (required) problems.push_back(fmt::format("{}: missing or empty '{}'", where, key));
  return "";
}

// Each dot-separated leading number of a version ("3.7.5" -> 3, 7, 5); stops at the first other part.
std::vector<int> numbers(std::string_view v) {
  std::vector<int> out;
  while (!v.empty()) {
    int n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || (end != v.data() + v.size() && *end != '.')) break;
    out.push_back(n);
    v.remove_prefix(static_cast<size_t>(end - v.data()));
    if (!v.empty()) v.remove_prefix(1);
  }
  return out;
}

std::string major_minor(std::string_view version) {
  auto n = numbers(version);
  return n.size() >= 2 ? fmt::format("{}.{}", n[0], n[1]) : std::string();
}

// The package version without a local label: "2.1.0.post10+git1234" is 2.1.0.post10.
std::string without_local_label(std::string_view v) { return std::string(v.substr(0, v.find('+'))); }

const TorchNpuRelease* find_release(const CompatTable& table, std::string_view torch_npu) {
  for (const auto& r : table.releases)
    if (r.torch_npu == torch_npu) return &r;
  return nullptr;
}

const PythonSupport* find_python(const CompatTable& table, std::string_view torch) {
  for (const auto& p : table.pythons)
    if (p.torch == torch) return &p;
  return nullptr;
}

CompatCheck unknown(std::string what, std::string found, std::string message) {
  return {std::move(what), CompatStatus::unknown, std::move(found), "", "", std::move(message)};
}

CompatCheck check_torch(const TorchNpuRelease* release, const InstalledVersions& in) {
  if (in.torch_npu.empty()) return unknown("torch", in.torch, "torch_npu version not known; torch cannot be paired");
  if (!release)
    return unknown("torch", in.torch, fmt::format("torch_npu {} is not in the compatibility table", in.torch_npu));
  if (in.torch.empty()) return unknown("torch", "", "torch version not known");
  bool ok = release_part(in.torch) == release->torch;
  return {"torch", ok ? CompatStatus::ok : CompatStatus::mismatch, in.torch, release->torch, release->source,
          fmt::format("torch_npu {} requires torch {}; found torch {}", in.torch_npu, release->torch, in.torch)};
}

CompatCheck check_cann(const TorchNpuRelease* release, const InstalledVersions& in) {
  if (in.torch_npu.empty()) return unknown("cann", in.cann, "torch_npu version not known; CANN cannot be paired");
  if (!release)
    return unknown("cann", in.cann, fmt::format("torch_npu {} is not in the compatibility table", in.torch_npu));
  if (in.cann.empty()) return unknown("cann", "", "CANN version not known");
  bool ok = cann_version_is(in.cann, release->cann);
  return {"cann", ok ? CompatStatus::ok : CompatStatus::mismatch, in.cann, release->cann, release->source,
          fmt::format("torch_npu {} pairs with CANN {}; found CANN {}", in.torch_npu, release->cann, in.cann)};
}

CompatCheck check_python(const CompatTable& table, const InstalledVersions& in) {
  if (in.python.empty()) return unknown("python", "", "Python version not known");
  if (in.torch.empty()) return unknown("python", in.python, "torch version not known; Python cannot be paired");
  const auto* support = find_python(table, release_part(in.torch));
  if (!support)
    return unknown("python", in.python, fmt::format("torch {} is not in the Python support table", in.torch));
  bool ok = std::ranges::find(support->python, major_minor(in.python)) != support->python.end() &&
            (support->python_min.empty() || numbers(in.python) >= numbers(support->python_min));
  std::string expected = fmt::format("{}", fmt::join(support->python, ", "));
  if (!support->python_min.empty()) expected += fmt::format(" (>= {})", support->python_min);
  return {"python", ok ? CompatStatus::ok : CompatStatus::mismatch, in.python, expected, support->source,
          fmt::format("torch {} supports Python {}; found Python {}", support->torch, expected, in.python)};
}

}  // namespace

std::string_view to_string(CompatStatus s) {
  switch (s) {
    case CompatStatus::ok: return "ok";
    case CompatStatus::mismatch: return "mismatch";
    case CompatStatus::unknown: return "unknown";
  }
  return "unknown";
}

std::string release_part(std::string_view version) {
  size_t end = 0;
  while (end < version.size() && (std::isdigit(static_cast<unsigned char>(version[end])) || version[end] == '.')) ++end;
  while (end > 0 && version[end - 1] == '.') --end;
  return std::string(version.substr(0, end));
}

bool cann_version_is(std::string_view installed, std::string_view expected) {
  if (installed == expected) return true;
  if (installed.size() < expected.size() + 2 || !installed.starts_with(expected)) return false;
  char sep = installed[expected.size()];
  return (sep == '.' || sep == '-') && std::isalpha(static_cast<unsigned char>(installed[expected.size() + 1]));
}

CompatTable load_compat_table(std::string_view text, const std::string& path) {
  CompatTable table;
  toml::table root;
  try {
    root = parse_toml(text, path);
  } catch (const InputError& e) {
    table.problems.push_back(e.what());
    return table;
  }
  auto& problems = table.problems;
  if (const auto* releases = root["release"].as_array()) {
    for (size_t i = 0; i < releases->size(); ++i) {
      const auto* t = (*releases)[i].as_table();
      std::string where = fmt::format("{}: release #{}", path, i + 1);
      if (!t) { problems.push_back(where + " is not a table"); continue; }
      TorchNpuRelease r{string_field(*t, "torch_npu", where, problems), string_field(*t, "branch", where, problems),
                        string_field(*t, "torch", where, problems), string_field(*t, "cann", where, problems),
                        string_field(*t, "source", where, problems)};
      if (find_release(table, r.torch_npu)) problems.push_back(fmt::format("{}: torch_npu {} twice", where, r.torch_npu));
      table.releases.push_back(std::move(r));
    }
  }
  if (const auto* pythons = root["python"].as_array()) {
    for (size_t i = 0; i < pythons->size(); ++i) {
      const auto* t = (*pythons)[i].as_table();
      std::string where = fmt::format("{}: python #{}", path, i + 1);
      if (!t) { problems.push_back(where + " is not a table"); continue; }
      PythonSupport p{string_field(*t, "torch", where, problems), {},
                      string_field(*t, "python_min", where, problems, false), string_field(*t, "source", where, problems)};
      if (const auto* list = (*t)["python"].as_array()) {
        for (const auto& v : *list) {
          if (auto s = v.value<std::string>(); s && major_minor(*s) == *s) p.python.push_back(*s);
          else problems.push_back(where + ": python entries must be major.minor strings");
        }
      }
      if (p.python.empty()) problems.push_back(where + ": no python versions");
      if (find_python(table, p.torch)) problems.push_back(fmt::format("{}: torch {} twice", where, p.torch));
      table.pythons.push_back(std::move(p));
    }
  }
  return table;
}

const CompatTable& compat_table() {
  static const CompatTable table = [] {
    auto text = embedded_file(kTablePath);
    if (!text) return CompatTable{{}, {}, {std::string(kTablePath) + " is not embedded"}};
    return load_compat_table(*text, std::string(kTablePath));
  }();
  return table;
}

std::vector<CompatCheck> check_compat(const CompatTable& table, const InstalledVersions& installed) {
  const TorchNpuRelease* release =
      installed.torch_npu.empty() ? nullptr : find_release(table, without_local_label(installed.torch_npu));
  return {check_torch(release, installed), check_cann(release, installed), check_python(table, installed)};
}

}  // namespace banjia::env
