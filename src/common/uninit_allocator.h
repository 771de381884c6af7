// An allocator whose value-less construct() default-initialises: for trivial types, resize() then
// leaves new elements unwritten instead of zeroing them. For buffers that are fully overwritten
// right after resizing (per-file token and index arrays reused across files), where the zeroing
// was a measurable share of the work.
#pragma once
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace banjia {

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
};

// A std::vector whose resize() does not zero new trivial elements.
template <class T>
using UninitVector = std::vector<T, UninitAllocator<T>>;

}  // namespace banjia
