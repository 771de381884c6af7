// torch.save files (.pt, the zip format of torch 1.6 and later), as msprobe writes its tensor-mode
// data files: the archive's data.pkl is read by the restricted reader of torch_pickle.h, and the
// tensor's elements are used in place from the mapping when its storage member is stored.
#pragma once
#include <string>

#include "compare/readers/tensor_store.h"

namespace banjia::compare {

// Loads the first tensor of a .pt file (msprobe's data files hold one). Returns "" or a one-line
// problem: not a zip (the legacy pickle format), a pickle that names anything but tensors and plain
// containers, no tensor, a storage member that is missing or shorter than the tensor claims.
std::string load_pt_tensor(const std::string& path, LoadedTensor& out);

}  // namespace banjia::compare
