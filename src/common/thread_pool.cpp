#include "common/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <memory>

namespace banjia {

std::jthread start_thread_elsewhere(std::function<void()> fn) {
  return detail::start_thread_elsewhere(std::move(fn), {});
}

std::jthread detail::start_thread_elsewhere(std::function<void()> fn, std::function<void()> while_placed) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int here = sched_getcpu();
  if (here < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || !CPU_ISSET(here, &allowed))
    return std::jthread(std::move(fn));
  cpu_set_t elsewhere = allowed;
  CPU_CLR(here, &elsewhere);
  if (CPU_COUNT(&elsewhere) == 0) return std::jthread(std::move(fn));
  // The thread waits until its first CPUs are set (it may start before that, on this CPU), then
  // takes back the process's whole set: the restriction only decides where it starts.
  auto placed = std::make_shared<std::atomic<bool>>(false);
  std::jthread thread([fn = std::move(fn), while_placed = std::move(while_placed), placed, allowed] {
    placed->wait(false);
    if (while_placed) while_placed();
    pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
    fn();
  });
  pthread_setaffinity_np(thread.native_handle(), sizeof elsewhere, &elsewhere);
  placed->store(true);
  placed->notify_one();
  return thread;
}

}  // namespace banjia
