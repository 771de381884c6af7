// YAML configuration files through libyaml's event parser: each scalar event carries the position it
// was read from, and the key path is the stack of open mappings and sequences.
#include <yaml.h>

#include <memory>

#include "common/errors.h"
#include "rules/sources/config_document.h"

namespace banjia::rules {

namespace {

struct Frame {
  bool mapping = false;
  bool at_key = true;  // mapping: the next node is a key
  std::string key;
  std::optional<ByteRange> key_bytes;
  size_t index = 0;  // sequence: the next item's index
};

class YamlReader {
 public:
  YamlReader(std::string_view text, const std::string& display) : text_(text), display_(display) {
    if (!yaml_parser_initialize(&parser_)) throw InputError(display, "YAML parser: out of memory");
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~YamlReader() { yaml_parser_delete(&parser_); }
  YamlReader(const YamlReader&) = delete;
  YamlReader& operator=(const YamlReader&) = delete;

  std::vector<ConfigScalar> read() {
    for (bool done = false; !done;) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) fail();
      std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> guard(&event, yaml_event_delete);
      switch (event.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT: stack_.clear(); break;
        case YAML_MAPPING_START_EVENT: open(true); break;
        case YAML_SEQUENCE_START_EVENT: open(false); break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
          if (!stack_.empty()) stack_.pop_back();
          advance();
          break;
        case YAML_SCALAR_EVENT: scalar(event); break;
        case YAML_ALIAS_EVENT:
          if (!stack_.empty() && stack_.back().mapping && stack_.back().at_key) stack_.back().key = "*";
          advance();
          break;
        default: break;
      }
    }
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail() const {
    const yaml_mark_t& m = parser_.problem_mark;
    std::string what = parser_.problem ? parser_.problem : "malformed YAML";
    if (parser_.context) what = std::string(parser_.context) + ": " + what;
    throw InputError(display_, "YAML error at line " + std::to_string(m.line + 1) + ": " + what);
  }

  // A collection starts in the slot of its parent (a value, or a key of a complex key).
  void open(bool mapping) { stack_.push_back(Frame{mapping, true, {}, {}, 0}); }

  // The parent's slot is filled: a mapping moves between key and value, a sequence to its next item.
  void advance() {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (!f.mapping) ++f.index;
    else if (f.at_key) f.at_key = false;
    else f.at_key = true;
  }

  std::vector<std::string> path() const {
    std::vector<std::string> p;
    for (const Frame& f : stack_) p.push_back(f.mapping ? f.key : "[" + std::to_string(f.index) + "]");
    return p;
  }

  // Where the scalar starts in the text: by line and column (libyaml counts columns in characters).
  std::optional<ByteRange> located(const yaml_event_t& e, std::string_view value, char quote) const {
    const size_t at = positions_.offset(e.start_mark.line + 1, e.start_mark.column + 1);
    return verbatim_at(text_, at, value, quote);
  }

  void scalar(const yaml_event_t& e) {
    const auto& s = e.data.scalar;
    const std::string value(reinterpret_cast<const char*>(s.value), s.length);
    const char quote = s.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ? '\'' : s.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ? '"' : 0;
    const bool block = s.style == YAML_LITERAL_SCALAR_STYLE || s.style == YAML_FOLDED_SCALAR_STYLE;
    const std::optional<ByteRange> verbatim = block ? std::nullopt : located(e, value, quote);
    if (!stack_.empty() && stack_.back().mapping && stack_.back().at_key) {
      stack_.back().key = value;
      stack_.back().key_bytes = verbatim;
      advance();
      return;
    }
    ConfigScalar c;
    c.path = path();
    c.value = value;
    // An unquoted scalar YAML resolves to a boolean, a number or null is no string.
    c.is_string = quote || block || !(value == "true" || value == "false" || value == "null" || value == "~" || value.empty());
    const size_t at = positions_.offset(e.start_mark.line + 1, e.start_mark.column + 1);
    const size_t end = positions_.offset(e.end_mark.line + 1, e.end_mark.column + 1);
    c.written = at == std::string_view::npos ? ByteRange{} : ByteRange{at, end == std::string_view::npos || end < at ? at : end};
    c.verbatim = verbatim;
    if (!stack_.empty() && stack_.back().mapping) c.key = stack_.back().key_bytes;
    out_.push_back(std::move(c));
    advance();
  }

  std::string_view text_;
  TextPositions positions_{text_};
  const std::string& display_;
  yaml_parser_t parser_{};
  std::vector<Frame> stack_;
  std::vector<ConfigScalar> out_;
};

}  // namespace

std::vector<ConfigScalar> read_yaml(std::string_view text, const std::string& display) {
  return YamlReader(text, display).read();
}

}  // namespace banjia::rules
