// Parallel loops over independent items (files, ranks, tensor pairs). Work is handed out in
// chunks from an atomic counter so uneven item costs balance across threads.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace banjia {

// Number of worker threads to use: `requested` if > 0, else the hardware concurrency.
inline unsigned worker_count(unsigned requested = 0) {
  if (requested > 0) return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// Calls fn(i) for every i in [0, n) using up to `threads` threads. The first exception thrown by
// any fn is rethrown after all threads finish.
template <class Fn>
void parallel_for(size_t n, unsigned threads, Fn&& fn) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(n, 1))));
  if (threads == 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (;;) {
      size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (error) std::rethrow_exception(error);
}

}  // namespace banjia
