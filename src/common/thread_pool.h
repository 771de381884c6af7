// Parallel loops over independent items (files, ranks, tensor pairs). Work is handed out in
// chunks from an atomic counter so uneven item costs balance across threads.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace banjia {

// Starts fn on a new thread placed on another CPU than the caller's (when the process may use
// another), free to run anywhere once it has started. Linux queues a new thread on its parent's CPU,
// and while the parent stays busy (the walk that feeds a scan) an idle CPU took a scheduler tick or
// more to pull it over: the one worker of `scan -j 2` began 2.7 ms into a 60 ms scan on the
// reference VM, against ~0.1 ms when placed on the other CPU from the start (thread_pool.cpp).
std::jthread start_thread_elsewhere(std::function<void()> fn);

namespace detail {
// The same, running `while_placed` on the new thread before fn, while it is still held to its first
// CPUs: where the thread starts is observable only then (the scheduler may move it any time after),
// so the test looks through this.
std::jthread start_thread_elsewhere(std::function<void()> fn, std::function<void()> while_placed);
}  // namespace detail

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
  for (unsigned t = 1; t < threads; ++t) pool.push_back(start_thread_elsewhere(worker));
  worker();
  pool.clear();  // joins
  if (error) std::rethrow_exception(error);
}

// A parallel loop over items that are still being produced. `produce(emit)` runs on the calling
// thread and calls emit(Item&&) for each item; meanwhile threads-1 workers call fn(index, item) on
// the items in emit order, and once produce returns the calling thread joins them. The items are
// returned in emit order; a std::deque never moves its elements, so fn may keep writing into its
// item while more are emitted. With one thread, produce runs first and then fn on each item. The
// first exception (from produce or any fn) is rethrown after all threads finish.
template <class Item, class Produce, class Fn>
std::deque<Item> parallel_stream(unsigned threads, Produce&& produce, Fn&& fn) {
  std::deque<Item> items;
  if (threads <= 1) {
    produce([&](Item&& item) { items.push_back(std::move(item)); });
    for (size_t i = 0; i < items.size(); ++i) fn(i, items[i]);
    return items;
  }
  std::mutex mutex;  // guards items' size and the fields below
  std::condition_variable ready;
  size_t next = 0;
  bool produced = false;
  std::exception_ptr error;
  auto fail = [&] {
    std::lock_guard lock(mutex);
    if (!error) error = std::current_exception();
  };
  auto worker = [&] {
    for (;;) {
      size_t i;
      Item* item;
      {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return next < items.size() || produced; });
        if (next >= items.size()) return;
        i = next++;
        item = &items[i];
      }
      try {
        fn(i, *item);
      } catch (...) {
        fail();
      }
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.push_back(start_thread_elsewhere(worker));
  try {
    produce([&](Item&& item) {
      {
        std::lock_guard lock(mutex);
        items.push_back(std::move(item));
      }
      ready.notify_one();
    });
  } catch (...) {
    fail();
  }
  {
    std::lock_guard lock(mutex);
    produced = true;
  }
  ready.notify_all();
  worker();
  pool.clear();  // joins
  if (error) std::rethrow_exception(error);
  return items;
}

}  // namespace banjia
