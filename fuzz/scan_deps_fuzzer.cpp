// scan's non-Python inputs: requirements.txt, setup.py install_requires, pyproject.toml, and the
// CUDA/C++ source scanner. Property: blanking comments and strings keeps the length and newlines.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "fuzz_check.h"
#include "rules/sources/cuda_source_scanner.h"
#include "rules/sources/requirements_scanner.h"

using namespace banjia;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& rules = rules::RuleCatalog::builtin();
  std::vector<Finding> out;
  for (const auto& r : rules::parse_requirements_txt(text)) FUZZ_CHECK(r.offset <= size, "offset inside text");
  for (const auto& r : rules::parse_setup_py_requirements(text)) FUZZ_CHECK(r.offset <= size, "offset inside text");
  for (auto kind : {rules::DependencyFile::requirements_txt, rules::DependencyFile::setup_py,
                    rules::DependencyFile::pyproject_toml}) {
    try {
      rules::scan_dependency_file(text, kind, "fuzz", rules, out);
    } catch (const InputError&) {  // invalid TOML is reported this way
    }
  }
  std::string blanked = rules::blank_comments_and_strings(text);
  FUZZ_CHECK(blanked.size() == size, "blanking keeps the length");
  for (size_t i = 0; i < size; ++i)
    FUZZ_CHECK((blanked[i] == '\n') == (text[i] == '\n') || text[i] != '\n', "blanking keeps newlines");
  for (const auto& k : rules::find_cuda_kernels(text)) FUZZ_CHECK(k.offset < size, "kernel offset inside text");
  (void)rules::find_op_registrations(text);
  rules::scan_cuda_source(text, "fuzz.cu", rules, out);
  return 0;
}
