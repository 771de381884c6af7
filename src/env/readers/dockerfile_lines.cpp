#include "env/readers/dockerfile_lines.h"

#include <string>

namespace banjia::env {

// As in Docker's parser, empty and comment lines inside a continued instruction are dropped, not
// ends: `ENV A=1 \`, `# note`, `    B=2` sets both A and B
// (docs.docker.com/reference/build-checks/no-empty-continuation/; the Dockerfile reference: "Comment
// lines are removed before the Dockerfile instructions are executed").
DockerfileInstruction read_instruction(std::string_view text, size_t begin) {
  DockerfileInstruction in{begin, text.size(), {}};
  size_t line = begin;
  while (true) {
    const size_t eol = text.find('\n', line);
    if (eol == std::string_view::npos) return in;
    size_t last = eol;
    while (last > line && is_line_blank(text[last - 1])) --last;
    if (last == line || text[last - 1] != '\\') {
      in.end = eol;
      return in;
    }
    // Continued: drop the empty and comment lines that follow; the next other line goes on.
    line = eol + 1;
    while (line < text.size()) {
      size_t first = line;
      while (first < text.size() && is_line_blank(text[first])) ++first;
      if (first < text.size() && text[first] != '\n' && text[first] != '#') break;
      const size_t next = text.find('\n', first);
      const size_t after = next == std::string_view::npos ? text.size() : next + 1;
      in.dropped_lines.emplace_back(line, after);
      line = after;
    }
    if (line >= text.size()) return in;
  }
}

ShellLexResult lex_instruction(std::string_view text, const DockerfileInstruction& instruction, size_t from,
                               HashComments comments) {
  if (instruction.dropped_lines.empty()) return lex_shell(text, from, instruction.end, comments);
  // Docker's text of the instruction, and for each cut the offset in it where the cut was made and
  // how many bytes of `text` were cut up to there.
  std::string docker_text;
  std::vector<std::pair<size_t, size_t>> cuts;
  size_t at = from, cut_so_far = 0;
  for (const auto& [line, after] : instruction.dropped_lines) {
    if (line < from) continue;
    docker_text.append(text.substr(at, line - at));
    cut_so_far += after - line;
    cuts.emplace_back(docker_text.size(), cut_so_far);
    at = after;
  }
  docker_text.append(text.substr(at, instruction.end - at));
  ShellLexResult lex = lex_shell(docker_text, 0, std::string_view::npos, comments);
  // A position in docker_text lies after every cut made at or before it; an end (one past a byte)
  // lies after the cuts made strictly before it, so a word that ends where a cut begins ends there.
  auto cut_before = [&](size_t pos, bool is_end) {
    size_t cut = 0;
    for (const auto& [where, total] : cuts) {
      if (where > pos || (is_end && where == pos)) break;
      cut = total;
    }
    return cut;
  };
  auto start = [&](size_t& pos) { pos = from + pos + cut_before(pos, false); };
  auto end = [&](size_t& pos) { pos = from + pos + cut_before(pos, true); };
  for (auto& command : lex.commands)
    for (auto& w : command.words) {
      start(w.begin);
      end(w.end);
      end(w.content_end);
      if (w.eq != std::string::npos) {
        start(w.eq);
        end(w.name_end);
      }
    }
  for (auto& r : lex.references) {
    start(r.begin);
    end(r.end);
  }
  for (auto& p : lex.problems) start(p.offset);
  for (auto* ranges : {&lex.heredoc_bodies, &lex.comments})
    for (auto& [b, e] : *ranges) {
      start(b);
      end(e);
    }
  return lex;
}

bool spans_dropped_line(const DockerfileInstruction& instruction, size_t begin, size_t end) {
  for (const auto& [line, after] : instruction.dropped_lines)
    if (line < end && begin < after) return true;
  return false;
}

bool holds_line_continuation(std::string_view text, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (text[i] != '\\') continue;
    size_t j = i + 1;
    while (j < text.size() && is_line_blank(text[j])) ++j;
    if (j < text.size() && text[j] == '\n') return true;
  }
  return false;
}

bool begins_continuation_line(std::string_view text, size_t instruction_begin, size_t at) {
  size_t i = at;
  while (i > instruction_begin && is_line_blank(text[i - 1])) --i;
  return i > instruction_begin && text[i - 1] == '\n';
}

}  // namespace banjia::env
