// Inventory of custom CUDA code in C++/CUDA sources (.cu, .cuh, .cpp, .cc, .h): every __global__
// kernel with its signature, and every operator exported to Python (PYBIND11_MODULE m.def,
// TORCH_LIBRARY*). Neither Ascend tool translates these; the list sizes the Ascend C work.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "rules/core/catalog.h"

namespace banjia::rules {

struct CudaKernel {
  std::string name;
  std::string signature;  // "name(params)" with whitespace collapsed
  size_t offset;          // of the name
};

struct OpRegistration {
  std::string macro;                // PYBIND11_MODULE, TORCH_LIBRARY, ...
  std::vector<std::string> defs;    // names passed to m.def / .def
  size_t offset;
};

// Text with comments, string and character literals blanked out (same length, newlines kept), so
// keyword searches do not fire inside them.
std::string blank_comments_and_strings(std::string_view src);

std::vector<CudaKernel> find_cuda_kernels(std::string_view src);
std::vector<OpRegistration> find_op_registrations(std::string_view src);
// Same, given `clean` = blank_comments_and_strings(src) (computed once for both).
std::vector<CudaKernel> find_cuda_kernels(std::string_view src, std::string_view clean);
std::vector<OpRegistration> find_op_registrations(std::string_view src, std::string_view clean);

void scan_cuda_source(std::string_view src, const std::string& display, const RuleCatalog& rules,
                      std::vector<Finding>& out);

}  // namespace banjia::rules
