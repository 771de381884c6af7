#include "env/readers/env_file.h"

#include <algorithm>
#include <filesystem>

#include "common/utf8.h"
#include "env/readers/dockerfile_lines.h"

namespace banjia::env {

EnvFileKind detect_env_file_kind(std::string_view path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "dockerfile" || lower == "containerfile" || lower.starts_with("dockerfile.") ||
      lower.ends_with(".dockerfile") || lower.ends_with(".containerfile"))
    return EnvFileKind::dockerfile;
  if (lower == ".env" || lower.ends_with(".env") || lower.starts_with(".env.")) return EnvFileKind::dotenv;
  return EnvFileKind::shell;
}

std::string_view to_string(EnvFileKind k) {
  switch (k) {
    case EnvFileKind::shell: return "shell";
    case EnvFileKind::dotenv: return "dotenv";
    case EnvFileKind::dockerfile: return "dockerfile";
  }
  return "shell";
}

namespace {

const std::vector<std::string_view> kKeywords = {"if", "then", "else", "elif", "fi", "do", "done", "while",
                                                 "until", "{", "}", "!", "time", "[[", "]]"};

bool is_keyword(const ShellWord& w) {
  return !w.quoted && std::find(kKeywords.begin(), kKeywords.end(), w.value) != kKeywords.end();
}

bool is_assignment_word(const ShellWord& w) { return w.eq != std::string::npos; }

class Interpreter {
 public:
  Interpreter(std::string_view text, ParsedEnvFile& out) : text_(text), out_(out) {}

  void add_lex(ShellLexResult lex, AssignKind plain_kind) {
    for (auto& r : lex.references) out_.references.push_back(std::move(r));
    for (auto& p : lex.problems) out_.problems.push_back({p.offset, 0, 0, p.message});
    for (auto& h : lex.heredoc_bodies) out_.heredoc_bodies.push_back(h);
    for (auto& c : lex.comments) out_.comments.push_back(c);
    for (const auto& c : lex.commands) command(c.words, plain_kind);
  }

  void assignment(const ShellWord& w, AssignKind kind) {
    Assignment a;
    a.name = w.value.substr(0, w.name_len);
    size_t skip = w.name_len + (w.append ? 2 : 1);
    a.value = w.value.size() >= skip ? w.value.substr(skip) : std::string();
    a.has_value = true;
    a.unresolved = w.has_expansion || w.append;
    a.kind = kind;
    a.scoped = kind == AssignKind::prefix;
    a.name_begin = w.begin;
    a.name_end = w.name_end;  // not begin + length: `NA\<newline>ME=` (docs/fuzzing.md, name-split-by-continuation)
    a.value_begin = w.eq + 1;
    a.value_end = w.end;
    out_.assignments.push_back(std::move(a));
  }

  void name_only(const ShellWord& w, AssignKind kind) {
    Assignment a;
    a.name = w.value;
    a.kind = kind;
    a.name_begin = w.begin;
    a.name_end = w.content_end;  // a trailing line continuation is not part of the name
    a.value_begin = a.value_end = w.content_end;
    out_.assignments.push_back(std::move(a));
  }

  void problem(const ShellWord& w, std::string message) { out_.problems.push_back({w.begin, 0, 0, std::move(message)}); }

  // NAME=VALUE / NAME arguments of export, declare, typeset, local, readonly, unset.
  void arguments(const std::vector<ShellWord>& words, size_t i, std::string_view cmd) {
    bool exported = cmd == "export";
    bool unset = cmd == "unset";
    for (; i < words.size(); ++i) {
      const auto& w = words[i];
      if (!w.quoted && (w.value.starts_with('-') || w.value.starts_with('+')) && !w.has_expansion) {
        if (w.value == "--") continue;
        bool minus = w.value[0] == '-';
        for (char f : w.value.substr(1)) {
          if (f == 'f' || (!unset && (f == 'a' || f == 'A'))) return;  // functions / arrays: not environment
          if (f == 'x') exported = minus;
          if (f == 'n' && cmd == "export") exported = false;
        }
        continue;
      }
      if (is_assignment_word(w)) {
        if (unset) problem(w, "unset argument is not a variable name");
        else assignment(w, exported ? AssignKind::exported : AssignKind::plain);
      } else if (!w.quoted && !w.has_expansion && is_shell_identifier(w.value)) {
        if (unset) name_only(w, AssignKind::unset);
        else if (exported) name_only(w, AssignKind::export_only);
      } else {
        problem(w, std::string(cmd) + " argument '" + w.value + "' is not a literal NAME or NAME=VALUE; not checked");
      }
    }
  }

  void command(const std::vector<ShellWord>& words, AssignKind plain_kind) {
    size_t i = 0;
    while (i < words.size() && is_keyword(words[i])) ++i;
    if (i == words.size()) return;
    const auto& first = words[i];
    if (!first.quoted && (first.value == "for" || first.value == "case" || first.value == "select" ||
                          first.value == "function" || first.value == "in"))
      return;
    size_t a = i;
    while (a < words.size() && is_assignment_word(words[a])) ++a;
    AssignKind kind = a == words.size() ? plain_kind : AssignKind::prefix;
    for (size_t k = i; k < a; ++k) assignment(words[k], kind);
    if (a == words.size() || words[a].quoted || words[a].has_expansion) return;
    std::string_view cmd = words[a].value;
    if (cmd == "export" || cmd == "declare" || cmd == "typeset" || cmd == "local" || cmd == "readonly" ||
        cmd == "unset") {
      arguments(words, a + 1, cmd);
    } else if (cmd == "env") {
      size_t k = a + 1;
      while (k < words.size() && !words[k].quoted && words[k].value.starts_with('-')) {
        if (words[k].value == "-u" || words[k].value == "--unset") ++k;
        ++k;
      }
      for (; k < words.size() && is_assignment_word(words[k]); ++k) assignment(words[k], AssignKind::prefix);
    }
  }

 private:
  std::string_view text_;
  ParsedEnvFile& out_;
};

void collect_directives(std::string_view text, ParsedEnvFile& out) {
  constexpr std::string_view kTag = "banjia-env:";
  for (size_t pos = text.find(kTag); pos != std::string_view::npos; pos = text.find(kTag, pos + 1)) {
    size_t line_start = text.rfind('\n', pos);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::string_view before = text.substr(line_start, pos - line_start);
    size_t hash = before.find_first_not_of(" \t");
    if (hash == std::string_view::npos || before[hash] != '#') continue;
    size_t eol = text.find('\n', pos);
    std::string_view rest = text.substr(pos + kTag.size(), (eol == std::string_view::npos ? text.size() : eol) - pos - kTag.size());
    size_t b = rest.find_first_not_of(" \t"), e = rest.find_last_not_of(" \t\r");
    if (b != std::string_view::npos) out.directives.emplace_back(rest.substr(b, e - b + 1));
  }
}

// .env files: one KEY=VALUE per line (optionally "export "), value either quoted or the rest of the line
// up to an unquoted " #" comment. Values are never word-split.
void parse_dotenv(std::string_view text, ParsedEnvFile& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    size_t b = text.find_first_not_of(" \t\r", pos);
    if (b >= eol || text[b] == '#') {  // blank (b is npos at the text's end) or a comment line
      if (b < eol) out.comments.emplace_back(b, eol);
      pos = eol + 1;
      continue;
    }
    if (text.substr(b, 7) == "export " || text.substr(b, 7) == "export\t") b = text.find_first_not_of(" \t", b + 7);
    size_t eq = text.find('=', b);
    Assignment a;
    if (eq == std::string_view::npos || eq > eol) {
      out.problems.push_back({b, 0, 0, "line is not NAME=VALUE"});
      pos = eol + 1;
      continue;
    }
    size_t name_end = eq;
    while (name_end > b && (text[name_end - 1] == ' ' || text[name_end - 1] == '\t')) --name_end;
    a.name = std::string(text.substr(b, name_end - b));
    if (!is_shell_identifier(a.name)) {
      out.problems.push_back({b, 0, 0, "'" + a.name + "' is not a valid variable name"});
      pos = eol + 1;
      continue;
    }
    a.name_begin = b;
    a.name_end = name_end;
    a.kind = AssignKind::exported;
    a.has_value = true;
    size_t v = text.find_first_not_of(" \t", eq + 1);
    if (v == std::string_view::npos || v > eol) v = eol;
    a.value_begin = v;
    char q = v < text.size() ? text[v] : '\0';
    if (q == '"' || q == '\'') {
      size_t k = v + 1;
      std::string value;
      while (k < text.size() && text[k] != q) {
        if (q == '"' && text[k] == '\\' && k + 1 < text.size()) {
          char e = text[k + 1];
          value.push_back(e == 'n' ? '\n' : e);
          k += 2;
          continue;
        }
        value.push_back(text[k++]);
      }
      if (k >= text.size()) {
        out.problems.push_back({v, 0, 0, std::string("unterminated ") + (q == '"' ? "double" : "single") + " quote"});
        return;
      }
      a.value = value;
      a.value_end = k + 1;
      a.unresolved = q == '"' && value.find('$') != std::string::npos;
      eol = std::min(text.find('\n', k), text.size());
      if (size_t hash = text.find('#', k + 1); hash < eol) out.comments.emplace_back(hash, eol);
    } else {
      size_t end = eol;
      size_t hash = text.find(" #", v);
      if (hash != std::string_view::npos && hash < end) {
        out.comments.emplace_back(hash + 1, eol);
        end = hash;
      }
      while (end > v && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r')) --end;
      a.value = std::string(text.substr(v, end - v));
      a.value_end = end;
      a.unresolved = a.value.find('$') != std::string::npos;
    }
    out.assignments.push_back(std::move(a));
    pos = eol + 1;
  }
}

// True when an ENV instruction's text lexed as shell is words separated only by blanks, line
// continuations and comment lines: no `;`, `|`, `&`, redirection or here-document among them.
bool env_words_only(std::string_view text, const ShellLexResult& lex) {
  if (!lex.heredoc_bodies.empty()) return false;
  const ShellWord* previous = nullptr;
  for (const auto& command : lex.commands)
    for (const auto& word : command.words) {
      for (size_t i = previous ? previous->end : word.begin; i < word.begin; ++i) {
        if (text[i] == '#') {
          while (i < word.begin && text[i] != '\n') ++i;
          continue;
        }
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\\' && text[i] != '\n' && text[i] != '\r') return false;
      }
      previous = &word;
    }
  return true;
}

// An ENV or RUN body as the shell reads it, without the references split around a dropped comment
// line (`$PYTORCH_CUDA_\`, `# note`, `ALLOC_CONF`): renaming such a reference's bytes would delete
// the comment, so it is reported and left out (as a split assignment name is, below).
ShellLexResult lex_body(std::string_view text, const DockerfileInstruction& instruction, size_t from,
                        HashComments comments, ParsedEnvFile& out) {
  ShellLexResult lex = lex_instruction(text, instruction, from, comments);
  std::erase_if(lex.references, [&](const ShellReference& r) {
    if (!spans_dropped_line(instruction, r.begin, r.end)) return false;
    out.problems.push_back({r.begin, 0, 0, "reference '$" + r.name + "' split around a comment line; not rewritten"});
    return true;
  });
  return lex;
}

// Dockerfile: instructions joined over backslash continuations; ENV (both forms) gives assignments,
// shell-form RUN bodies are parsed as shell.
void parse_dockerfile(std::string_view text, ParsedEnvFile& out, Interpreter& interp) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t b = text.find_first_not_of(" \t\r\n", pos);
    if (b == std::string_view::npos) break;
    if (text[b] == '#') {
      pos = std::min(text.find('\n', b), text.size());
      out.comments.emplace_back(b, pos);
      continue;
    }
    const DockerfileInstruction instruction = read_instruction(text, b);
    for (const auto& dropped : instruction.dropped_lines) out.comments.push_back(dropped);
    const size_t end = instruction.end;
    size_t kw_end = b;
    while (kw_end < end && text[kw_end] != ' ' && text[kw_end] != '\t' && text[kw_end] != '\n') ++kw_end;
    std::string kw(text.substr(b, kw_end - b));
    std::transform(kw.begin(), kw.end(), kw.begin(), [](unsigned char c) { return std::toupper(c); });
    const size_t first_assignment = out.assignments.size();
    if (kw == "ENV") {
      ShellLexResult lex = lex_body(text, instruction, kw_end, HashComments::none, out);
      // Docker reads ENV as words with quotes and $-expansions, never as shell: a command separator,
      // a redirection or a here-document here means the shell reading is not Docker's. Editing a value
      // then could delete an operator and change how the rest parses (a `<<O` between two value words
      // goes with the value, and the lines its here-document hid are renamed by a second translate:
      // docs/fuzzing.md, dockerfile-env-heredoc-between-value-words), so the instruction is reported and left alone.
      if (!env_words_only(text, lex)) {
        out.problems.push_back({b, 0, 0, "ENV instruction with shell operators, redirections or a here-document"});
        pos = end;
        continue;
      }
      for (auto& r : lex.references) out.references.push_back(r);
      for (auto& p : lex.problems) out.problems.push_back({p.offset, 0, 0, p.message});
      std::vector<ShellWord> words;
      for (auto& c : lex.commands)
        for (auto& w : c.words) words.push_back(std::move(w));
      if (!words.empty() && words[0].eq != std::string::npos) {
        for (const auto& w : words) {
          if (w.eq != std::string::npos) interp.assignment(w, AssignKind::exported);
          else interp.problem(w, "ENV argument '" + w.value + "' is not NAME=VALUE");
        }
      } else if (words.size() >= 2 && is_shell_identifier(words[0].value) && !words[0].quoted) {
        Assignment a;  // legacy form: ENV NAME value with spaces
        a.name = words[0].value;
        a.name_begin = words[0].begin;
        // Not words[0].end: renaming `ENV NAME\` (value on the next line) over its continuation would
        // leave `ENV NAME`, no assignment (docs/fuzzing.md, dockerfile-rename-keeps-continuation).
        a.name_end = words[0].content_end;
        a.kind = AssignKind::exported;
        a.has_value = true;
        a.value_begin = words[1].begin;
        a.value_end = words.back().end;
        for (size_t k = 1; k < words.size(); ++k) {
          if (k > 1) a.value += ' ';
          a.value += words[k].value;
          a.unresolved = a.unresolved || words[k].has_expansion;
        }
        out.assignments.push_back(std::move(a));
      } else if (!words.empty() || lex.problems.empty()) {
        out.problems.push_back({b, 0, 0, "ENV instruction without NAME=VALUE or NAME VALUE"});
      }
    } else if (kw == "RUN") {
      size_t body = text.find_first_not_of(" \t", kw_end);
      if (body != std::string_view::npos && body < end && text[body] != '[') {  // exec form has no shell
        size_t first = out.assignments.size();
        interp.add_lex(lex_body(text, instruction, body, HashComments::shell, out), AssignKind::plain);
        for (size_t k = first; k < out.assignments.size(); ++k) out.assignments[k].scoped = true;
      }
    }
    // A value holding the backslash that continues the instruction: rewriting it could remove that
    // backslash and split the instruction in two (`RUN A=\\` then `ENV ...`: the next line becomes an
    // instruction of its own; docs/fuzzing.md, dockerfile-value-holds-continuation). Not rewritten.
    // Nor a value that begins a continuation line (`ENV NAME \` then the value alone): rewritten to
    // nothing, it leaves an empty line, which Docker skips inside an instruction, so the next line
    // joins the instruction (docs/fuzzing.md, dockerfile-value-alone-on-continuation-line).
    for (size_t k = first_assignment; k < out.assignments.size(); ++k) {
      Assignment& a = out.assignments[k];
      if (holds_line_continuation(text, a.value_begin, a.value_end)) {
        a.unresolved = true;
        out.problems.push_back({a.value_begin, 0, 0, "value continues the instruction on the next line; not rewritten"});
      } else if (begins_continuation_line(text, b, a.value_begin)) {
        a.unresolved = true;
        out.problems.push_back({a.value_begin, 0, 0, "value alone at the start of a continuation line; not rewritten"});
      }
    }
    // A name split around a dropped comment line (`ENV PYTORCH_CUDA_\`, `# note`, `ALLOC_CONF=x`):
    // renaming its bytes would delete the comment, so it is reported and left out.
    const auto split = std::remove_if(out.assignments.begin() + first_assignment, out.assignments.end(),
                                      [&](const Assignment& a) {
                                        return spans_dropped_line(instruction, a.name_begin, a.name_end);
                                      });
    for (auto it = split; it != out.assignments.end(); ++it)
      out.problems.push_back({it->name_begin, 0, 0, "name '" + it->name + "' split around a comment line; not rewritten"});
    out.assignments.erase(split, out.assignments.end());
    pos = end;
  }
}

}  // namespace

ParsedEnvFile parse_env_file(std::string_view text, EnvFileKind kind) {
  ParsedEnvFile out;
  Interpreter interp(text, out);
  switch (kind) {
    case EnvFileKind::shell: interp.add_lex(lex_shell(text), AssignKind::plain); break;
    case EnvFileKind::dotenv: parse_dotenv(text, out); break;
    case EnvFileKind::dockerfile: parse_dockerfile(text, out, interp); break;
  }
  collect_directives(text, out);
  LineIndex index(text);
  for (auto& a : out.assignments) std::tie(a.line, a.column) = index.locate(a.name_begin);
  for (auto& p : out.problems) std::tie(p.line, p.column) = index.locate(p.offset);
  std::stable_sort(out.assignments.begin(), out.assignments.end(),
                   [](const Assignment& x, const Assignment& y) { return x.name_begin < y.name_begin; });
  return out;
}

}  // namespace banjia::env
