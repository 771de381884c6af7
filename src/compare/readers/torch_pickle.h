// A restricted reader for the data.pkl of torch.save's zip format: it interprets the pickle opcodes
// torch's pickler writes (protocols 2 to 4) into plain values and never executes anything. The only
// globals it accepts are torch._utils._rebuild_tensor_v2 (read as "a tensor over this storage"),
// collections.OrderedDict (an empty dict) and torch's typed storage classes (a dtype); anything else
// is refused with its name. The result is where each tensor's elements are, not the elements.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "compare/readers/npy_format.h"

namespace banjia::compare {

struct PickledTensor {
  std::string name;        // path in the pickled container ("" for a bare tensor, "weight", "0.1")
  DType dtype = DType::kF32;
  std::string storage_key;  // member data/<storage_key> of the archive
  int64_t storage_numel = 0;
  int64_t offset = 0;  // in elements
  std::vector<int64_t> shape, stride;
};

// The tensors of a torch.save pickle, in the order the pickle holds them (nested dicts, lists and
// tuples are walked), or a one-line problem.
std::variant<std::vector<PickledTensor>, std::string> read_torch_pickle(std::string_view pickle);

}  // namespace banjia::compare
