// compare's tensor inputs: the .npy parser on the raw bytes, and the same bytes opened as an .npz
// (compare/tensor_store: libzip listing, member-name and zip-bomb guards, the in-place walk over local
// headers for stored members, deflated members through libzip), each member parsed as .npy and
// scored against itself with compute_metrics (dtype decoding, byte swapping, Fortran order).
// Properties: only InputError escapes; a tensor that loads has elements x itemsize bytes, all inside
// the data it came from, and count = product of its shape; a member is only read when the archive
// can justify its size (compressed bytes inside the file, bounded ratio); a tensor compared with
// itself has no error.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/errors.h"
#include "compare/analysis/metrics.h"
#include "compare/readers/npy_format.h"
#include "compare/readers/tensor_store.h"
#include "fuzz_check.h"
#include "fuzz_files.h"

using namespace banjia;
using namespace banjia::compare;

namespace {
const FuzzDir dir("npy");

void check_npy(std::string_view bytes) {
  auto parsed = parse_npy(bytes);
  auto* v = std::get_if<NpyView>(&parsed);
  if (!v) return;
  uint64_t product = 1;
  for (int64_t d : v->shape) {
    FUZZ_CHECK(d >= 0, "no negative dimension");
    product *= static_cast<uint64_t>(d);
  }
  FUZZ_CHECK(v->count == product, "element count is the product of the shape");
  FUZZ_CHECK(v->byte_size() / dtype_size(v->dtype) == v->count, "byte size does not overflow");
  const char* begin = reinterpret_cast<const char*>(v->data);
  FUZZ_CHECK(begin >= bytes.data() && v->byte_size() <= static_cast<size_t>(bytes.data() + bytes.size() - begin),
             "tensor data lies inside the input");
  PairMetrics m = compute_metrics(*v, *v, Tolerance{});
  FUZZ_CHECK(m.count == static_cast<int64_t>(v->count), "metrics cover every element");
  FUZZ_CHECK(m.max_abs_err == 0 && m.nonfinite_position_mismatches == 0, "a tensor equals itself");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An owning copy: ASan then sees any read past the end of the bytes.
  std::string bytes(reinterpret_cast<const char*>(data), size);
  check_npy(bytes);
  auto path = dir.write("t.npz", bytes);
  try {
    NpzArchive archive(path);
    std::vector<std::byte> buffer;
    for (size_t i = 0; i < archive.members().size(); ++i) {
      const NpzMember& m = archive.members()[i];
      std::string_view member;
      if (!archive.read(i, buffer, member).empty()) continue;
      FUZZ_CHECK(m.problem.empty(), "members with a problem are never read");
      FUZZ_CHECK(m.compressed <= size, "a member read has its compressed bytes inside the archive");
      FUZZ_CHECK(m.size <= (1u << 20) || m.size <= 1000 * m.compressed, "a member read has a bounded ratio");
      FUZZ_CHECK(member.size() == m.size, "a member read has the size its header says");
      check_npy(std::string(member));
    }
  } catch (const InputError&) {
  }
  return 0;
}
