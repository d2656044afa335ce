// Reuse checks read later (Options::synchronous_checks false, GPUs): a reuse call queues a copy of its checks'
// running totals (ReuseStatus) into pinned host memory and a mark behind it, and returns without waiting for the
// device.
// The handle's next call, or verify(), reads the verdicts of the calls whose marks have passed, oldest first.
#ifndef KOKKOSSPGEMM_DEFERREDCHECKS_HPP
#define KOKKOSSPGEMM_DEFERREDCHECKS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionReplay.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// What a deferred check found wrong in one call.
enum class DeferredFailure { None, BadOperands, ColumnsChanged };

template <class ExecSpace>
class DeferredChecks {
 public:
  using device_status = Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space>;
  /// Calls a handle may have in flight unread; a call beyond them waits for the oldest (a solver's refresh makes one
  /// call a handle before it uses C).
  static constexpr int depth = 4;

  struct Verdict {
    DeferredFailure failure = DeferredFailure::None;  // the oldest failure's
    std::uint64_t call = 0;                           // its numeric call on the handle (1 = the first)
    std::uint64_t count = 0;                          // its count (bad rows and entries, or columns not found)
    std::vector<std::uint64_t> later;                 // later calls read with it that failed too
  };

  /// The device counters for the call about to be queued (a slot is free: settle() ran). They are running totals
  /// over the calls, each call's verdict the difference between its copy and the one before, so that a call queues
  /// no reset of its own; they start again from zero (queued on exec) at the first call, after a failure (whose
  /// operands' count would stop the later replays), after a call that never reached end(), and on another instance
  /// than the last call's (whose work is waited for first, since both would add to the totals).
  device_status begin(const ExecSpace& exec) {
    if (m_device.data() == nullptr) {
      // Pinned host slots in one allocation: a pinned host allocation costs a fair part of a small matrix's replay.
      constexpr std::size_t n = ReuseStatus::entries;
      m_device = device_status(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::DeferredChecks::device"), n);
      m_host = host_status(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::DeferredChecks::host"),
                           depth * n);
      for (std::size_t k = 0; k < static_cast<std::size_t>(depth); ++k) {
        m_slots[k].host = Kokkos::subview(m_host, std::make_pair(k * n, (k + 1) * n));
      }
      m_reset = true;
    } else if (!same_instance(exec, m_exec)) {
      fence(m_exec, "KokkosSpGEMM::DeferredChecks: the last instance's calls, before the totals restart");
      m_reset = true;
    }
    m_exec = exec;
    Slot& s = m_slots[m_next];
    s.from_zero = m_reset || m_open;
    if (s.from_zero) Kokkos::deep_copy(exec, m_device, std::uint64_t(0));
    m_reset = false;
    m_open = true;
    return m_device;
  }

  /// Queues the copy of the totals and the mark behind it. replay: compare the call's checksum with expected.
  void end(const ExecSpace& exec, std::uint64_t call, bool replay, std::uint64_t expected) {
    Slot& s = m_slots[m_next];
    Kokkos::deep_copy(exec, s.host, m_device);
    s.mark.record(exec);
    s.pending = true;
    s.call = call;
    s.replay = replay;
    s.expected = expected;
    m_next = (m_next + 1) % depth;
    m_open = false;
  }

  /// Reads the verdicts whose marks have passed, oldest first (every one with wait; the oldest also when no slot
  /// is free, so that begin() has one), and returns the oldest failure with the later failed calls.
  Verdict settle(bool wait) {
    Verdict found;
    for (int k = 0; k < depth; ++k) {
      Slot& s = m_slots[(m_next + k) % depth];
      if (!s.pending) continue;
      const bool full = k == 0;                     // m_slots[m_next] is pending: no slot is free
      if (!wait && !full && !s.mark.done()) break;  // later calls, queued behind it, are not done either
      s.mark.wait();
      s.pending = false;
      const ReuseStatus total{s.host(0), s.host(1), s.host(2)};
      const ReuseStatus before = s.from_zero ? ReuseStatus{} : m_read;
      m_read = total;
      // Misses and checksums are differences (unsigned: the checksum's totals wrap, as its sums do). The operands'
      // count is not (the checks beside the replays add to it): while it is non-zero the kernels skip their work, so a
      // call whose copy shows it non-zero failed.
      const ReuseStatus r{total.missing - before.missing, total.checksum - before.checksum, total.bad_operands};
      DeferredFailure f = DeferredFailure::None;
      if (r.bad_operands > 0) {
        f = DeferredFailure::BadOperands;
      } else if (r.missing > 0 || (s.replay && r.checksum != s.expected)) {
        f = DeferredFailure::ColumnsChanged;
      }
      if (f == DeferredFailure::None) continue;
      m_reset = true;
      if (found.failure == DeferredFailure::None) {
        found.failure = f;
        found.call = s.call;
        found.count = f == DeferredFailure::BadOperands ? r.bad_operands : r.missing;
      } else {
        found.later.push_back(s.call);
      }
    }
    return found;
  }

  /// Calls queued whose verdict is not read yet.
  int pending() const {
    int n = 0;
    for (const Slot& s : m_slots) n += s.pending ? 1 : 0;
    return n;
  }

 private:
  using host_status = Kokkos::View<std::uint64_t*, typename PinnedHostSpace<ExecSpace>::type>;
  struct Slot {
    host_status host;
    QueueMark<ExecSpace> mark;
    bool pending = false, replay = false;
    bool from_zero = false;  // the totals restarted at this call
    std::uint64_t call = 0, expected = 0;
  };
  device_status m_device;
  host_status m_host;
  std::array<Slot, depth> m_slots;
  int m_next = 0;
  ExecSpace m_exec;
  ReuseStatus m_read;   // the totals of the last call read
  bool m_reset = true;  // the next call starts the totals from zero
  bool m_open = false;  // a call began and has not ended
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
