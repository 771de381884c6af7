// The torch_npu / PyTorch / CANN / Python pairing that `banjia env doctor` checks, read from
// data/env/compat.toml (Ascend/pytorch's compatibility tables), and the check itself.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace banjia::env {

struct TorchNpuRelease {
  std::string torch_npu;  // the package version, as torch_npu.__version__ reports it
  std::string branch;
  std::string torch;      // the PyTorch version it requires
  std::string cann;       // the CANN version it pairs with
  std::string source;
};

struct PythonSupport {
  std::string torch;
  std::vector<std::string> python;  // major.minor
  std::string python_min;           // a lower bound within the oldest minor, or ""
  std::string source;
};

struct CompatTable {
  std::vector<TorchNpuRelease> releases;
  std::vector<PythonSupport> pythons;
  std::vector<std::string> problems;  // entries that could not be read; empty for the shipped table
};

CompatTable load_compat_table(std::string_view text, const std::string& path);
const CompatTable& compat_table();  // the embedded data/env/compat.toml

// What doctor found installed; "" for what it could not learn.
struct InstalledVersions {
  std::string python, torch, torch_npu, cann;
};

enum class CompatStatus { ok, mismatch, unknown };
std::string_view to_string(CompatStatus s);

struct CompatCheck {
  std::string what;      // "torch", "cann" or "python": the version checked against the table
  CompatStatus status = CompatStatus::unknown;
  std::string found;     // the installed version ("" when unknown)
  std::string expected;  // what the table asks for ("" when the table has no row)
  std::string source;    // the table row's source
  std::string message;   // one sentence saying what was compared
};

// torch against the torch_npu release's PyTorch, CANN against its CANN, Python against the PyTorch
// version's supported Pythons: always these three checks, in this order.
std::vector<CompatCheck> check_compat(const CompatTable& table, const InstalledVersions& installed);

// The release part of a version: "2.1.0+cpu" and "2.1.0a0+git12ab" are 2.1.0.
std::string release_part(std::string_view version);
// Whether an installed CANN version (install.info `version=`) is the release `expected`: equal, or
// `expected` followed by '.' or '-' and a tag starting with a letter (8.1.RC1.alpha001 is 8.1.RC1,
// but 6.3.RC3.1 is a release of its own).
bool cann_version_is(std::string_view installed, std::string_view expected);

}  // namespace banjia::env
