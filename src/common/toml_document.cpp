#include "common/toml_document.h"

#include "common/errors.h"

namespace banjia {

toml::table parse_toml(std::string_view text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, "TOML error at line " + std::to_string(e.source().begin.line) + ": " +
                               std::string(e.description()));
  }
}

}  // namespace banjia
