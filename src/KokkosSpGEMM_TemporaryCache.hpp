// The device memory cache of the library's temporaries. A phase's workspace block (impl/memory/Workspace.hpp)
// comes, on CUDA, from a stream-ordered memory pool of the library's own (backend/CudaStreamPool.hpp), since a
// cudaMalloc of a megabyte costs tens of microseconds and its cudaFree waits for the whole device. A block freed in
// stream order goes back to the pool, which keeps up to a limit of such memory for later calls (default 64 MiB a
// device) and returns the rest to the device at its next synchronisation. Other backends (HIP too, for now)
// allocate Kokkos views.
#ifndef KOKKOSSPGEMM_TEMPORARYCACHE_HPP
#define KOKKOSSPGEMM_TEMPORARYCACHE_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>

#include <cstddef>

namespace KokkosSpGEMM {

/// Bytes of freed temporaries the library keeps a device for its later calls (CUDA; default 64 MiB). Beyond it, the
/// memory returns to the device at the device's next synchronisation; 0 returns it all then.
inline void set_temporary_cache_limit(std::size_t bytes) { Impl::block_cache_set_limit(bytes); }

/// Device bytes the cache holds now, in use or free, over all devices (0 where there is no cache).
inline std::size_t temporary_cache_bytes() { return Impl::block_cache_reserved(); }

/// Waits for the device, then returns the cache's free memory to it.
inline void release_temporary_cache() { Impl::block_cache_trim(); }

}  // namespace KokkosSpGEMM

#endif
