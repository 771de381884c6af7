// An allocator for the large per-file buffers a scan reuses across files (token and index arrays):
//  - its value-less construct() default-initialises: for trivial types, resize() then leaves new
//    elements unwritten instead of zeroing them (they are fully overwritten right after resizing,
//    and the zeroing is a measurable share of the work);
//  - blocks of 2 MiB or more are mapped on their own, 2 MiB-aligned, and advised for transparent
//    huge pages: first touching a 4 MB token array then costs 2 page faults instead of 1,000. Page
//    faults are otherwise a tenth of a whole scan's time, and malloc would also hand such blocks
//    back to the kernel on free, to fault them in again for the next large file.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace banjia {

namespace detail {
inline constexpr size_t kHugePage = size_t{2} << 20;

// A 2 MiB-aligned anonymous mapping of `bytes` (a multiple of kHugePage), advised for huge pages.
inline void* map_huge_aligned(size_t bytes) {
  void* raw = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) ::munmap(raw, aligned - start);
  const uintptr_t tail = start + bytes + kHugePage - (aligned + bytes);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
  return reinterpret_cast<void*>(aligned);
}

inline size_t huge_rounded(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
}  // namespace detail

template <class T>
struct UninitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind { using other = UninitAllocator<U>; };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-initialise: no zeroing for trivial U
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    if (bytes < detail::kHugePage) return std::allocator<T>::allocate(n);
    return static_cast<T*>(detail::map_huge_aligned(detail::huge_rounded(bytes)));
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (bytes < detail::kHugePage) return std::allocator<T>::deallocate(p, n);
    ::munmap(p, detail::huge_rounded(bytes));
  }
};

template <class T, class U>
bool operator==(const UninitAllocator<T>&, const UninitAllocator<U>&) noexcept { return true; }

// A std::vector whose resize() does not zero new trivial elements, and whose large blocks live on
// transparent huge pages.
template <class T>
using UninitVector = std::vector<T, UninitAllocator<T>>;

}  // namespace banjia
