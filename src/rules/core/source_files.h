// What kind of source a file is, by its name, and the limits and error findings every front-end
// reading sources shares (scan and migrate both read trees of them).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/diagnostic.h"

namespace banjia::rules {

enum class FileKind { python, shell, cuda_source, dependency_list, config, other };
std::string_view to_string(FileKind k);
// Classifies a file by its name (no directory): .py/.pyi, .sh/.bash, .cu/.cuh/.cpp/.cc/.cxx/.h/.hpp,
// requirements*.txt, pyproject.toml; configuration files (.yaml/.yml/.json/.toml: config_document.h).
FileKind classify_file(std::string_view file_name);

// The dependency lists, by name: requirements*.txt, setup.py, pyproject.toml.
enum class DependencyFile { none, requirements_txt, setup_py, pyproject_toml };
DependencyFile dependency_file_kind(std::string_view file_name);

enum class ConfigFormat { yaml, json, toml };

// The format of a file named `file_name` when it is a configuration file banjia reads; nullopt for
// other files and for the YAML/JSON/TOML files that are no configuration: lockfiles, package.json,
// tsconfig, pyproject.toml (a dependency list).
std::optional<ConfigFormat> config_format(std::string_view file_name);


// The most bytes read from one source file (scan and migrate). Real sources are far smaller; the cap
// keeps a device such as /dev/zero, a FIFO or a huge generated file from being read into memory
// whole: such a file becomes an input-error finding.
inline constexpr size_t kMaxSourceFileBytes = size_t{64} << 20;

// The finding reported for a file that cannot be read or parsed.
Finding input_error_finding(const std::string& file, const std::string& problem, int line = 0, int column = 0);

}  // namespace banjia::rules
