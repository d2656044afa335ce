// The CUDA side of the temporary cache (KokkosSpGEMM_TemporaryCache.hpp): a stream-ordered memory pool a device,
// of the library's own, so that a phase's workspace block costs neither a cudaMalloc nor a device-wide wait at its
// free. Included by the backend traits in their CUDA branch only.
#ifndef KOKKOSSPGEMM_CUDASTREAMPOOL_HPP
#define KOKKOSSPGEMM_CUDASTREAMPOOL_HPP

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace KokkosSpGEMM {
namespace Impl {

class CudaPools {
 public:
  static CudaPools& instance() {
    static CudaPools p;
    return p;
  }

  /// The device's pool, made at its first use; nullptr where the device has no memory pools.
  cudaMemPool_t pool(int device) {
    std::lock_guard<std::mutex> guard(m_lock);
    const auto found = m_pools.find(device);
    if (found != m_pools.end()) return found->second;
    int supported = 0;
    cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device);
    cudaMemPool_t made = nullptr;
    if (supported) {
      cudaMemPoolProps props = {};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      if (cudaMemPoolCreate(&made, &props) == cudaSuccess) {
        std::uint64_t limit = m_limit;
        cudaMemPoolSetAttribute(made, cudaMemPoolAttrReleaseThreshold, &limit);
      } else {
        cudaGetLastError();
        made = nullptr;
      }
    }
    // Pools die with Kokkos (before the CUDA context); a later initialisation makes them anew.
    if (m_pools.empty()) Kokkos::push_finalize_hook([] { instance().destroy(); });
    m_pools.emplace(device, made);
    return made;
  }

  void set_limit(std::size_t bytes) {
    std::lock_guard<std::mutex> guard(m_lock);
    m_limit = bytes;
    for (auto& entry : m_pools) {
      if (entry.second == nullptr) continue;
      std::uint64_t limit = bytes;
      cudaMemPoolSetAttribute(entry.second, cudaMemPoolAttrReleaseThreshold, &limit);
    }
  }

  std::size_t limit() {
    std::lock_guard<std::mutex> guard(m_lock);
    return m_limit;
  }

  std::size_t reserved() {
    std::lock_guard<std::mutex> guard(m_lock);
    std::size_t sum = 0;
    for (auto& entry : m_pools) {
      std::uint64_t bytes = 0;
      if (entry.second != nullptr) cudaMemPoolGetAttribute(entry.second, cudaMemPoolAttrReservedMemCurrent, &bytes);
      sum += bytes;
    }
    return sum;
  }

  void trim() {
    std::lock_guard<std::mutex> guard(m_lock);
    for (auto& entry : m_pools) {
      if (entry.second != nullptr) cudaMemPoolTrimTo(entry.second, 0);
    }
  }

 private:
  void destroy() {
    std::lock_guard<std::mutex> guard(m_lock);
    for (auto& entry : m_pools) {
      if (entry.second != nullptr) cudaMemPoolDestroy(entry.second);
    }
    m_pools.clear();
  }

  std::mutex m_lock;
  std::map<int, cudaMemPool_t> m_pools;
  std::size_t m_limit = default_temporary_cache_bytes;
};

template <>
struct BlockCache<Kokkos::Cuda> {
  static bool in_stream_order(const Kokkos::Cuda& exec, std::size_t bytes) {
    return bytes <= CudaPools::instance().limit() && CudaPools::instance().pool(exec.cuda_device()) != nullptr;
  }
  static void* allocate(const Kokkos::Cuda& exec, std::size_t bytes, const char* label = "KokkosSpGEMM::Workspace") {
    const cudaMemPool_t pool = CudaPools::instance().pool(exec.cuda_device());
    if (pool == nullptr) return nullptr;
    void* p = nullptr;
    const cudaError_t error = cudaMallocFromPoolAsync(&p, bytes, pool, exec.cuda_stream());
    if (error != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it
      // translate_allocation_failure makes this an OutOfMemory error of the calling function.
      throw std::runtime_error(std::string(label) + " failed to allocate " + std::to_string(bytes) +
                               " bytes of device memory: " + cudaGetErrorString(error));
    }
    // Kokkos Tools see the block as they see a view's allocation (memory high-water tools, perf_tests).
    if (Kokkos::Profiling::profileLibraryLoaded()) {
      Kokkos::Profiling::allocateData(Kokkos::Profiling::make_space_handle(Kokkos::CudaSpace::name()), label, p, bytes);
    }
    return p;
  }
  static void release(const Kokkos::Cuda& exec, void* p, std::size_t bytes,
                      const char* label = "KokkosSpGEMM::Workspace") {
    if (Kokkos::Profiling::profileLibraryLoaded()) {
      Kokkos::Profiling::deallocateData(Kokkos::Profiling::make_space_handle(Kokkos::CudaSpace::name()), label, p,
                                        bytes);
    }
    // After the kernels already queued on the stream that read the block; the host does not wait.
    if (cudaFreeAsync(p, exec.cuda_stream()) != cudaSuccess) cudaGetLastError();
  }
};
}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
