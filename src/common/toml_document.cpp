#include "common/toml_document.h"

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/toml_json.h"

namespace banjia {

toml::table parse_toml(std::string_view text, const std::string& file) {
  if (auto embedded = embedded_file(file); embedded && *embedded == text)
    if (auto json = embedded_file("toml-as-json/" + file)) return toml_from_json(*json, file);
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, "TOML error at line " + std::to_string(e.source().begin.line) + ": " +
                               std::string(e.description()));
  }
}

}  // namespace banjia
