// How a verb that allocates and frees large blocks again and again asks malloc to keep them, and
// where it asks the kernel for large pages.
#pragma once
#include <cstddef>

namespace banjia {

// Serve blocks up to 32 MB from the heap and keep freed memory there for reuse, instead of mapping
// fresh zeroed pages for each large block and handing them back on free: without this, page faults
// are a fifth of `trace`'s CPU time on a 1 GB trace and a tenth of `scan`'s on Debian's torch package (whose
// per-file buffers grow and are regrown file after file). Process-wide; banjia runs one verb.
void keep_freed_memory_for_reuse();

// Grows malloc's heap by `reserve` bytes at once and advises that range for transparent huge pages,
// and has every thread allocate from that one heap (no per-thread arenas, which malloc maps on
// their own and grows 4 KiB page by page). Call before starting threads.
//
// Why: in a virtual machine a page fault costs ~11 us (measured here: 44 ms to first-touch 16 MB in
// 4 KiB pages, 3 ms in 2 MiB ones), and a scan of Debian's torch package touched 2,400-3,100 fresh
// pages (token, view and name arrays, the report) -- a fifth of its CPU time. This is what glibc's
// `glibc.malloc.hugetlb=1` tunable does, which only the environment can set. Memory is only
// reserved: pages are touched (and resident) as malloc hands them out. Where the kernel has
// transparent huge pages off, or the heap is not where malloc grows it, this changes nothing but
// the arena count. The heap is never trimmed after it (a reserve over the trim threshold would be handed
// back at the first free). Once per process; returns the bytes advised (0 when none, or called before).
size_t back_heap_with_huge_pages(size_t reserve = size_t{64} << 20);

}  // namespace banjia
