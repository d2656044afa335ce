// The memory cache of the library's temporaries. A phase's workspace block (impl/memory/Workspace.hpp) comes, on
// CUDA, from a stream-ordered memory pool of the library's own (backend/CudaStreamPool.hpp), since a cudaMalloc of a
// megabyte costs tens of microseconds and its cudaFree waits for the whole device. A block freed in stream order
// goes back to the pool, which keeps up to a limit of such memory for later calls (default 64 MiB a device) and
// returns the rest to the device at its next synchronisation. On host spaces (Serial, OpenMP, Threads) freed blocks
// are kept up to the same limit (HostBlocks in backend/BackendTraits.hpp): fresh host memory costs a page fault per
// page at first touch. HIP allocates Kokkos views, for now.
#ifndef KOKKOSSPGEMM_TEMPORARYCACHE_HPP
#define KOKKOSSPGEMM_TEMPORARYCACHE_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>

#include <cstddef>

namespace KokkosSpGEMM {

/// Bytes of freed temporaries the library keeps for its later calls, a CUDA device and the host each (default
/// 64 MiB). Beyond it, the memory returns to the device at the device's next synchronisation (to the system at once
/// on the host); 0 returns it all then.
inline void set_temporary_cache_limit(std::size_t bytes) { Impl::block_cache_set_limit(bytes); }

/// Bytes the cache holds now, in use or free, over all devices and the host (0 where there is no cache).
inline std::size_t temporary_cache_bytes() { return Impl::block_cache_reserved(); }

/// Waits for the devices, then returns the cache's free memory to them and to the system.
inline void release_temporary_cache() { Impl::block_cache_trim(); }

}  // namespace KokkosSpGEMM

#endif
