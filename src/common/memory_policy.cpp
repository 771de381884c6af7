#include "common/memory_policy.h"

#include <malloc.h>

namespace banjia {

void keep_freed_memory_for_reuse() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace banjia
