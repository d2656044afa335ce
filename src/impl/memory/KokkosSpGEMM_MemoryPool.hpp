// A thread-scalable memory pool of equal chunks for level-2 accumulators (kkSpGEMM §3.1.2): a team takes a
// chunk when a row does not fit its scratch and gives it back when the row is done. The number of chunks follows
// the concurrency of the launch (so a taker normally finds a free chunk in one sweep) and the memory budget
// (fewer chunks: takers wait for a release, which always comes because holders are running).
#ifndef KOKKOSSPGEMM_MEMORYPOOL_HPP
#define KOKKOSSPGEMM_MEMORYPOOL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <Kokkos_Core.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

/// The pool's unit of storage: 16 bytes, 16-aligned, so that any scalar type is aligned in every chunk.
struct alignas(16) PoolBlock {
  char bytes[16];
};

template <class MemorySpace>
class MemoryPool {
 public:
  /// Where chunks start: 16 bytes apart on GPUs; on host spaces two cache lines, so that a thread's last writes in
  /// its chunk (an accumulator's touched list) and the next chunk's first bytes (a header its thread writes every
  /// row) never share a line or the adjacent-line prefetcher's pair of lines (docs/performance.md, v58).
  static constexpr std::size_t chunk_alignment =
      std::is_same<MemorySpace, Kokkos::HostSpace>::value ? 128 : sizeof(PoolBlock);
  /// A chunk of `bytes` as the pool lays it out, for budgets.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t stride(std::size_t bytes) {
    return (bytes + chunk_alignment - 1) / chunk_alignment * chunk_alignment;
  }

  MemoryPool() = default;

  /// num_chunks chunks of chunk_bytes each (rounded up to stride, so any scalar is aligned), from the phase's
  /// workspace; zeroed on request.
  template <class ExecSpace>
  MemoryPool(const ExecSpace& exec, Workspace<ExecSpace>& workspace, std::int64_t num_chunks, std::size_t chunk_bytes,
             bool zeroed)
      : m_chunk_bytes(stride(chunk_bytes)),
        m_num_chunks(num_chunks),
        // One take: the chunks, then a flag a chunk (a pool that is the phase's first take sizes the workspace).
        m_storage(workspace.template take<PoolBlock>(
            "KokkosSpGEMM::MemoryPool::chunks",
            (m_chunk_bytes / 16) * static_cast<std::size_t>(num_chunks) + (num_chunks * sizeof(int) + 15) / 16)),
        m_taken(reinterpret_cast<int*>(m_storage.data() + (m_chunk_bytes / 16) * static_cast<std::size_t>(num_chunks)),
                num_chunks) {
    Kokkos::deep_copy(exec, m_taken, 0);
    if (zeroed) {
      Kokkos::View<char*, MemorySpace, Kokkos::MemoryUnmanaged> bytes(reinterpret_cast<char*>(m_storage.data()),
                                                                      total_bytes());
      Kokkos::deep_copy(exec, bytes, char(0));
    }
  }

  /// Zeroes the first `bytes` (a multiple of 16) of every chunk: accumulators that only need their flags clean.
  template <class ExecSpace>
  void zero_chunk_prefixes(const ExecSpace& exec, std::size_t bytes) const {
    // A GPU thread a block (coalesced stores); a CPU thread a page of them, a loop the compiler makes a memset (a
    // division for every block showed in the host profiles of small one-shots).
    constexpr std::int64_t per_item = BackendTraits<ExecSpace>::is_gpu ? 1 : 256;
    const std::int64_t blocks = static_cast<std::int64_t>(bytes / 16), per_chunk = m_chunk_bytes / 16;
    const std::int64_t items = (blocks + per_item - 1) / per_item;
    const auto storage = m_storage;
    Kokkos::parallel_for(
        "KokkosSpGEMM::MemoryPool::zero_prefixes", Impl::Range<ExecSpace>(exec, 0, items * m_num_chunks),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t begin = (i % items) * per_item,
                             end = begin + per_item < blocks ? begin + per_item : blocks;
          PoolBlock* chunk = storage.data() + (i / items) * per_chunk;
          for (std::int64_t b = begin; b < end; ++b) chunk[b] = PoolBlock{};
        });
  }

  KOKKOS_INLINE_FUNCTION std::int64_t num_chunks() const { return m_num_chunks; }
  KOKKOS_INLINE_FUNCTION std::size_t chunk_bytes() const { return m_chunk_bytes; }
  std::size_t total_bytes() const { return m_chunk_bytes * static_cast<std::size_t>(m_num_chunks); }

  /// Takes a free chunk, starting the search at hint (spread takers over the pool), waiting if none is free.
  KOKKOS_INLINE_FUNCTION std::int64_t acquire(std::int64_t hint) const {
    std::int64_t c = hint % m_num_chunks;
    while (true) {
      // volatile: the flag changes under us while we wait.
      const int taken = static_cast<volatile int*>(m_taken.data())[c];
      if (taken == 0 && Kokkos::atomic_compare_exchange(&m_taken(c), 0, 1) == 0) return c;
      c = (c + 1 == m_num_chunks) ? 0 : c + 1;
    }
  }

  KOKKOS_INLINE_FUNCTION void release(std::int64_t c) const {
    Kokkos::memory_fence();
    Kokkos::atomic_exchange(&m_taken(c), 0);
  }

  /// Start of chunk c.
  KOKKOS_INLINE_FUNCTION char* chunk(std::int64_t c) const {
    return reinterpret_cast<char*>(m_storage.data()) + static_cast<std::size_t>(c) * m_chunk_bytes;
  }

 private:
  std::size_t m_chunk_bytes = 0;
  std::int64_t m_num_chunks = 0;
  Kokkos::View<PoolBlock*, MemorySpace> m_storage;
  Kokkos::View<int*, MemorySpace, Kokkos::MemoryUnmanaged> m_taken;  // inside m_storage, which keeps it alive
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
