// Knowledge-base files compiled into the binary (see cmake/EmbedData.cmake).
#pragma once
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace banjia {

struct EmbeddedFile {
  std::string_view path;      // relative to the repository root, e.g. "data/rules/device.toml"
  std::string_view contents;
};

std::span<const EmbeddedFile> embedded_files();

// Files whose path starts with `prefix` (e.g. "data/env/"), in path order.
std::vector<EmbeddedFile> embedded_under(std::string_view prefix);
std::optional<std::string_view> embedded_file(std::string_view path);

}  // namespace banjia
