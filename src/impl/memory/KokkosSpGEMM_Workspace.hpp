// The temporaries of one phase (row analysis, bin counts, pools) carved from one device allocation. A cudaMalloc
// costs tens of microseconds and every cudaFree synchronises the device, which on a small multiplication adds up to
// much of its time when each temporary pays it. All of a phase's kernels run in order on one execution space
// instance, so a range handed back (rewind) may be handed out again at once. A request past the block is allocated
// on its own. Allocations name the execution space: Kokkos then copies a view's header to the device in order on it,
// without a device-wide fence each. The block comes from the library's stream-ordered cache where the backend has
// one (KokkosSpGEMM_TemporaryCache.hpp, backend/CudaStreamPool.hpp): no wait for the device at its free.
#ifndef KOKKOSSPGEMM_WORKSPACE_HPP
#define KOKKOSSPGEMM_WORKSPACE_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace KokkosSpGEMM {
namespace Impl {

/// The unit of a workspace's block: takes start 256 bytes apart. (At namespace scope: nvcc's kernel stubs for views
/// of a private nested type do not compile.)
struct WorkspaceGrain {
  char bytes[256];
};

/// Bytes a phase's workspace plans for its small pools and bin counts beyond what it knows it needs (the symbolic
/// phase's row analysis), when no memory budget is set.
constexpr std::size_t workspace_small_pools_bytes = std::size_t(1) << 18;

/// n elements of T that outlive a phase (a handle keeps them), uninitialised: with from_cache, a block of the
/// temporary cache where the backend has one, handed back when the last copy of holder goes (no cudaFree, which
/// waits for the device); else a view of their own.
template <class T, class ExecSpace>
Kokkos::View<T*, typename ExecSpace::memory_space> cached_view(const ExecSpace& exec, const char* label, std::size_t n,
                                                               std::shared_ptr<void>& holder, bool from_cache = true) {
  if (from_cache && n > 0) {
    const std::size_t bytes = n * sizeof(T);
    if (void* p = BlockCache<ExecSpace>::allocate(exec, bytes, label)) {
      holder = std::shared_ptr<void>(
          p, [exec, bytes, label](void* q) { BlockCache<ExecSpace>::release(exec, q, bytes, label); });
      return Kokkos::View<T*, typename ExecSpace::memory_space>(static_cast<T*>(p), n);
    }
  }
  holder.reset();
  return Kokkos::View<T*, typename ExecSpace::memory_space>(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(label)), n);
}

template <class ExecSpace>
class Workspace {
  using Grain = WorkspaceGrain;
  using MemorySpace = typename ExecSpace::memory_space;

 public:
  /// The block (allocated at the first take, at least that take's size) holds `bytes`; 0: no block, every take
  /// allocates on its own.
  Workspace(const ExecSpace& exec, std::size_t bytes) : m_exec(exec), m_planned(bytes) {}
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    if (m_cached) BlockCache<ExecSpace>::release(m_exec, m_data, m_capacity);
  }

  /// n elements of T, uninitialised, valid until the phase ends or a rewind below them.
  template <class T>
  Kokkos::View<T*, MemorySpace> take(const std::string& label, std::size_t n) {
    const std::size_t bytes = round_up(n * sizeof(T));
    if (m_planned > 0 && m_data == nullptr) allocate_block(m_planned > bytes ? m_planned : bytes);
    if (m_used + bytes <= capacity()) {
      T* p = reinterpret_cast<T*>(m_data + m_used);
      m_used += bytes;
      return Kokkos::View<T*, MemorySpace>(p, n);
    }
    m_spilled = true;
    return fresh_view<Kokkos::View<T*, MemorySpace>>(m_exec, label, n);
  }

  /// take, zeroed in order before the kernels that follow on the execution space.
  template <class T>
  Kokkos::View<T*, MemorySpace> take_zeroed(const std::string& label, std::size_t n) {
    auto view = take<T>(label, n);
    Kokkos::deep_copy(m_exec, view, T());
    return view;
  }

  std::size_t mark() const { return m_used; }
  void rewind(std::size_t mark) { m_used = mark < m_used ? mark : m_used; }
  std::size_t capacity() const { return m_capacity; }
  /// Device bytes at most live at once: the block, plus the largest take that did not fit it.
  std::size_t peak_bytes(std::size_t largest_take) const { return capacity() + (m_spilled ? largest_take : 0); }

 private:
  static std::size_t round_up(std::size_t bytes) { return (bytes + sizeof(Grain) - 1) / sizeof(Grain) * sizeof(Grain); }

  void allocate_block(std::size_t bytes) {
    const std::size_t grains = bytes / sizeof(Grain) + 1;
    m_data = static_cast<char*>(BlockCache<ExecSpace>::allocate(m_exec, grains * sizeof(Grain)));
    m_cached = m_data != nullptr;
    if (!m_cached) {
      m_block = fresh_view<Kokkos::View<Grain*, MemorySpace>>(m_exec, "KokkosSpGEMM::Workspace", grains);
      m_data = reinterpret_cast<char*>(m_block.data());
    }
    m_capacity = grains * sizeof(Grain);
  }

  ExecSpace m_exec;
  std::size_t m_planned = 0;
  std::size_t m_used = 0;
  bool m_spilled = false;
  bool m_cached = false;  // m_data is the cache's block, handed back at destruction
  char* m_data = nullptr;
  std::size_t m_capacity = 0;
  Kokkos::View<Grain*, MemorySpace> m_block;  // the block where there is no cache
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
