// Loops of a CPU handler split over XLA's CPU threads: the FFI's thread pool
// (ffi::ThreadPool, bound with .Ctx<ffi::ThreadPool>()) runs helper tasks
// beside the handler's own thread (ParallelFor); or the members of a batch
// over threads of their own, one per core (ForEachMemberOnCores).
//
// The handler's thread takes chunks too, so the loop finishes even when the
// pool has no free thread (the handler itself may run on one) or none at
// all.  It waits only for chunks already started, never for a task to
// start.  A task that starts after the last chunk was taken returns at once
// without calling the body, so a task that runs after the loop has returned
// touches only the shared counters, which it keeps alive.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/ffi_helpers.h"

namespace jaxmatch {

namespace cpu_parallel_detail {

struct Loop {
  int64_t n = 0, grain = 1, chunks = 0;
  std::function<void(int64_t, int64_t)> body;
  std::atomic<int64_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  int64_t unfinished = 0;  // chunks not done yet, under mu

  // Takes and runs chunks until none is left.  noexcept: a body that threw
  // would unwind the caller while other threads still run it.
  void Work() noexcept {
    for (;;) {
      const int64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) return;
      const int64_t begin = c * grain;
      body(begin, std::min(n, begin + grain));
      std::lock_guard<std::mutex> lock(mu);
      if (--unfinished == 0) cv.notify_all();
    }
  }
};

}  // namespace cpu_parallel_detail

// Calls body(begin, end) on disjoint ranges of at most `grain` indices that
// cover [0, n), on this thread and up to pool.num_threads() tasks of the
// pool, and returns when every range is done.  A throw (from body, or a
// failed allocation) terminates: unwinding would leave tasks running body.
template <class Body>
void ParallelFor(ffi::ThreadPool& pool, int64_t n, int64_t grain,
                 Body&& body) noexcept {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t chunks = (n - 1) / grain + 1;
  const int64_t helpers = std::min<int64_t>(pool.num_threads(), chunks - 1);
  if (helpers <= 0) {
    body(int64_t{0}, n);
    return;
  }
  auto loop = std::make_shared<cpu_parallel_detail::Loop>();
  loop->n = n;
  loop->grain = grain;
  loop->chunks = chunks;
  loop->unfinished = chunks;
  loop->body = [&body](int64_t begin, int64_t end) noexcept {
    body(begin, end);
  };
  for (int64_t t = 0; t < helpers; ++t)
    pool.Schedule([loop]() noexcept { loop->Work(); });
  loop->Work();
  std::unique_lock<std::mutex> lock(loop->mu);
  loop->cv.wait(lock, [&] { return loop->unfinished == 0; });
}

// Ranges of about `work_per_range` units for a loop of items that cost
// `work_per_item` units each (at least one item a range).
inline int64_t GrainFor(int64_t work_per_item, int64_t work_per_range) {
  return std::max<int64_t>(
      1, work_per_range / std::max<int64_t>(work_per_item, 1));
}

// solve_member(b) for every member b of a batch, the members spread over
// threads started for the call, one per core (strided: member b on thread
// b mod threads), or all on the calling thread when `threaded` is false or
// one thread would do.
template <class Solve>
void ForEachMemberOnCores(int64_t batch, bool threaded,
                          const Solve& solve_member) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  const int64_t workers = std::min(cores, batch);
  if (workers < 2 || !threaded) {
    for (int64_t b = 0; b < batch; ++b) solve_member(b);
    return;
  }
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (int64_t b = w; b < batch; b += workers) solve_member(b);
    });
  for (auto& t : threads) t.join();
}

}  // namespace jaxmatch
