// A POSIX-shell word splitter good enough to find environment assignments in launch scripts, .env files
// and Dockerfile RUN/ENV bodies. It never executes or expands anything: `$VAR`, `${VAR:-x}`, `$(...)` and
// backticks stay in a word's value verbatim (has_expansion says so). Every word and every variable
// reference keeps its byte range in the original text so callers can rewrite names in place.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace banjia::env {

struct ShellWord {
  size_t begin = 0, end = 0;  // raw byte range in the text
  std::string value;          // after quote removal; expansions kept as written
  bool quoted = false;        // some part was quoted or backslash-escaped
  bool has_expansion = false; // contains $..., ${...}, $(...) or `...` outside single quotes
  // For NAME=VALUE words: offset of the '=' (absolute) and the length of NAME in `value`. npos if none.
  size_t eq = std::string::npos;
  size_t name_len = 0;
  size_t name_end = 0;        // raw end of NAME: before a line continuation that splits it from '='
  size_t content_end = 0;     // raw end of the word's last character, before a trailing line continuation
  bool append = false;        // NAME+=VALUE
};

struct ShellReference {       // NAME inside $NAME or ${NAME...}
  std::string name;
  size_t begin = 0, end = 0;  // byte range of NAME
};

struct ShellProblem {
  size_t offset = 0;
  std::string message;
};

struct ShellCommand {
  std::vector<ShellWord> words;  // redirections and their targets removed
};

struct ShellLexResult {
  std::vector<ShellCommand> commands;
  std::vector<ShellReference> references;
  std::vector<ShellProblem> problems;
  std::vector<std::pair<size_t, size_t>> heredoc_bodies;  // byte ranges of skipped here-document bodies
  std::vector<std::pair<size_t, size_t>> comments;        // byte ranges of # comments, to the line's end
};

// Whether a `#` that begins a word starts a comment: in shell it does; in a Dockerfile ENV, which
// Docker reads as words but not as shell, it is an argument like any other.
enum class HashComments { shell, none };

// Splits text[begin, end) into simple commands (separated by newlines, ; & | && || ( ) and the like).
// Here-document bodies are skipped. Unterminated quotes or substitutions are reported as problems
// and end the scan (nothing after them is guessed at).
ShellLexResult lex_shell(std::string_view text, size_t begin = 0, size_t end = std::string_view::npos,
                         HashComments comments = HashComments::shell);

// A shell name ([A-Za-z_][A-Za-z0-9_]*): its first character, any of its characters, and a whole one.
bool is_shell_name_start(char c);
bool is_shell_name_char(char c);
bool is_shell_identifier(std::string_view s);

}  // namespace banjia::env
