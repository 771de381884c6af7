#include "compare/readers/torch_pt.h"

#include <cstring>

#include <fmt/format.h>

#include "common/errors.h"
#include "compare/readers/torch_pickle.h"

namespace banjia::compare {

namespace {

// Copies a strided tensor into C order, element by element.
void gather(const std::byte* base, const PickledTensor& t, size_t elem, std::vector<std::byte>& out) {
  size_t count = 1;
  for (int64_t d : t.shape) count *= static_cast<size_t>(d);
  out.resize(count * elem);
  std::vector<int64_t> idx(t.shape.size(), 0);
  for (size_t k = 0; k < count; ++k) {
    int64_t at = t.offset;
    for (size_t d = 0; d < idx.size(); ++d) at += idx[d] * t.stride[d];
    std::memcpy(out.data() + k * elem, base + static_cast<size_t>(at) * elem, elem);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.shape[d]) break;
      idx[d] = 0;
    }
  }
}

bool strides_are(const PickledTensor& t, bool fortran) {
  int64_t expect = 1;
  for (size_t k = 0; k < t.shape.size(); ++k) {
    size_t d = fortran ? k : t.shape.size() - 1 - k;
    if (t.shape[d] != 1 && t.stride[d] != expect) return false;
    expect *= t.shape[d];
  }
  return true;
}

}  // namespace

std::string load_pt_tensor(const std::string& path, LoadedTensor& out) {
  try {
    out.archive = std::make_shared<NpzArchive>(path);
  } catch (const InputError&) {
    return fmt::format("{}: not a torch.save zip archive (the legacy pickle format is not read)", path);
  }
  const auto& members = out.archive->members();
  auto find = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i].name == name) return i;
    return std::nullopt;
  };
  std::optional<size_t> pkl;
  std::string prefix;
  for (size_t i = 0; i < members.size() && !pkl; ++i) {
    const std::string& n = members[i].name;
    if (n == "data.pkl" || n.ends_with("/data.pkl")) {
      pkl = i;
      prefix = n.substr(0, n.size() - std::string_view("data.pkl").size());
    }
  }
  if (!pkl) return fmt::format("{}: no data.pkl in the archive", path);
  std::vector<std::byte> pickle_buffer;
  std::string_view pickle;
  if (std::string problem = out.archive->read(*pkl, pickle_buffer, pickle); !problem.empty())
    return fmt::format("{}: {}", path, problem);
  auto read = read_torch_pickle(pickle);
  if (auto* problem = std::get_if<std::string>(&read)) return fmt::format("{}: data.pkl {}", path, *problem);
  const auto& tensors = std::get<std::vector<PickledTensor>>(read);
  if (tensors.empty()) return fmt::format("{}: holds no tensor", path);
  const PickledTensor& t = tensors.front();

  NpyView& v = out.view;
  v.dtype = t.dtype;
  v.shape = t.shape;
  v.count = 1;
  for (int64_t d : t.shape) {
    if (d < 0) return fmt::format("{}: negative tensor size", path);
    v.count *= static_cast<size_t>(d);
  }
  if (auto order = find(prefix + "byteorder")) {
    std::vector<std::byte> b;
    std::string_view text;
    if (out.archive->read(*order, b, text).empty()) v.big_endian = text == "big";
  }
  auto data = find(prefix + "data/" + t.storage_key);
  if (!data) return fmt::format("{}: storage data/{} missing", path, t.storage_key);
  std::string_view bytes;
  if (std::string problem = out.archive->read(*data, out.buffer, bytes); !problem.empty())
    return fmt::format("{}: {}", path, problem);
  const size_t elem = dtype_size(t.dtype);
  // The largest element offset the tensor reaches must lie inside its storage member.
  int64_t last = t.offset;
  if (t.offset < 0) return fmt::format("{}: negative storage offset", path);
  for (size_t d = 0; d < t.shape.size() && v.count > 0; ++d) {
    if (t.stride[d] < 0) return fmt::format("{}: negative stride", path);
    last += (t.shape[d] - 1) * t.stride[d];
  }
  if (v.count > 0 && static_cast<uint64_t>(last + 1) * elem > bytes.size())
    return fmt::format("{}: storage data/{} holds {} bytes, the tensor needs {}", path, t.storage_key, bytes.size(),
                       static_cast<uint64_t>(last + 1) * elem);
  const auto* base = reinterpret_cast<const std::byte*>(bytes.data());
  if (v.count == 0 || strides_are(t, false)) {
    v.data = base + static_cast<size_t>(t.offset) * elem;
  } else if (strides_are(t, true)) {
    v.fortran_order = true;
    v.data = base + static_cast<size_t>(t.offset) * elem;
  } else {
    std::vector<std::byte> packed;
    gather(base, t, elem, packed);
    out.buffer = std::move(packed);
    v.data = out.buffer.data();
  }
  return "";
}

}  // namespace banjia::compare
