// JSON configuration files through simdjson's On-Demand parser, whose tokens point into the input:
// each string's offset is where its quote stands in the file.
#include <simdjson.h>

#include <algorithm>
#include <string>

#include "common/errors.h"
#include "rules/sources/config_document.h"

namespace banjia::rules {

namespace {

namespace od = simdjson::ondemand;

class JsonReader {
 public:
  JsonReader(std::string_view text, const std::string& display) : text_(text), display_(display), padded_(text) {}

  std::vector<ConfigScalar> read() {
    // On-Demand validates only what it visits and not what follows the top-level value: the DOM
    // parser checks the whole document first.
    simdjson::dom::parser validator;
    simdjson::error_code valid = validator.parse(padded_).error();
    // JSON allows integers of any size (tokenizer configs hold 1000000000000000019884624838656); this
    // simdjson's DOM refuses those past 64 bits. Only tokens are read here, never numbers' values, so
    // such a document is validated with its long integers written as 0.
    if (valid == simdjson::NUMBER_ERROR) valid = validator.parse(simdjson::padded_string(without_long_integers(text_))).error();
    check(valid);
    od::document doc;
    check(parser_.iterate(padded_).get(doc));
    od::value root;
    check(doc.get_value().get(root));
    walk(root);
    return std::move(out_);
  }

 private:
  void check(simdjson::error_code e) const {
    if (e == simdjson::SUCCESS) return;
    // On-Demand reports where it stopped only through the document; the message names the problem.
    throw InputError(display_, std::string("JSON error: ") + simdjson::error_message(e));
  }

  // `text` with each integer token of more than 19 digits outside strings replaced by 0.
  static std::string without_long_integers(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string) {
        out += c;
        if (c == '\\' && i + 1 < text.size()) out += text[++i];
        else if (c == '"') in_string = false;
        continue;
      }
      if (c == '"') in_string = true;
      size_t end = i;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
      const bool integer = end == text.size() || std::string_view(".eE").find(text[end]) == std::string_view::npos;
      if (end - i > 19 && integer) {
        out += '0';
        i = end - 1;
      } else {
        out.append(text.substr(i, std::max<size_t>(end - i, 1)));
        if (end > i) i = end - 1;
      }
    }
    return out;
  }

  size_t offset(const char* p) const { return static_cast<size_t>(p - padded_.data()); }

  // The end of the string whose opening quote is at `begin` (after its closing quote).
  size_t string_end(size_t begin) const {
    for (size_t i = begin + 1; i < text_.size(); ++i) {
      if (text_[i] == '\\') ++i;
      else if (text_[i] == '"') return i + 1;
    }
    return text_.size();
  }

  void walk(od::value v) {
    od::json_type type;
    check(v.type().get(type));
    switch (type) {
      case od::json_type::object: {
        od::object object;
        check(v.get_object().get(object));
        for (auto field : object) {
          od::field f;
          check(std::move(field).get(f));
          // The raw key first: unescaping it consumes it.
          const size_t key_begin = offset(f.key().raw()) - 1;
          std::string_view key;
          check(f.unescaped_key().get(key));
          path_.push_back(std::string(key));
          key_ = ByteRange{key_begin, string_end(key_begin)};
          walk(f.value());
          path_.pop_back();
        }
        break;
      }
      case od::json_type::array: {
        od::array array;
        check(v.get_array().get(array));
        size_t i = 0;
        for (auto item : array) {
          od::value e;
          check(std::move(item).get(e));
          path_.push_back("[" + std::to_string(i++) + "]");
          key_.reset();
          walk(e);
          path_.pop_back();
        }
        break;
      }
      default: scalar(v, type); break;
    }
  }

  void scalar(od::value v, od::json_type type) {
    const std::string_view raw = v.raw_json_token();
    const size_t begin = offset(raw.data());
    ConfigScalar c;
    c.path = path_;
    c.key = key_;
    key_.reset();
    if (type == od::json_type::string) {
      std::string_view s;
      check(v.get_string().get(s));
      c.value = std::string(s);
      c.written = ByteRange{begin, string_end(begin)};
      c.verbatim = verbatim_at(text_, begin, c.value, '"');
    } else {
      size_t end = begin;  // the token, without the blanks after it
      while (end < text_.size() && std::string_view(" \t\r\n,]}").find(text_[end]) == std::string_view::npos) ++end;
      c.value = std::string(text_.substr(begin, end - begin));
      c.is_string = false;
      c.written = ByteRange{begin, end};
    }
    out_.push_back(std::move(c));
  }

  std::string_view text_;
  const std::string& display_;
  simdjson::padded_string padded_;
  od::parser parser_;
  std::vector<std::string> path_;
  std::optional<ByteRange> key_;
  std::vector<ConfigScalar> out_;
};

}  // namespace

std::vector<ConfigScalar> read_json(std::string_view text, const std::string& display) {
  return JsonReader(text, display).read();
}

}  // namespace banjia::rules
