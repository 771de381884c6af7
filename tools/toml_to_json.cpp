// Build tool: writes a knowledge-base TOML file as JSON (common/toml_json.h says why).
// Usage: banjia_toml_to_json IN.toml OUT.json   (exit 1 with "IN: problem" when it cannot)
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "common/json_writer.h"
#include "common/toml_json.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: banjia_toml_to_json IN.toml OUT.json\n");
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw std::runtime_error("cannot read");
    const std::string contents = text.str();
    const toml::table doc = toml::parse(std::string_view(contents), std::string_view(argv[1]));
    banjia::JsonWriter w(false);
    banjia::write_toml_as_json(w, doc);
    std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
    out << w.str();
    if (!out.flush()) throw std::runtime_error(std::string("cannot write ") + argv[2]);
  } catch (const toml::parse_error& e) {
    std::fprintf(stderr, "%s:%u: %s\n", argv[1], static_cast<unsigned>(e.source().begin.line),
                 std::string(e.description()).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
    return 1;
  }
  return 0;
}
