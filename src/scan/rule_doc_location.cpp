// Where a rule's page lies on disk. The build passes, for this file only, the source and build trees
// it was configured in and the install layout (bindir -> docdir), so an absolute path in one file
// does not make every object depend on the checkout's location.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "scan/rule_doc.h"

namespace banjia::scan {

namespace fs = std::filesystem;

namespace {

std::optional<fs::path> own_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return p;
}

bool is_under(const fs::path& p, const fs::path& dir) {
  std::error_code ec;
  const fs::path d = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  auto [d_end, p_it] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  return d_end == d.end();
}

std::optional<fs::path> existing(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? std::nullopt : std::optional(c);
}

}  // namespace

std::string file_uri(std::string_view path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::string_view("-._~/").find(static_cast<char>(c)) != std::string_view::npos)
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::optional<std::string> rule_doc_uri(std::string_view id) {
  const auto exe = own_executable();
  if (!exe) return std::nullopt;
  const fs::path page = fs::path("rules") / (std::string(id) + ".md");
  if (auto p = existing(exe->parent_path() / BANJIA_DOCDIR_FROM_BINDIR / "docs" / page)) return file_uri(p->string());
  if (is_under(*exe, BANJIA_BUILD_DIR))
    if (auto p = existing(fs::path(BANJIA_SOURCE_DIR) / "docs" / page)) return file_uri(p->string());
  return std::nullopt;
}

}  // namespace banjia::scan
