// The only place where execution spaces differ for us: every KOKKOS_ENABLE_<BACKEND> branch lives here.
#ifndef KOKKOSSPGEMM_BACKENDTRAITS_HPP
#define KOKKOSSPGEMM_BACKENDTRAITS_HPP

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace KokkosSpGEMM {
namespace Impl {

constexpr std::size_t default_temporary_cache_bytes = std::size_t(64) << 20;

/// Blocks of device memory in stream order on an execution space instance; allocate returns nullptr where the
/// backend or device has no such pool (the caller then allocates a Kokkos view).
template <class ExecSpace>
struct BlockCache {
  static void* allocate(const ExecSpace&, std::size_t, const char* = "") { return nullptr; }
  static void release(const ExecSpace&, void*, std::size_t, const char* = "") {}
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

}  // namespace Impl
}  // namespace KokkosSpGEMM

#if defined(KOKKOS_ENABLE_CUDA)
#include <backend/KokkosSpGEMM_CudaStreamPool.hpp>

namespace KokkosSpGEMM {
namespace Impl {
template <>
class QueueMark<Kokkos::Cuda> {
 public:
  QueueMark() = default;
  QueueMark(const QueueMark&) = delete;
  QueueMark& operator=(const QueueMark&) = delete;
  ~QueueMark() {
    if (m_event != nullptr) cudaEventDestroy(m_event);
  }
  void record(const Kokkos::Cuda& exec) {
    if (m_event == nullptr) KOKKOS_IMPL_CUDA_SAFE_CALL(cudaEventCreateWithFlags(&m_event, cudaEventDisableTiming));
    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaEventRecord(m_event, exec.cuda_stream()));
  }
  bool done() const {
    if (m_event == nullptr) return true;
    const cudaError_t e = cudaEventQuery(m_event);
    if (e == cudaErrorNotReady) return false;
    KOKKOS_IMPL_CUDA_SAFE_CALL(e);
    return true;
  }
  void wait() const {
    if (m_event != nullptr) KOKKOS_IMPL_CUDA_SAFE_CALL(cudaEventSynchronize(m_event));
  }

 private:
  cudaEvent_t m_event = nullptr;
};

template <>
struct PinnedHostSpace<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
}  // namespace Impl
}  // namespace KokkosSpGEMM
#endif

#if defined(KOKKOS_ENABLE_HIP)
namespace KokkosSpGEMM {
namespace Impl {
template <>
class QueueMark<Kokkos::HIP> {
 public:
  QueueMark() = default;
  QueueMark(const QueueMark&) = delete;
  QueueMark& operator=(const QueueMark&) = delete;
  ~QueueMark() {
    if (m_event != nullptr) (void)hipEventDestroy(m_event);
  }
  void record(const Kokkos::HIP& exec) {
    if (m_event == nullptr) KOKKOS_IMPL_HIP_SAFE_CALL(hipEventCreateWithFlags(&m_event, hipEventDisableTiming));
    KOKKOS_IMPL_HIP_SAFE_CALL(hipEventRecord(m_event, exec.hip_stream()));
  }
  bool done() const {
    if (m_event == nullptr) return true;
    const hipError_t e = hipEventQuery(m_event);
    if (e == hipErrorNotReady) return false;
    KOKKOS_IMPL_HIP_SAFE_CALL(e);
    return true;
  }
  void wait() const {
    if (m_event != nullptr) KOKKOS_IMPL_HIP_SAFE_CALL(hipEventSynchronize(m_event));
  }

 private:
  hipEvent_t m_event = nullptr;
};

template <>
struct PinnedHostSpace<Kokkos::HIP> {
  using type = Kokkos::HIPHostPinnedSpace;
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
  // A thread's 4 adjacent items read as one loop: fewer threads to reduce, and still coalesced.
  static constexpr std::int64_t flat_items_per_work_item = 4;
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

/// Host arrays of at least this many bytes are backed by huge pages where Linux offers them on request
/// (transparent huge pages in madvise mode): first touch of C's arrays then faults once per 2 MiB instead of per
/// 4 KiB (measured in docs/performance.md). 4 MiB because NumPy asks the same from that size.
constexpr std::size_t huge_page_min_bytes = std::size_t(4) << 20;

/// Asks for huge pages under a fresh host view (see huge_page_min_bytes); nothing elsewhere or where refused.
template <class View>
void advise_huge_pages(const View& view) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if constexpr (std::is_same<typename View::memory_space, Kokkos::HostSpace>::value) {
    const std::size_t bytes = view.span() * sizeof(typename View::value_type);
    if (bytes < huge_page_min_bytes) return;
    constexpr std::uintptr_t page = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(view.data());
    const std::uintptr_t first = (begin + page - 1) / page * page, last = (begin + bytes) / page * page;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)view;
#endif
}

/// The temporary cache's limit, holdings and trim (KokkosSpGEMM_TemporaryCache.hpp): a pool a device on CUDA, none
/// elsewhere.
inline void block_cache_set_limit(std::size_t bytes) {
#if defined(KOKKOS_ENABLE_CUDA)
  CudaPools::instance().set_limit(bytes);
#else
  (void)bytes;
#endif
}

inline std::size_t block_cache_reserved() {
#if defined(KOKKOS_ENABLE_CUDA)
  return CudaPools::instance().reserved();
#else
  return 0;
#endif
}

inline void block_cache_trim() {
#if defined(KOKKOS_ENABLE_CUDA)
  Kokkos::fence("KokkosSpGEMM::release_temporary_cache");
  CudaPools::instance().trim();
#endif
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
