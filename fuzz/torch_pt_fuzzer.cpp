// compare's reader of torch.save .pt files (msprobe's tensor data files): the restricted pickle
// reader on the raw bytes, and the same bytes opened as a .pt archive (NpzArchive's guards, then
// data.pkl, byteorder and the storage member) with the tensor scored against itself.
// Properties: nothing but a problem string comes back for bad input (no exception, no crash); a
// tensor read has non-negative sizes and count = product of its shape; its elements are readable
// (ASan) and equal themselves.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "compare/analysis/metrics.h"
#include "compare/readers/torch_pickle.h"
#include "compare/readers/torch_pt.h"
#include "fuzz_check.h"
#include "fuzz_files.h"

using namespace banjia::compare;

namespace {
const FuzzDir dir("torch_pt");
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An owning copy: ASan then sees any read past the end of the bytes.
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto read = read_torch_pickle(bytes);
  if (auto* tensors = std::get_if<std::vector<PickledTensor>>(&read))
    for (const PickledTensor& t : *tensors) FUZZ_CHECK(t.shape.size() == t.stride.size(), "one stride per dimension");
  LoadedTensor loaded;
  if (!load_pt_tensor(dir.write("t.pt", bytes).string(), loaded).empty()) return 0;
  uint64_t product = 1;
  for (int64_t d : loaded.view.shape) {
    FUZZ_CHECK(d >= 0, "no negative dimension");
    product *= static_cast<uint64_t>(d);
  }
  FUZZ_CHECK(loaded.view.count == product, "element count is the product of the shape");
  PairMetrics m = compute_metrics(loaded.view, loaded.view, Tolerance{});
  FUZZ_CHECK(m.count == static_cast<int64_t>(loaded.view.count), "metrics cover every element");
  FUZZ_CHECK(m.max_abs_err == 0 && m.nonfinite_position_mismatches == 0, "a tensor equals itself");
  return 0;
}
