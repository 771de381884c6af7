#include "common/memory_policy.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>

namespace banjia {

void keep_freed_memory_for_reuse() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

size_t back_heap_with_huge_pages(size_t reserve) {
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  constexpr size_t kProbe = size_t{1} << 20;  // more than the heap has free at start-up, below the mmap threshold
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return 0;  // once per process: the reserve is made and advised
  keep_freed_memory_for_reuse();  // else the probe and the big blocks later come from mmap, not the heap
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // a reserve over 1 GiB would be trimmed at the first free
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_TOP_PAD, static_cast<int>(std::min<size_t>(reserve, INT_MAX)));  // the probe's growth takes `reserve` more
  void* probe = std::malloc(kProbe);
  mallopt(M_TOP_PAD, 128 << 10);  // glibc's default: later growth (past the reserve) as before
  if (probe == nullptr) return 0;
  const uintptr_t p = reinterpret_cast<uintptr_t>(probe);
  const uintptr_t end = reinterpret_cast<uintptr_t>(::sbrk(0));
  const uintptr_t first = (p + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t last = end & ~(kHugePage - 1);
  // Advise only when the probe's growth made the reserve: a probe served from elsewhere (malloc fell
  // back to mmap, or a sanitizer's allocator) advises nothing.
  if (end <= p || end - p > reserve + 2 * kProbe || last <= first ||
      ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) {
    std::free(probe);
    return 0;
  }
  // The heap's free space starts at the probe, below the first huge page. Shrunk to end at that
  // boundary and kept for good (untouched, it costs address space only), the probe makes every
  // later block start on huge pages; the rest of it returns to the heap's top (trimming is off).
  [[maybe_unused]] static void* below_first_huge_page = nullptr;  // held: reachable for leak checkers
  below_first_huge_page = std::realloc(probe, first - p);
  return last - first;
}

}  // namespace banjia
