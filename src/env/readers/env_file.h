// Environment assignments found in a shell script, a .env file or a Dockerfile, with the byte range of
// each NAME and VALUE (so `translate` and `migrate` can rewrite them in place) and 1-based line/column.
#pragma once
#include "common/line_index.h"
#include <string>
#include <string_view>
#include <vector>

#include "env/readers/shell_lexer.h"

namespace banjia::env {

enum class EnvFileKind { shell, dotenv, dockerfile };
// By file name: Dockerfile / Containerfile / *.dockerfile / Dockerfile.* -> dockerfile; .env, *.env,
// .env.* -> dotenv; anything else -> shell.
EnvFileKind detect_env_file_kind(std::string_view path);
std::string_view to_string(EnvFileKind k);

enum class AssignKind {
  plain,        // NAME=VALUE in a shell script (a shell variable until exported)
  exported,     // export NAME=VALUE, declare -x NAME=VALUE, .env line, Dockerfile ENV
  prefix,       // NAME=VALUE cmd args (environment of that one command)
  export_only,  // export NAME (no value here)
  unset,        // unset NAME
};

struct Assignment {
  std::string name;
  std::string value;            // quotes removed; expansions kept verbatim
  bool has_value = false;
  bool unresolved = false;      // the value contains a shell expansion (or is an append/array)
  AssignKind kind = AssignKind::plain;
  // Affects one command only: NAME=VALUE cmd, or anything inside a Dockerfile RUN (each RUN is its own shell).
  bool scoped = false;
  size_t name_begin = 0, name_end = 0;
  size_t value_begin = 0, value_end = 0;  // raw range, quotes included; empty range when no value
  int line = 0, column = 0;
};

struct ParseNote {
  size_t offset = 0;
  int line = 0, column = 0;
  std::string message;
};

struct ParsedEnvFile {
  std::vector<Assignment> assignments;       // in file order
  std::vector<ShellReference> references;    // $NAME / ${NAME} uses (shell and Dockerfile RUN bodies)
  std::vector<ParseNote> problems;           // constructs that could not be parsed
  std::vector<std::pair<size_t, size_t>> heredoc_bodies;  // text that is data, not commands
  std::vector<std::pair<size_t, size_t>> comments;        // comments, and lines Docker drops
  std::vector<std::string> directives;       // "# banjia-env: KEY=VALUE" comments, e.g. purpose=debug
};

ParsedEnvFile parse_env_file(std::string_view text, EnvFileKind kind);

using banjia::LineIndex;  // common/line_index.h

}  // namespace banjia::env
