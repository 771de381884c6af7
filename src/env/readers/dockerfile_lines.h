// How Docker reads the lines of a Dockerfile instruction: a backslash at a line's end continues it,
// and empty and comment lines inside a continued instruction are removed before the instruction is
// read. The ENV and RUN readers (env_file.cpp) see an instruction's words through these.
#pragma once
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "env/readers/shell_lexer.h"

namespace banjia::env {

// A blank inside a Dockerfile line: space, tab, or a carriage return (CRLF line ends, stray CRs).
// The one definition for every reader here: two readers that disagree on blanks let an emptied value
// leave a line that one thinks blank and the other does not (docs/fuzzing.md,
// dockerfile-value-after-carriage-returns).
inline bool is_line_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

struct DockerfileInstruction {
  size_t begin = 0, end = 0;  // text[begin, end): the instruction with its continuation lines
  // The empty and comment lines inside it, each [line start, after its line end): Docker drops them.
  std::vector<std::pair<size_t, size_t>> dropped_lines;
};

// The instruction that starts at `begin`: up to the first line end not continued by a backslash
// (blanks after it aside), skipping the empty and comment lines after a continued line.
DockerfileInstruction read_instruction(std::string_view text, size_t begin);

// text[from, instruction.end) lexed as shell the way Docker sees it: without the dropped lines
// (`ENV A=\`, `# note`, `4` sets A=4; lexed with the comment line, it would read `A=#` and an
// assignment inside the comment: docs/fuzzing.md, dockerfile-comment-line-in-instruction). Every
// offset in the result is an offset in `text`. A RUN body is shell (`#` starts a comment); an ENV
// body is not: Docker's reference says a `#` anywhere but at a line's start is an argument.
ShellLexResult lex_instruction(std::string_view text, const DockerfileInstruction& instruction, size_t from,
                               HashComments comments);

// True when text[begin, end) holds one of the instruction's dropped lines, or a part of one.
bool spans_dropped_line(const DockerfileInstruction& instruction, size_t begin, size_t end);

// True when text[begin, end) holds a backslash that ends its line (blanks aside): a continuation.
bool holds_line_continuation(std::string_view text, size_t begin, size_t end);

// True when only blanks precede `at` on its line and that line is not the instruction's first.
bool begins_continuation_line(std::string_view text, size_t instruction_begin, size_t at);

}  // namespace banjia::env
