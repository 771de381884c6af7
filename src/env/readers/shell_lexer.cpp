#include "env/readers/shell_lexer.h"

#include <algorithm>
#include <optional>

namespace banjia::env {

bool is_shell_name_start(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_shell_name_char(char c) { return is_shell_name_start(c) || (c >= '0' && c <= '9'); }

bool is_shell_identifier(std::string_view s) {
  return !s.empty() && is_shell_name_start(s[0]) && std::all_of(s.begin(), s.end(), is_shell_name_char);
}

namespace {

class Lexer {
 public:
  Lexer(std::string_view text, size_t begin, size_t end, HashComments comments)
      : s_(text), i_(begin), n_(std::min(end, text.size())), comments_(comments == HashComments::shell) {}

  ShellLexResult run() {
    while (i_ < n_ && !stopped_) {
      const bool continuation = continuation_at(i_, n_) > 0;
      step();
      if (w_ && !continuation) {
        previous_content_end_ = content_end_;
        content_end_ = i_;
      }
    }
    end_command();
    if (!stopped_ && !heredocs_.empty()) read_heredocs();
    return std::move(out_);
  }

 private:
  std::string_view s_;
  size_t i_, n_;
  bool comments_;  // a `#` at a word's start begins a comment
  ShellLexResult out_;
  ShellCommand cmd_;
  std::optional<ShellWord> w_;
  bool literal_so_far_ = true;  // the current word is unquoted plain text so far (candidate NAME=)
  // Where the current word's last and second-to-last characters end in the text (line continuations
  // aside): `end` without a trailing continuation, and the raw end of NAME, which a continuation may
  // split, so it is not begin + its length.
  size_t content_end_ = 0, previous_content_end_ = 0;
  bool skip_next_word_ = false; // next word is a redirection target
  bool stopped_ = false;
  struct Heredoc { std::string delim; bool strip_tabs; size_t at; };
  std::vector<Heredoc> heredocs_;

  char at(size_t k) const { return k < n_ ? s_[k] : '\0'; }

  void problem(size_t offset, std::string message) {
    out_.problems.push_back({offset, std::move(message)});
    stopped_ = true;
    i_ = n_;
  }

  void start_word() {
    if (!w_) {
      w_ = ShellWord{};
      w_->begin = i_;
      literal_so_far_ = true;
      content_end_ = previous_content_end_ = i_;
    }
  }
  void not_literal() { literal_so_far_ = false; }

  void end_word() {
    if (!w_) return;
    w_->end = i_;
    w_->content_end = content_end_;
    if (skip_next_word_) skip_next_word_ = false;
    else cmd_.words.push_back(std::move(*w_));
    w_.reset();
  }
  void end_command() {
    end_word();
    skip_next_word_ = false;
    if (!cmd_.words.empty()) out_.commands.push_back(std::move(cmd_));
    cmd_ = {};
  }

  // References inside raw expansion text: every $NAME and ${NAME (nested ones included).
  void scan_references(size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) {
      if (s_[k] == '\'' ) {  // single-quoted text inside $(...) is not expanded
        size_t close = s_.find('\'', k + 1);
        if (close == std::string_view::npos || close >= to) return;
        k = close;
        continue;
      }
      if (s_[k] != '$') continue;
      size_t p = skip_continuations(k + 1, to);
      if (p < to && s_[p] == '{') p = skip_continuations(p + 1, to);
      if (p < to && (s_[p] == '#' || s_[p] == '!')) {
        size_t after = skip_continuations(p + 1, to);
        if (after < to && is_shell_name_char(s_[after])) p = after;
      }
      std::string name;
      size_t q = p < to && is_shell_name_start(s_[p]) ? read_name(p, to, name) : p;
      if (q > p) out_.references.push_back({std::move(name), p, q});
    }
  }

  // Bytes of the line continuation (backslash, newline; CRLF too) at k, 0 when there is none. The
  // shell removes continuations before it reads a name: `$PYTORCH_CUDA_\<newline>ALLOC_CONF` is
  // $PYTORCH_CUDA_ALLOC_CONF.
  size_t continuation_at(size_t k, size_t to) const {
    if (k + 1 >= to || s_[k] != '\\') return 0;
    if (s_[k + 1] == '\n') return 2;
    return k + 2 < to && s_[k + 1] == '\r' && s_[k + 2] == '\n' ? 3 : 0;
  }
  size_t skip_continuations(size_t k, size_t to) const {
    while (size_t len = continuation_at(k, to)) k += len;
    return k;
  }
  // The identifier at s_[k, to) into `name`, joined across continuations; returns the raw end of its
  // last character (k when there is none). A continuation after the name is not part of it.
  size_t read_name(size_t k, size_t to, std::string& name) const {
    size_t end = k;
    for (size_t j = k; j < to && is_shell_name_char(s_[j]); j = skip_continuations(end, to)) {
      name.push_back(s_[j]);
      end = j + 1;
    }
    return end;
  }

  // Finds the end of a balanced construct starting after `open_len` chars at i_; returns npos when
  // unterminated. Quotes inside are skipped so that ')' in a string does not close it.
  size_t balanced_end(char open, char close, size_t from) {
    int depth = 1;
    for (size_t k = from; k < n_; ++k) {
      char c = s_[k];
      if (c == '\\') { ++k; continue; }
      if (c == '\'') {
        size_t q = s_.find('\'', k + 1);
        if (q == std::string_view::npos || q >= n_) return std::string_view::npos;
        k = q;
      } else if (c == '"') {
        size_t q = k + 1;
        while (q < n_ && s_[q] != '"') q += (s_[q] == '\\') ? 2 : 1;
        if (q >= n_) return std::string_view::npos;
        k = q;
      } else if (c == open) {
        ++depth;
      } else if (c == close && --depth == 0) {
        return k;
      }
    }
    return std::string_view::npos;
  }

  void dollar() {
    const size_t start = i_, k = skip_continuations(i_ + 1, n_);  // `$\<newline>NAME` is $NAME
    const char c = at(k);
    if (c == '(' || c == '{') {
      char close = c == '(' ? ')' : '}';
      size_t e = balanced_end(c, close, k + 1);
      if (e == std::string_view::npos) {
        problem(start, c == '(' ? "unterminated $( command substitution" : "unterminated ${ parameter expansion");
        return;
      }
      w_->value.append(s_.substr(start, e + 1 - start));
      w_->has_expansion = true;
      scan_references(start, e + 1);
      i_ = e + 1;
    } else if (is_shell_name_start(c)) {
      std::string name;
      const size_t q = read_name(k, n_, name);
      w_->value.push_back('$');
      w_->value.append(name);
      out_.references.push_back({std::move(name), k, q});
      w_->has_expansion = true;
      i_ = q;
    } else if (c != '\0' && std::string_view("@*#?$!-0123456789").find(c) != std::string_view::npos) {
      w_->value.push_back('$');
      w_->value.push_back(c);
      w_->has_expansion = true;
      i_ = k + 1;
    } else {
      w_->value.push_back('$');
      ++i_;
    }
    not_literal();
  }

  void backtick() {
    size_t k = i_ + 1;
    while (k < n_ && s_[k] != '`') k += (s_[k] == '\\') ? 2 : 1;
    if (k >= n_) {
      problem(i_, "unterminated ` command substitution");
      return;
    }
    w_->value.append(s_.substr(i_, k + 1 - i_));
    w_->has_expansion = true;
    scan_references(i_, k + 1);
    i_ = k + 1;
    not_literal();
  }

  void double_quoted() {
    size_t start = i_++;
    w_->quoted = true;
    not_literal();
    while (i_ < n_ && !stopped_) {
      char c = s_[i_];
      if (c == '"') { ++i_; return; }
      if (c == '\\' && std::string_view("$`\"\\\n").find(at(i_ + 1)) != std::string_view::npos && i_ + 1 < n_) {
        if (s_[i_ + 1] != '\n') w_->value.push_back(s_[i_ + 1]);
        i_ += 2;
      } else if (c == '$') {
        dollar();
      } else if (c == '`') {
        backtick();
      } else {
        w_->value.push_back(c);
        ++i_;
      }
    }
    if (!stopped_) problem(start, "unterminated double quote");
  }

  // Reads the delimiter word after << (quotes removed).
  void heredoc_operator() {
    i_ += 2;
    bool strip = false;
    if (at(i_) == '-') { strip = true; ++i_; }
    while (at(i_) == ' ' || at(i_) == '\t') ++i_;
    std::string delim;
    while (i_ < n_) {
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' ||
          c == '(' || c == ')')
        break;
      if (c == '\'' || c == '"') {
        size_t q = s_.find(c, i_ + 1);
        if (q == std::string_view::npos || q >= n_) { problem(i_, "unterminated quote in here-document delimiter"); return; }
        delim.append(s_.substr(i_ + 1, q - i_ - 1));
        i_ = q + 1;
        continue;
      }
      if (c == '\\') { ++i_; if (i_ < n_) delim.push_back(s_[i_]); ++i_; continue; }
      delim.push_back(c);
      ++i_;
    }
    if (delim.empty()) { problem(i_, "here-document operator without a delimiter"); return; }
    heredocs_.push_back({delim, strip, i_});
  }

  void read_heredocs() {
    for (const auto& h : heredocs_) {
      bool found = false;
      size_t body = i_;
      while (i_ < n_) {
        size_t eol = s_.find('\n', i_);
        if (eol == std::string_view::npos || eol > n_) eol = n_;
        std::string_view line = s_.substr(i_, eol - i_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (h.strip_tabs)
          while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
        size_t line_start = i_;
        i_ = eol < n_ ? eol + 1 : n_;
        if (line == h.delim) {
          found = true;
          out_.heredoc_bodies.emplace_back(body, line_start);
          break;
        }
      }
      if (!found) { problem(h.at, "here-document delimited by '" + h.delim + "' is not terminated"); return; }
    }
    heredocs_.clear();
  }

  void step() {
    char c = s_[i_];
    switch (c) {
      case '\\':
        if (size_t len = continuation_at(i_, n_)) {
          i_ += len;
          return;
        }
        start_word();
        w_->quoted = true;
        not_literal();
        if (i_ + 1 < n_) w_->value.push_back(s_[i_ + 1]);
        i_ = std::min(i_ + 2, n_);  // a backslash ending the text must not leave i_ past it
        return;
      case ' ': case '\t': case '\r':
        end_word();
        ++i_;
        return;
      case '\n':
        end_command();
        ++i_;
        if (!heredocs_.empty()) read_heredocs();
        return;
      case '#':
        if (!w_ && comments_) {
          const size_t start = i_;
          while (i_ < n_ && s_[i_] != '\n') ++i_;
          out_.comments.emplace_back(start, i_);
          return;
        }
        break;
      case '\'': {
        start_word();
        w_->quoted = true;
        not_literal();
        size_t q = s_.find('\'', i_ + 1);
        if (q == std::string_view::npos || q >= n_) { problem(i_, "unterminated single quote"); return; }
        w_->value.append(s_.substr(i_ + 1, q - i_ - 1));
        i_ = q + 1;
        return;
      }
      case '"':
        start_word();
        double_quoted();
        return;
      case '$':
        start_word();
        dollar();
        return;
      case '`':
        start_word();
        backtick();
        return;
      case '(':
        if (w_ && w_->eq != std::string::npos && w_->eq + 1 == i_) {  // NAME=( array )
          size_t e = balanced_end('(', ')', i_ + 1);
          if (e == std::string_view::npos) { problem(i_, "unterminated array assignment"); return; }
          w_->value.append(s_.substr(i_, e + 1 - i_));
          w_->has_expansion = true;
          i_ = e + 1;
          return;
        }
        [[fallthrough]];
      case ';': case '&': case '|': case ')':
        end_command();
        ++i_;
        return;
      case '<': case '>': {
        if (w_ && w_->end == 0 && literal_so_far_ && !w_->value.empty() &&
            w_->value.find_first_not_of("0123456789") == std::string::npos) {
          w_.reset();  // an fd number such as the 2 in 2>&1
        } else {
          end_word();
        }
        if (c == '<' && at(i_ + 1) == '<' && at(i_ + 2) == '<') {
          i_ += 3;
        } else if (c == '<' && at(i_ + 1) == '<') {
          heredoc_operator();
          return;
        } else {
          ++i_;
          if (at(i_) == '>' || at(i_) == '&' || at(i_) == '|') ++i_;
        }
        skip_next_word_ = true;
        return;
      }
      default:
        break;
    }
    start_word();
    if (c == '=' && w_->eq == std::string::npos && literal_so_far_) {
      std::string_view name = w_->value;
      bool append = !name.empty() && name.back() == '+';
      if (append) name.remove_suffix(1);
      if (is_shell_identifier(name)) {
        w_->eq = i_;
        w_->name_len = name.size();
        w_->name_end = append ? previous_content_end_ : content_end_;  // plain text so far: one byte a step
        w_->append = append;
      }
    }
    w_->value.push_back(c);
    ++i_;
  }
};

}  // namespace

ShellLexResult lex_shell(std::string_view text, size_t begin, size_t end, HashComments comments) {
  return Lexer(text, begin, end, comments).run();
}

}  // namespace banjia::env
