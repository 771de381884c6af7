// Whether this CPU runs the AVX2 code paths (simdjson's "haswell" parser in trace/readers, the AVX2
// metric kernel in compare): AVX2, BMI1, BMI2 and PCLMULQDQ, all usable by this process.
#pragma once

namespace banjia {

// Asked once; false on every CPU other than x86-64.
bool cpu_has_avx2();

}  // namespace banjia
