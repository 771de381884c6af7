// TOML configuration files through toml++, whose nodes keep the region they were read from.
#include <toml++/toml.h>

#include "common/errors.h"
#include "rules/sources/config_document.h"

namespace banjia::rules {

namespace {

class TomlReader {
 public:
  TomlReader(std::string_view text, const std::string& display) : text_(text), display_(display) {}

  std::vector<ConfigScalar> read() {
    toml::table root;
    try {
      root = toml::parse(text_, display_);
    } catch (const toml::parse_error& e) {
      throw InputError(display_, "TOML error at line " + std::to_string(e.source().begin.line) + ": " +
                                     std::string(e.description()));
    }
    walk(root);
    return std::move(out_);
  }

 private:
  size_t at(const toml::source_position& p) const { return positions_.offset(p.line, p.column); }

  void walk(const toml::node& n) {
    if (const toml::table* t = n.as_table()) {
      for (const auto& [k, v] : *t) {
        path_.push_back(std::string(k.str()));
        const size_t kb = at(k.source().begin), ke = at(k.source().end);
        key_ = kb == std::string_view::npos || ke == std::string_view::npos || ke < kb ? std::nullopt
                                                                                        : std::optional(ByteRange{kb, ke});
        walk(v);
        path_.pop_back();
      }
      return;
    }
    if (const toml::array* a = n.as_array()) {
      for (size_t i = 0; i < a->size(); ++i) {
        path_.push_back("[" + std::to_string(i) + "]");
        key_.reset();
        walk((*a)[i]);
        path_.pop_back();
      }
      return;
    }
    scalar(n);
  }

  void scalar(const toml::node& n) {
    ConfigScalar c;
    c.path = path_;
    c.key = key_;
    key_.reset();
    const size_t begin = at(n.source().begin), end = at(n.source().end);
    if (begin != std::string_view::npos) c.written = ByteRange{begin, end == std::string_view::npos || end < begin ? begin : end};
    if (const auto* s = n.as_string()) {
      c.value = s->get();
      // A basic ("...") or literal ('...') string on one line, not a multi-line one ("""...""").
      const char quote = begin < text_.size() ? text_[begin] : 0;
      const bool triple = quote && text_.substr(begin, 3) == std::string(3, quote);
      if ((quote == '"' || quote == '\'') && !triple) c.verbatim = verbatim_at(text_, begin, c.value, quote);
    } else if (const auto* b = n.as_boolean()) {
      c.value = b->get() ? "true" : "false";
      c.is_string = false;
    } else if (const auto* i = n.as_integer()) {
      c.value = std::to_string(i->get());
      c.is_string = false;
    } else {
      return;  // floats, dates and times name no device
    }
    out_.push_back(std::move(c));
  }

  std::string_view text_;
  TextPositions positions_{text_};
  const std::string& display_;
  std::vector<std::string> path_;
  std::optional<ByteRange> key_;
  std::vector<ConfigScalar> out_;
};

}  // namespace

std::vector<ConfigScalar> read_toml(std::string_view text, const std::string& display) {
  return TomlReader(text, display).read();
}

}  // namespace banjia::rules
