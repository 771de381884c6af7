#include "common/cpu_features.h"

#include <simdjson.h>

namespace banjia {

// simdjson's own detection (cpuid, and xgetbv for the operating system's AVX state) decides whether
// its "haswell" implementation runs here; the AVX2 paths need exactly what that implementation needs.
// __builtin_cpu_supports is not used: it reads __cpu_model, which only compiler runtimes with
// compiler-rt's or libgcc's CPU model fill in (Zig's, used for the portable wheels, links none or
// one left zero, so every check would answer no).
bool cpu_has_avx2() {
#if defined(__x86_64__)
  static const bool yes = [] {
    const simdjson::implementation* haswell = simdjson::get_available_implementations()["haswell"];
    return haswell != nullptr && haswell->supported_by_runtime_system();
  }();
  return yes;
#else
  return false;
#endif
}

}  // namespace banjia
