// The only place where execution spaces differ for us: every KOKKOS_ENABLE_<BACKEND> branch lives here.
#ifndef KOKKOSSPGEMM_BACKENDTRAITS_HPP
#define KOKKOSSPGEMM_BACKENDTRAITS_HPP

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

// Unrolls the loop after it in GPU compilers, so that arrays indexed by its counter stay in registers (host
// compilers would warn on the pragma).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define KOKKOSSPGEMM_UNROLL _Pragma("unroll")
#else
#define KOKKOSSPGEMM_UNROLL
#endif

namespace KokkosSpGEMM {
namespace Impl {

// Atomics on a team's level-0 scratch (the caller guarantees p points there). Kokkos' atomics take any address: on
// CUDA they test its space at run time, and a double's add first tries a global atomic that fails on shared memory
// before its compare-and-swap loop there. Naming the shared space skips both; other backends keep Kokkos' atomics.
#if defined(__CUDA_ARCH__)
KOKKOS_INLINE_FUNCTION unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
#endif

template <class T>
KOKKOS_INLINE_FUNCTION T scratch_compare_exchange(T* p, T expected, T desired) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_integral_v<T> && sizeof(T) == 4) {
    unsigned old;
    asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;"
                 : "=r"(old)
                 : "r"(shared_address(p)), "r"(static_cast<unsigned>(expected)), "r"(static_cast<unsigned>(desired))
                 : "memory");
    return static_cast<T>(old);
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    unsigned long long old;
    asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(old)
                 : "r"(shared_address(p)), "l"(static_cast<unsigned long long>(expected)),
                   "l"(static_cast<unsigned long long>(desired))
                 : "memory");
    return static_cast<T>(old);
  }
#endif
  return Kokkos::atomic_compare_exchange(p, expected, desired);
}

template <class T>
KOKKOS_INLINE_FUNCTION void scratch_add(T* p, const T& v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
  if constexpr (std::is_same_v<T, double>) {
    asm volatile("red.shared.add.f64 [%0], %1;" ::"r"(shared_address(p)), "d"(v) : "memory");
    return;
  } else if constexpr (std::is_same_v<T, float>) {
    asm volatile("red.shared.add.f32 [%0], %1;" ::"r"(shared_address(p)), "f"(v) : "memory");
    return;
  }
#endif
  Kokkos::atomic_add(p, v);
}

/// Sets bits of a 32-bit word in a team's level-0 scratch (the caller guarantees p points there).
KOKKOS_INLINE_FUNCTION void scratch_or(unsigned* p, unsigned bits) {
#if defined(__CUDA_ARCH__)
  asm volatile("red.shared.or.b32 [%0], %1;" ::"r"(shared_address(p)), "r"(bits) : "memory");
#else
  Kokkos::atomic_or(p, bits);
#endif
}

/// The calling thread's vector lanes (Kokkos' vector length, a power of two), for exchanges between them; made once
/// by every lane of the thread, so that their shuffles reuse its mask. On GPUs a thread's lanes share one warp
/// (wavefront); a CPU thread has one lane, so there lane_mask is 0.
struct VectorLanes {
  unsigned group = ~0u;  // CUDA: the warp's lanes that are this thread's
  int width = 1;

  KOKKOS_INLINE_FUNCTION VectorLanes() {
#if defined(__CUDA_ARCH__)
    // Kokkos puts a thread's lanes on threadIdx.x: blockDim.x of them, adjacent in the warp, from lane
    // (threadIdx.y * blockDim.x) % 32 (a mask, not a division: the thread rows that shuffle run at few registers,
    // where a division is not kept hoisted).
    width = static_cast<int>(blockDim.x);
    group = width >= 32 ? ~0u : ((1u << width) - 1u) << ((threadIdx.y * blockDim.x) & 31u);
#elif defined(__HIP_DEVICE_COMPILE__)
    width = static_cast<int>(blockDim.x);
#endif
  }

  /// The value v of the lane lane ^ lane_mask; every lane of the thread calls it.
  template <class T>
  KOKKOS_INLINE_FUNCTION T xor_value(const T& v, int lane_mask) const {
#if defined(__CUDA_ARCH__)
    return __shfl_xor_sync(group, v, lane_mask, width);
#elif defined(__HIP_DEVICE_COMPILE__)
    return __shfl_xor(v, lane_mask, width);
#else
    (void)lane_mask;
    return v;
#endif
  }

  /// Orders the thread's lanes' memory accesses: what a lane wrote before it, the others read after it (CUDA's
  /// lanes of one warp need not run in lock step; a wavefront's and a CPU thread's one lane do).
  KOKKOS_INLINE_FUNCTION void sync() const {
#if defined(__CUDA_ARCH__)
    __syncwarp(group);
#endif
  }
};

constexpr std::size_t default_temporary_cache_bytes = std::size_t(64) << 20;

/// Host arrays of at least this many bytes are backed by huge pages where Linux offers them on request
/// (transparent huge pages in madvise mode): first touch of C's arrays then faults once per 2 MiB instead of per
/// 4 KiB (measured in docs/performance.md). 4 MiB because NumPy asks the same from that size.
constexpr std::size_t huge_page_min_bytes = std::size_t(4) << 20;
/// The huge page of x86-64 and of AArch64 with 4 KiB base pages.
constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;

/// Whether huge pages can be asked for (Linux's madvise).
constexpr bool huge_pages_on_request =
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    true;
#else
    false;
#endif

/// Asks for huge pages under the whole huge pages within `bytes` of fresh host memory at p (see
/// huge_page_min_bytes); nothing where refused. Only the parts of an allocation that start and end on huge-page
/// boundaries can be so backed: callers that can choose the address place the array there (fresh_view).
inline void advise_huge_pages_at(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < huge_page_min_bytes) return;
  constexpr std::uintptr_t page = huge_page_bytes;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + page - 1) / page * page, last = (begin + bytes) / page * page;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/// The host side of the temporary cache: freed blocks of host memory kept for later calls, up to the limit. A fresh
/// block costs a page fault per page at first touch, which on small products and on many threads (each thread's dense
/// accumulator) took much of a call's time; a kept block is touched already. Host spaces finish their work inside each
/// call, so a block handed back is free at once.
class HostBlocks {
 public:
  /// Never destroyed: a handle that outlives main's other statics may still hand a block back.
  static HostBlocks& instance() {
    static HostBlocks* h = new HostBlocks;
    return *h;
  }

  /// A block of at least `bytes` (256-byte aligned): a kept one of at most twice the size, else a fresh one.
  void* take(std::size_t bytes, const char* label) {
    bytes = round_up(bytes);
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> guard(m_lock);
      auto best = m_free.end();
      for (auto it = m_free.begin(); it != m_free.end(); ++it) {
        if (it->second >= bytes && it->second <= 2 * bytes && (best == m_free.end() || it->second < best->second)) {
          best = it;
        }
      }
      if (best != m_free.end()) {
        p = best->first;
        bytes = best->second;  // what give reports freed
        m_used.emplace(p, bytes);
        m_free_bytes -= best->second;
        m_free.erase(best);
      }
    }
    if (p == nullptr) {
      // Large blocks on huge-page boundaries, whole huge pages long (aligned_alloc wants a multiple of the
      // alignment), so that none of their pages is left to base pages.
      const bool huge = huge_pages_on_request && bytes >= huge_page_min_bytes;
      if (huge) bytes = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
      p = std::aligned_alloc(huge ? huge_page_bytes : 256, bytes);
      if (p == nullptr) {
        throw std::runtime_error(std::string(label) + " failed to allocate " + std::to_string(bytes) +
                                 " bytes of host memory");
      }
      advise_huge_pages_at(p, bytes);  // as C's arrays: blocks past the cache's limit are fresh at every call
      std::lock_guard<std::mutex> guard(m_lock);
      m_used.emplace(p, bytes);
      // The kept blocks go back to the system when Kokkos finalizes (its hooks are cleared then).
      if (!m_hooked) {
        m_hooked = true;
        Kokkos::push_finalize_hook([] {
          instance().trim();
          std::lock_guard<std::mutex> hook_guard(instance().m_lock);
          instance().m_hooked = false;
        });
      }
    }
    // Kokkos Tools see the block as they see a view's allocation (memory high-water tools, perf_tests).
    if (Kokkos::Profiling::profileLibraryLoaded()) {
      Kokkos::Profiling::allocateData(Kokkos::Profiling::make_space_handle(Kokkos::HostSpace::name()), label, p, bytes);
    }
    return p;
  }

  /// Hands p back: kept as the newest block, the oldest kept ones freed past the limit (sizes follow the problems
  /// of the latest calls).
  void give(void* p, const char* label) {
    std::size_t bytes = 0;
    std::vector<void*> freed;
    {
      std::lock_guard<std::mutex> guard(m_lock);
      const auto found = m_used.find(p);
      if (found == m_used.end()) return;
      bytes = found->second;
      m_used.erase(found);
      m_free.emplace_back(p, bytes);
      m_free_bytes += bytes;
      evict(freed);
    }
    if (Kokkos::Profiling::profileLibraryLoaded()) {
      Kokkos::Profiling::deallocateData(Kokkos::Profiling::make_space_handle(Kokkos::HostSpace::name()), label, p,
                                        bytes);
    }
    for (void* q : freed) std::free(q);
  }

  void set_limit(std::size_t bytes) {
    std::vector<void*> freed;
    {
      std::lock_guard<std::mutex> guard(m_lock);
      m_limit = bytes;
      evict(freed);
    }
    for (void* q : freed) std::free(q);
  }

  /// Bytes held, in use or kept.
  std::size_t reserved() {
    std::lock_guard<std::mutex> guard(m_lock);
    std::size_t sum = m_free_bytes;
    for (const auto& block : m_used) sum += block.second;
    return sum;
  }

  /// Frees the kept blocks.
  void trim() {
    std::lock_guard<std::mutex> guard(m_lock);
    for (const auto& block : m_free) std::free(block.first);
    m_free.clear();
    m_free_bytes = 0;
  }

 private:
  static std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
  /// Takes the oldest kept blocks off the list until the rest fit the limit (the caller frees them unlocked).
  void evict(std::vector<void*>& freed) {
    std::size_t drop = 0;
    while (drop < m_free.size() && m_free_bytes > m_limit) {
      m_free_bytes -= m_free[drop].second;
      freed.push_back(m_free[drop++].first);
    }
    m_free.erase(m_free.begin(), m_free.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  std::mutex m_lock;
  std::vector<std::pair<void*, std::size_t>> m_free;
  std::map<void*, std::size_t> m_used;
  std::size_t m_free_bytes = 0;
  std::size_t m_limit = default_temporary_cache_bytes;
  bool m_hooked = false;
};

/// Blocks of temporary memory for an execution space instance, handed back in its order (KokkosSpGEMM_Workspace.hpp):
/// from HostBlocks on host spaces, from a stream-ordered pool on CUDA (below); allocate returns nullptr where the
/// backend or device has no such cache (the caller then allocates a Kokkos view).
template <class ExecSpace>
struct BlockCache {
  static constexpr bool host = std::is_same<typename ExecSpace::memory_space, Kokkos::HostSpace>::value;
  /// Whether a block of this many bytes comes from a device cache in the instance's order (allocation and free
  /// without a call into the driver's allocator) and stays within the cache's limit.
  static bool in_stream_order(const ExecSpace&, std::size_t) { return false; }
  static void* allocate(const ExecSpace&, std::size_t bytes, const char* label = "KokkosSpGEMM::Workspace") {
    if constexpr (host) {
      return HostBlocks::instance().take(bytes, label);
    } else {
      (void)bytes;
      (void)label;
      return nullptr;
    }
  }
  static void release(const ExecSpace&, void* p, std::size_t, const char* label = "KokkosSpGEMM::Workspace") {
    if constexpr (host) {
      HostBlocks::instance().give(p, label);
    } else {
      (void)p;
      (void)label;
    }
  }
};

/// A mark in an execution space instance's queue: done() tells without waiting whether the work queued before
/// record() has finished, wait() waits for it. Host spaces finish their work inside each call, so their marks are
/// always passed; GPU spaces specialise it below. Host memory the device copies into without a wait is
/// PinnedHostSpace<ExecSpace>::type.
template <class ExecSpace>
class QueueMark {
 public:
  void record(const ExecSpace&) {}
  bool done() const { return true; }
  void wait() const {}
};

template <class ExecSpace>
struct PinnedHostSpace {
  using type = Kokkos::HostSpace;
};

/// Launches recorded once from an instance's queue and replayed as one (a CUDA graph): a call whose kernels repeat
/// then pays one launch's host time for all of them. capture(exec, f) records what f queues on exec without running
/// it; false when the backend has no such graph or the recording failed (f must then run as usual; an exception of
/// f ends the recording and propagates). launch(exec) queues the recorded work. Host spaces and HIP (not tried
/// there) record nothing.
template <class ExecSpace>
class LaunchGraph {
 public:
  static constexpr bool available = false;
  template <class F>
  bool capture(const ExecSpace&, const F&) {
    return false;
  }
  void launch(const ExecSpace&) const {}
};

/// GPU LaunchGraph over a stream API with graphs (Api, below).
template <class ExecSpace, class Api>
class StreamLaunchGraph {
 public:
  static constexpr bool available = true;
  StreamLaunchGraph() = default;
  StreamLaunchGraph(const StreamLaunchGraph&) = delete;
  StreamLaunchGraph& operator=(const StreamLaunchGraph&) = delete;
  ~StreamLaunchGraph() {
    if (m_made) Api::destroy_graph(m_graph);
  }
  template <class F>
  bool capture(const ExecSpace& exec, const F& f) {
    const auto stream = Api::stream(exec);
    // Relaxed: the launches' host side may query and set kernel attributes while the queue records.
    if (!Api::begin_capture(stream)) return false;
    try {
      f();
    } catch (...) {
      Api::abandon_capture(stream);
      throw;
    }
    if (m_made) Api::destroy_graph(m_graph);
    m_made = Api::end_capture(stream, m_graph);
    return m_made;
  }
  void launch(const ExecSpace& exec) const { Api::launch_graph(m_graph, Api::stream(exec)); }

 private:
  typename Api::GraphExec m_graph{};
  bool m_made = false;
};

/// Launches that may run side by side: a phase's independent launches spread over its instance and up to
/// `queues - 1` side instances of the same device (streams), each side starting after what was queued on the
/// instance before it, and the instance waiting for every side used when this object ends; the sides' sets are the
/// library's, one set a concurrent user. Host spaces launch everything on the instance.
template <class ExecSpace>
class LaunchQueues {
 public:
  LaunchQueues(const ExecSpace& exec, int) : m_exec(exec) {}
  /// The instance of the next launch.
  ExecSpace next() { return m_exec; }

 private:
  ExecSpace m_exec;
};

/// GPU LaunchQueues over a stream API (Api: the stream and event calls of CUDA or HIP, below).
template <class ExecSpace, class Api>
class StreamLaunchQueues {
 public:
  StreamLaunchQueues(const ExecSpace& exec, int queues) : m_exec(exec), m_queues(queues < 1 ? 1 : queues) {}
  StreamLaunchQueues(const StreamLaunchQueues&) = delete;
  StreamLaunchQueues& operator=(const StreamLaunchQueues&) = delete;
  ~StreamLaunchQueues() {
    if (m_set == nullptr) return;
    for (std::size_t k = 0; k < m_set->sides.size(); ++k) {
      if (!m_started[k]) continue;
      Api::record(m_set->joined[k], Api::stream(m_set->sides[k]));
      Api::wait(Api::stream(m_exec), m_set->joined[k]);
    }
    Sets::give_back(m_set);
  }

  /// The instance of the next launch: the instance and its sides in turn.
  ExecSpace next() {
    const int turn = m_turn++ % m_queues;
    if (turn == 0) return m_exec;
    if (m_set == nullptr) {
      m_set = Sets::lease(Api::device(m_exec), m_queues - 1);
      m_started.assign(m_set->sides.size(), false);
      Api::record(m_set->fork, Api::stream(m_exec));
    }
    const std::size_t k = static_cast<std::size_t>(turn - 1);
    if (!m_started[k]) {
      Api::wait(Api::stream(m_set->sides[k]), m_set->fork);
      m_started[k] = true;
    }
    return m_set->sides[k];
  }

 private:
  struct Set {
    int device = 0;
    std::vector<ExecSpace> sides;
    typename Api::Event fork{};
    std::vector<typename Api::Event> joined;
  };
  /// Sets of side instances, leased one a user at a time; made at first need, destroyed with Kokkos.
  struct Sets {
    static std::mutex& lock() {
      static std::mutex m;
      return m;
    }
    static std::vector<Set*>& free_sets() {
      static std::vector<Set*> sets;
      return sets;
    }
    static Set* lease(int device, int sides) {
      {
        std::lock_guard<std::mutex> guard(lock());
        auto& sets = free_sets();
        for (auto it = sets.begin(); it != sets.end(); ++it) {
          if ((*it)->device == device && static_cast<int>((*it)->sides.size()) == sides) {
            Set* s = *it;
            sets.erase(it);
            return s;
          }
        }
        static bool hooked = false;
        if (!hooked) {
          hooked = true;
          Kokkos::push_finalize_hook([] {
            std::lock_guard<std::mutex> g(lock());
            for (Set* s : free_sets()) {
              Api::destroy(s->fork);
              for (auto& e : s->joined) Api::destroy(e);
              delete s;
            }
            free_sets().clear();
          });
        }
      }
      Set* s = new Set;
      s->device = device;
      s->fork = Api::event();
      for (int k = 0; k < sides; ++k) {
        s->sides.push_back(Api::make(device));
        s->joined.push_back(Api::event());
      }
      return s;
    }
    static void give_back(Set* s) {
      std::lock_guard<std::mutex> guard(lock());
      free_sets().push_back(s);
    }
  };

  ExecSpace m_exec;
  int m_queues;
  int m_turn = 0;
  Set* m_set = nullptr;
  std::vector<bool> m_started;
};

/// GPU QueueMark over a stream API (Api, below): an event, made at the first record().
template <class ExecSpace, class Api>
class StreamQueueMark {
 public:
  StreamQueueMark() = default;
  StreamQueueMark(const StreamQueueMark&) = delete;
  StreamQueueMark& operator=(const StreamQueueMark&) = delete;
  ~StreamQueueMark() {
    if (m_made) Api::destroy(m_event);
  }
  void record(const ExecSpace& exec) {
    if (!m_made) {
      m_event = Api::event();
      m_made = true;
    }
    Api::record(m_event, Api::stream(exec));
  }
  bool done() const { return !m_made || Api::passed(m_event); }
  void wait() const {
    if (m_made) Api::synchronize(m_event);
  }

 private:
  typename Api::Event m_event{};
  bool m_made = false;
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#if defined(KOKKOS_ENABLE_CUDA)
#include <backend/KokkosSpGEMM_CudaStreamPool.hpp>

namespace KokkosSpGEMM {
namespace Impl {
template <>
struct PinnedHostSpace<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};

struct CudaQueueApi {
  using Event = cudaEvent_t;
  static cudaStream_t stream(const Kokkos::Cuda& exec) { return exec.cuda_stream(); }
  static int device(const Kokkos::Cuda& exec) { return exec.cuda_device(); }
  static Kokkos::Cuda make(int device) {
    int current = 0;
    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaGetDevice(&current));
    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaSetDevice(device));
    cudaStream_t s = nullptr;
    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Kokkos::Cuda made(s, Kokkos::Impl::ManageStream::yes);
    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaSetDevice(current));
    return made;
  }
  static Event event() {
    Event e = nullptr;
    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }
  static void record(Event e, cudaStream_t s) { KOKKOS_IMPL_CUDA_SAFE_CALL(cudaEventRecord(e, s)); }
  static void wait(cudaStream_t s, Event e) { KOKKOS_IMPL_CUDA_SAFE_CALL(cudaStreamWaitEvent(s, e, 0)); }
  /// Whether the work before e's record has finished, without waiting.
  static bool passed(Event e) {
    const cudaError_t r = cudaEventQuery(e);
    if (r == cudaErrorNotReady) return false;
    KOKKOS_IMPL_CUDA_SAFE_CALL(r);
    return true;
  }
  static void synchronize(Event e) { KOKKOS_IMPL_CUDA_SAFE_CALL(cudaEventSynchronize(e)); }
  static void destroy(Event e) { cudaEventDestroy(e); }
  using GraphExec = cudaGraphExec_t;
  static bool begin_capture(cudaStream_t s) {
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
  }
  /// Ends a recording that f left by an exception, discarding it.
  static void abandon_capture(cudaStream_t s) {
    cudaGraph_t g = nullptr;
    (void)cudaStreamEndCapture(s, &g);
    if (g != nullptr) (void)cudaGraphDestroy(g);
    (void)cudaGetLastError();
  }
  static bool end_capture(cudaStream_t s, GraphExec& out) {
    cudaGraph_t g = nullptr;
    const bool ended = cudaStreamEndCapture(s, &g) == cudaSuccess && g != nullptr;
    const bool made = ended && cudaGraphInstantiateWithFlags(&out, g, 0) == cudaSuccess;
    if (g != nullptr) (void)cudaGraphDestroy(g);
    if (!made) (void)cudaGetLastError();
    return made;
  }
  static void launch_graph(GraphExec g, cudaStream_t s) { KOKKOS_IMPL_CUDA_SAFE_CALL(cudaGraphLaunch(g, s)); }
  static void destroy_graph(GraphExec g) { (void)cudaGraphExecDestroy(g); }
};

template <>
class QueueMark<Kokkos::Cuda> : public StreamQueueMark<Kokkos::Cuda, CudaQueueApi> {};

template <>
class LaunchGraph<Kokkos::Cuda> : public StreamLaunchGraph<Kokkos::Cuda, CudaQueueApi> {};

template <>
class LaunchQueues<Kokkos::Cuda> : public StreamLaunchQueues<Kokkos::Cuda, CudaQueueApi> {
 public:
  using StreamLaunchQueues<Kokkos::Cuda, CudaQueueApi>::StreamLaunchQueues;
};
}  // namespace Impl
}  // namespace KokkosSpGEMM
#endif

#if defined(KOKKOS_ENABLE_HIP)
namespace KokkosSpGEMM {
namespace Impl {
template <>
struct PinnedHostSpace<Kokkos::HIP> {
  using type = Kokkos::HIPHostPinnedSpace;
};

struct HipQueueApi {
  using Event = hipEvent_t;
  static hipStream_t stream(const Kokkos::HIP& exec) { return exec.hip_stream(); }
  static int device(const Kokkos::HIP& exec) { return exec.hip_device(); }
  static Kokkos::HIP make(int device) {
    int current = 0;
    KOKKOS_IMPL_HIP_SAFE_CALL(hipGetDevice(&current));
    KOKKOS_IMPL_HIP_SAFE_CALL(hipSetDevice(device));
    hipStream_t s = nullptr;
    KOKKOS_IMPL_HIP_SAFE_CALL(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    Kokkos::HIP made(s, Kokkos::Impl::ManageStream::yes);
    KOKKOS_IMPL_HIP_SAFE_CALL(hipSetDevice(current));
    return made;
  }
  static Event event() {
    Event e = nullptr;
    KOKKOS_IMPL_HIP_SAFE_CALL(hipEventCreateWithFlags(&e, hipEventDisableTiming));
    return e;
  }
  static void record(Event e, hipStream_t s) { KOKKOS_IMPL_HIP_SAFE_CALL(hipEventRecord(e, s)); }
  static void wait(hipStream_t s, Event e) { KOKKOS_IMPL_HIP_SAFE_CALL(hipStreamWaitEvent(s, e, 0)); }
  /// Whether the work before e's record has finished, without waiting.
  static bool passed(Event e) {
    const hipError_t r = hipEventQuery(e);
    if (r == hipErrorNotReady) return false;
    KOKKOS_IMPL_HIP_SAFE_CALL(r);
    return true;
  }
  static void synchronize(Event e) { KOKKOS_IMPL_HIP_SAFE_CALL(hipEventSynchronize(e)); }
  static void destroy(Event e) { (void)hipEventDestroy(e); }
};

template <>
class QueueMark<Kokkos::HIP> : public StreamQueueMark<Kokkos::HIP, HipQueueApi> {};

template <>
class LaunchQueues<Kokkos::HIP> : public StreamLaunchQueues<Kokkos::HIP, HipQueueApi> {
 public:
  using StreamLaunchQueues<Kokkos::HIP, HipQueueApi>::StreamLaunchQueues;
};
}  // namespace Impl
}  // namespace KokkosSpGEMM
#endif

namespace KokkosSpGEMM {

/// Per-backend constants used to configure kernels. The primary template describes a CPU space.
template <class ExecSpace>
struct BackendTraits {
  static constexpr bool is_gpu = false;
  /// Widest vector length a team may use (1 on CPUs: a team is one thread, a row is owned by that thread).
  static constexpr int max_vector_length = 1;
  /// Threads that execute in lock step (warp/wavefront), 1 on CPUs.
  static constexpr int simd_width = 1;
  /// Level-0 scratch bytes we plan a team around; the runtime limit is checked against scratch_size_max.
  static constexpr int scratch_bytes_per_team = 64 * 1024;
  /// Teams resident per unit of concurrency (used to size the global memory pool).
  static constexpr int teams_per_concurrency = 1;
  /// Items of a flat pass (input checks) per work item: a CPU thread loops over a block, which vectorizes; a GPU
  /// thread takes one item or a few adjacent ones.
  static constexpr std::int64_t flat_items_per_work_item = 4096;
  /// Launch bounds of the thread-row hash kernels: threads a team at most and teams a multiprocessor at least (the
  /// compiler then caps registers to fit them); 0 and 0: none.
  static constexpr int thread_rows_max_threads = 0;
  static constexpr int thread_rows_min_teams = 0;
  static const char* name() { return "Host"; }
  /// Teams of `threads` threads, each with `scratch` bytes of team scratch, that run at once (registers aside).
  template <class Exec>
  static std::int64_t resident_teams(const Exec& exec, int, std::size_t) {
    return static_cast<std::int64_t>(exec.concurrency());
  }
};

#if defined(KOKKOS_ENABLE_SERIAL)
template <>
struct BackendTraits<Kokkos::Serial> : BackendTraits<void> {
  static const char* name() { return "Serial"; }
};
#endif

#if defined(KOKKOS_ENABLE_OPENMP)
template <>
struct BackendTraits<Kokkos::OpenMP> : BackendTraits<void> {
  static const char* name() { return "OpenMP"; }
};
#endif

#if defined(KOKKOS_ENABLE_THREADS)
template <>
struct BackendTraits<Kokkos::Threads> : BackendTraits<void> {
  static const char* name() { return "Threads"; }
};
#endif

#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct BackendTraits<Kokkos::Cuda> {
  static constexpr bool is_gpu = true;
  static constexpr int max_vector_length = 32;
  static constexpr int simd_width = 32;
  // 48 KiB is available without opting in on every NVIDIA GPU since Kepler.
  static constexpr int scratch_bytes_per_team = 48 * 1024;
  static constexpr int teams_per_concurrency = 1;
  // A thread's 8 adjacent items, their loads issued together (OperandItems::unrolled_items): fewer threads to
  // reduce, and still coalesced.
  static constexpr std::int64_t flat_items_per_work_item = 8;
  // Six teams of 256 threads a multiprocessor (40 registers a thread): a thread row waits on shared-memory atomics
  // and on B's rows, and more resident warps hide that; left to itself the compiler takes more registers.
  static constexpr int thread_rows_max_threads = 256;
  static constexpr int thread_rows_min_teams = 6;
  static const char* name() { return "Cuda"; }
  static std::int64_t resident_teams(const Kokkos::Cuda& exec, int threads, std::size_t scratch) {
    const cudaDeviceProp& p = exec.cuda_device_prop();
    // Kokkos adds a double per thread and two to each team's scratch; the device reserves some per block.
    const std::size_t per_team = scratch + sizeof(double) * (threads + 2) + p.reservedSharedMemPerBlock;
    std::int64_t per_sm = p.maxThreadsPerMultiProcessor / threads;
    per_sm = std::min<std::int64_t>(per_sm, static_cast<std::int64_t>(p.sharedMemPerMultiprocessor / per_team));
    per_sm = std::min<std::int64_t>(per_sm, p.maxBlocksPerMultiProcessor);
    return per_sm * p.multiProcessorCount;
  }
};
#endif

#if defined(KOKKOS_ENABLE_HIP)
template <>
struct BackendTraits<Kokkos::HIP> {
  static constexpr bool is_gpu = true;
  static constexpr int max_vector_length = 64;
  static constexpr int simd_width = 64;
  // 64 KiB of LDS per workgroup on CDNA.
  static constexpr int scratch_bytes_per_team = 64 * 1024;
  static constexpr int teams_per_concurrency = 1;
  static constexpr std::int64_t flat_items_per_work_item = 1;
  static constexpr int thread_rows_max_threads = 0;
  static constexpr int thread_rows_min_teams = 0;
  static const char* name() { return "HIP"; }
  static std::int64_t resident_teams(const Kokkos::HIP& exec, int threads, std::size_t scratch) {
    // A CDNA compute unit: 2,048 threads (32 wavefronts of 64) and 64 KiB of LDS.
    const std::int64_t units = static_cast<std::int64_t>(exec.concurrency()) / 2048;
    std::int64_t per_unit = 2048 / threads;
    per_unit = std::min<std::int64_t>(per_unit, static_cast<std::int64_t>(65536 / (scratch + 8 * (threads + 2))));
    return std::max<std::int64_t>(1, per_unit) * std::max<std::int64_t>(1, units);
  }
};
#endif

namespace Impl {

// Every kernel launches light-weight: Kokkos' CUDA backend copies a functor of 512 bytes or more (ours carry a
// dozen views) to constant memory, and first waits for the kernel that used it before, so a chain of small kernels
// ran a full launch latency apart instead of queueing. As kernel arguments (up to 4 KB) launches queue behind each
// other without waiting.
using LightWeight = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;
template <class ExecSpace, class... Traits>
using Range = Kokkos::RangePolicy<ExecSpace, LightWeight, Traits...>;
template <class ExecSpace, class... Traits>
using Teams = Kokkos::TeamPolicy<ExecSpace, LightWeight, Traits...>;

/// Level-0 scratch bytes a team of `threads` threads may take through parallel_for_teams: Kokkos' limit for its team
/// policies, and on CUDA the block's opt-in limit (227 KB on H100, where Kokkos grants sharedMemPerBlock, 48 KB) less
/// the space of the team's reductions.
template <class ExecSpace>
std::int64_t team_scratch_max(const ExecSpace& exec, int threads) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    return static_cast<std::int64_t>(exec.cuda_device_prop().sharedMemPerBlockOptin) -
           static_cast<std::int64_t>(sizeof(double)) * (threads + 2);
  }
#endif
  (void)exec;
  (void)threads;
  return Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
/// CUDA teams launched past Kokkos' scratch limit: block r of the grid runs team r, with the member Kokkos' own team
/// launch would give it (its reductions' space first, then the team's scratch).
template <class Functor>
__global__ void teams_past_kokkos_scratch(const Functor f, int league, unsigned reduce_bytes, unsigned scratch_bytes) {
  extern __shared__ double2 kokkosspgemm_team_shared[];
  for (int r = blockIdx.x; r < league; r += gridDim.x) {
    if (r != static_cast<int>(blockIdx.x)) __syncthreads();  // the last team's scratch is free
    f(Kokkos::Impl::CudaTeamMember(kokkosspgemm_team_shared, reduce_bytes, scratch_bytes, nullptr, 0, r, league));
  }
}
#endif

/// The largest team (threads, for `vector` lanes each) that parallel_for_teams can run f in with `scratch` bytes.
template <class Policy, class Functor>
int teams_max_team_size(const typename Policy::execution_space& exec, const Functor& f, int vector,
                        std::size_t scratch) {
  int team = Policy(exec, 1, 1, vector).team_size_max(f, Kokkos::ParallelForTag());
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (std::is_same<typename Policy::execution_space, Kokkos::Cuda>::value) {
    if (static_cast<std::int64_t>(scratch) > Policy::scratch_size_max(0)) {
      cudaFuncAttributes attributes;
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaFuncGetAttributes(&attributes, teams_past_kokkos_scratch<Functor>));
      team = std::min(team, attributes.maxThreadsPerBlock / vector);
    }
  }
#endif
  (void)scratch;
  return team;
}

/// Kokkos::parallel_for over `league` teams of `team` threads with `vector` lanes and `scratch` bytes of level-0
/// scratch a team. Within Kokkos' limit (Policy::scratch_size_max(0)) it is Kokkos' own team launch; past it, on
/// CUDA, a launch of our own on the instance's stream with the kernel's dynamic shared memory raised to what it
/// needs (up to team_scratch_max), the label reported to Kokkos' tools as Kokkos reports its kernels. Elsewhere
/// scratch stays within Kokkos' limit (team_scratch_max).
template <class Policy, class Functor>
void parallel_for_teams(const std::string& label, const typename Policy::execution_space& exec, int league, int team,
                        int vector, std::size_t scratch, const Functor& f) {
  if (league <= 0) return;
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (std::is_same<typename Policy::execution_space, Kokkos::Cuda>::value) {
    if (static_cast<std::int64_t>(scratch) > Policy::scratch_size_max(0)) {
      const unsigned reduce = static_cast<unsigned>(sizeof(double) * (team + 2));
      const std::size_t shared = reduce + scratch;
      const auto kernel = teams_past_kokkos_scratch<Functor>;
      KOKKOS_IMPL_CUDA_SAFE_CALL(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
      std::uint64_t id = 0;
      if (Kokkos::Tools::profileLibraryLoaded()) {
        Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(exec), &id);
      }
      kernel<<<league, dim3(vector, team, 1), shared, exec.cuda_stream()>>>(f, league, reduce,
                                                                            static_cast<unsigned>(scratch));
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaGetLastError());
      if (Kokkos::Tools::profileLibraryLoaded()) Kokkos::Tools::endParallelFor(id);
      return;
    }
  }
#endif
  Policy policy(exec, league, team, vector);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
  Kokkos::parallel_for(label, policy, f);
}

/// A fresh uninitialised view of n elements (the arrays a call hands to its caller, C's above all). In HostSpace,
/// past huge_page_min_bytes, the view starts on a huge-page boundary of an allocation two huge pages longer, under
/// huge pages asked for: every page it touches is then a huge one, where an allocation at the address malloc
/// chooses leaves up to 2 MiB of base pages at each end. The extra virtual memory before and after it is never
/// touched.
template <class View, class ExecSpace>
View fresh_view(const ExecSpace& exec, const std::string& label, std::size_t n) {
  using T = typename View::value_type;
  if constexpr (huge_pages_on_request && std::is_same<typename View::memory_space, Kokkos::HostSpace>::value &&
                huge_page_bytes % sizeof(T) == 0) {
    if (n * sizeof(T) >= huge_page_min_bytes) {
      const std::size_t pad = 2 * huge_page_bytes / sizeof(T);
      View whole(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), n + pad);
      const auto at = reinterpret_cast<std::uintptr_t>(whole.data());
      const std::uintptr_t aligned = (at + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
      if ((aligned - at) % sizeof(T) == 0) {
        const std::size_t skip = (aligned - at) / sizeof(T);
        View view = Kokkos::subview(whole, std::make_pair(skip, skip + n));
        const std::size_t span = (n * sizeof(T) + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
        advise_huge_pages_at(view.data(), span);  // within whole: skip < pad / 2, span < n + pad / 2 elements
        return view;
      }
      advise_huge_pages_at(whole.data(), n * sizeof(T));
      return Kokkos::subview(whole, std::make_pair(std::size_t(0), n));
    }
  }
  return View(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), n);
}

/// The temporary cache's limit, holdings and trim (KokkosSpGEMM_TemporaryCache.hpp): HostBlocks for host spaces,
/// and a pool a device on CUDA.
inline void block_cache_set_limit(std::size_t bytes) {
  HostBlocks::instance().set_limit(bytes);
#if defined(KOKKOS_ENABLE_CUDA)
  CudaPools::instance().set_limit(bytes);
#endif
}

inline std::size_t block_cache_reserved() {
  std::size_t bytes = HostBlocks::instance().reserved();
#if defined(KOKKOS_ENABLE_CUDA)
  bytes += CudaPools::instance().reserved();
#endif
  return bytes;
}

inline void block_cache_trim() {
#if defined(KOKKOS_ENABLE_CUDA)
  Kokkos::fence("KokkosSpGEMM::release_temporary_cache");
  CudaPools::instance().trim();
#endif
  HostBlocks::instance().trim();
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
