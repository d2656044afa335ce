// The numeric phase: with the row map from the symbolic phase and its exact-size bins, accumulate every row's
// values and write C's columns and values in place (sorted by column unless unsorted output was asked for).
#ifndef KOKKOSSPGEMM_NUMERIC_HPP
#define KOKKOSSPGEMM_NUMERIC_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <impl/pipeline/KokkosSpGEMM_MultiplyViews.hpp>
#include <impl/reuse/KokkosSpGEMM_DeferredChecks.hpp>
#include <impl/reuse/KokkosSpGEMM_ReplayGraph.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionMapBuild.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionReplay.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowKernelLaunch.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>

#include <sstream>
#include <string>

namespace KokkosSpGEMM {
namespace Impl {

/// Bytes of C's entries and values for the handle's nnz(C).
template <class CMatrix, class Handle>
std::size_t c_entry_bytes(const Handle& handle) {
  return static_cast<std::size_t>(handle.nnz()) *
         (sizeof(typename CMatrix::ordinal_type) + sizeof(typename CMatrix::scalar_type));
}

/// Gives C its entries and values for nnz(C) unless it has them.
template <class ExecSpace, class Handle, class CMatrix>
void allocate_numeric_output(const ExecSpace& exec, const Handle& handle, CMatrix& c) {
  if (c.entries().extent(0) != static_cast<std::size_t>(handle.nnz())) {
    c.set_entries(fresh_view<typename CMatrix::entries_type>(exec, "KokkosSpGEMM::C::entries", handle.nnz()));
  }
  if (c.values().extent(0) != static_cast<std::size_t>(handle.nnz())) {
    c.set_values(fresh_view<typename CMatrix::values_type>(exec, "KokkosSpGEMM::C::values", handle.nnz()));
  }
}

/// Checks C and the kept analysis against the memory budget (refused before C is touched), then, with allocate,
/// gives C its entries and values for nnz(C) unless it has them. Returns the bytes the budget leaves for pools (0:
/// no budget).
template <class ExecSpace, class Handle, class CMatrix>
std::size_t prepare_numeric_output(const ExecSpace& exec, const Handle& handle, CMatrix& c, bool allocate = true) {
  const std::size_t budget = state(handle).settings.memory_budget_bytes;
  const std::size_t c_bytes = c_entry_bytes<CMatrix>(handle) +
                              (static_cast<std::size_t>(c.num_rows()) + 1) * sizeof(typename CMatrix::offset_type);
  KOKKOSSPGEMM_REQUIRE(budget == 0 || c_bytes + handle.kept_bytes() < budget, OutOfMemory, "spgemm_numeric",
                       "C needs " << c_bytes << " bytes (nnz(C) = " << handle.nnz() << ") and the analysis keeps "
                                  << handle.kept_bytes() << ", over the memory budget of " << budget << " bytes");
  if (allocate) allocate_numeric_output(exec, handle, c);
  return budget > 0 ? budget - c_bytes - handle.kept_bytes() : 0;
}

/// Whether a numeric call writes C's entries and values into the temporary cache first and allocates C's own arrays
/// while its kernels run, then copies: where the cache is in stream order (CUDA), C's fresh arrays cost two driver
/// allocations with the device idle, more than a copy of a small C. Only for fresh arrays within the cache's limit and
/// without a memory budget (the staged copy is extra memory for the call's duration).
template <class ExecSpace, class CMatrix, class Handle>
bool stages_numeric_output(const ExecSpace& exec, const Handle& handle, const CMatrix& c) {
  const auto nnz = static_cast<std::size_t>(handle.nnz());
  return BackendTraits<ExecSpace>::is_gpu && state(handle).settings.memory_budget_bytes == 0 && nnz > 0 &&
         c.entries().extent(0) != nnz && c.values().extent(0) != nnz &&
         BlockCache<ExecSpace>::in_stream_order(exec, c_entry_bytes<CMatrix>(handle));
}

/// True when C's entries hold the columns this handle's last numeric call wrote, in the order now asked for.
template <class Handle, class CMatrix>
bool columns_known(const Handle& handle, const CMatrix& c) {
  auto& st = state(handle);
  const Settings& o = st.settings;
  return o.reuse_columns && o.algorithm != Algorithm::RMerge && st.written_columns != nullptr &&
         st.written_columns == static_cast<const void*>(c.entries().data()) && st.written_sorted == o.sorted &&
         c.entries().extent(0) == static_cast<std::size_t>(handle.nnz());
}

/// Pool options for one numeric call: on GPUs the pools (one chunk per concurrent team by default) are held to the
/// size of C beyond what the analysis keeps, so that a call's peak extra memory stays within C (teams wait for
/// chunks beyond that).
template <class ExecSpace, class CMatrix, class Handle>
Settings numeric_launch_options(const Handle& handle) {
  Settings launch_options = state(handle).settings;
  if (BackendTraits<ExecSpace>::is_gpu) {
    const std::size_t c_bytes = c_entry_bytes<CMatrix>(handle);
    const std::size_t cap = c_bytes > handle.kept_bytes() ? c_bytes - handle.kept_bytes() : 1;
    if (launch_options.pool_bytes_limit == 0 || cap < launch_options.pool_bytes_limit) {
      launch_options.pool_bytes_limit = cap;
    }
  }
  return launch_options;
}

/// Whether a numeric call will replay C from the handle's position map as it stands, so that A and B can be
/// checked on the device beside the replay, without a copy back of their own (the replay and the kernels of the
/// bins the map leaves skip their work when they fail: MultiplyViews::operands_failed; the verdict names the
/// problem later, or run_numeric at once).
template <class Handle, class CMatrix>
bool defers_operand_check(const Handle& handle, const CMatrix& c) {
  const auto& map = state(handle).positions;
  return state(handle).chunks.empty() && columns_known(handle, c) && state(handle).settings.reuse_positions &&
         map.made() && map.columns == static_cast<const void*>(c.entries().data()) && !map.mapped.empty();
}

/// Reads the verdicts of the handle's earlier reuse calls whose checks were deferred (Options::synchronous_checks):
/// those the device has finished, or all of them with wait. A failure throws, naming the call that failed, and
/// leaves the handle to compute C in full at its next call (the map and C's columns no longer describe a valid C).
template <class Handle>
void settle_deferred_checks(Handle& handle, const char* function, bool wait) {
  auto& st = state(handle);
  if (!st.deferred.checks || st.deferred.checks->pending() == 0) return;
  const auto found = st.deferred.checks->settle(wait);
  if (found.failure == DeferredFailure::None) return;
  st.positions = decltype(st.positions)();
  st.written_columns = nullptr;
  std::ostringstream later;
  for (std::size_t k = 0; k < found.later.size(); ++k) later << (k > 0 ? ", " : "") << found.later[k];
  const std::string also = found.later.empty() ? std::string()
                                               : "; later calls " + later.str() +
                                                     " failed their checks too, and C's values from them are "
                                                     "not the product either";
  KOKKOSSPGEMM_REQUIRE(found.failure != DeferredFailure::BadOperands, InvalidInput, function,
                       "numeric call " << found.call << " on this handle found A or B not a well-formed CSR matrix ("
                                       << found.count
                                       << " rows or entries out of order or out of range) and left C's values "
                                          "unwritten"
                                       << also << " (checks read after the call: Options::synchronous_checks)");
  KOKKOSSPGEMM_REQUIRE(false, HandleMismatch, function,
                       "numeric call " << found.call
                                       << " on this handle found C's column indices changed since the handle wrote "
                                          "them, so that call's C is not the product"
                                       << also
                                       << " (checks read after the call: Options::synchronous_checks); the next "
                                          "numeric call computes C in full");
}

/// retried: this call already found C's columns changed once and made the map anew from them.
/// operands_checked: A and B passed check_operands; otherwise (defers_operand_check) the replay checks them.
/// values: what the kernels multiply B's rows by (AValues.hpp).
template <class ExecSpace, class Handle, class AMatrix, class BMatrix, class CMatrix, class AValues = StoredValues>
void run_numeric(const ExecSpace& exec, Handle& handle, const AMatrix& a, const BMatrix& b, CMatrix& c,
                 bool retried = false, bool operands_checked = true, const AValues& values = AValues()) {
  auto& st = state(handle);
  using Methods = typename Handle::methods_type;
  if (!operands_checked && !defers_operand_check(handle, c)) {
    check_operands(exec, "spgemm_numeric", a, b);
    operands_checked = true;
  }
  // Decided before C may get new arrays: fresh ones hold no columns.
  const bool known = columns_known(handle, c);
  const bool by_positions = known && st.settings.reuse_positions;
  // A full phase rewrites C's columns: the map would no longer describe them (and its memory is better freed).
  if (!by_positions) st.positions = decltype(st.positions)();
  const bool staged = !by_positions && stages_numeric_output(exec, handle, c);
  std::size_t pool_budget = prepare_numeric_output(exec, handle, c, !staged);
  auto& map = st.positions;
  const bool make_map = by_positions && (!map.made() || map.columns != static_cast<const void*>(c.entries().data()));
  // Pools and bin counts, allocated only when taken. Calls that use the position map (it fills what the size of C
  // leaves) or run under a budget allocate each take on its own; a full phase plans at most an eighth of C.
  Workspace<ExecSpace> workspace(exec, pool_budget > 0 || by_positions
                                           ? 0
                                           : min_of(workspace_small_pools_bytes, c_entry_bytes<CMatrix>(handle) / 8));
  // What the kernels write: C, or with staging, arrays of the cache that C's own receive after the kernels.
  CMatrix out = c;
  Workspace<ExecSpace> staging(exec, staged ? c_entry_bytes<CMatrix>(handle) + 2 * sizeof(WorkspaceGrain) : 0);
  if (staged) {
    const auto nnz = static_cast<std::size_t>(handle.nnz());
    out.set_entries(staging.template take<typename CMatrix::ordinal_type>("KokkosSpGEMM::C::entries", nnz));
    out.set_values(staging.template take<typename CMatrix::scalar_type>("KokkosSpGEMM::C::values", nnz));
  }
  MultiplyViews<AMatrix, BMatrix, CMatrix, AValues> v(a, b, out, values);
  v.mask_rows = st.complement_rows;
  v.mask_cols = st.complement_cols;
  v.mask_hits = st.complement_hits;
  v.unit_b = st.b_one_entry_rows;
  v.known_columns = known;
  st.written_columns = nullptr;  // until this call succeeds
  // A GPU reuse call leaves its checks' verdict to a later call (a call that makes the map waits anyway, and a
  // retry is already synchronous); row blocks under a budget check synchronously (run_numeric_chunked).
  const bool deferred =
      BackendTraits<ExecSpace>::is_gpu && known && !st.settings.synchronous_checks && !retried && !make_map;
  decltype(st.reuse_status) status;
  if (v.known_columns) {
    if (deferred) {
      if (!st.deferred.checks) st.deferred.checks = std::make_shared<DeferredChecks<ExecSpace>>();
      status = st.deferred.checks->begin(exec);
    } else {
      if (st.reuse_status.data() == nullptr) {
        st.reuse_status = decltype(st.reuse_status)(Kokkos::view_alloc(exec, "KokkosSpGEMM::Numeric::reuse_status"),
                                                    ReuseStatus::entries);
      }
      Kokkos::deep_copy(exec, st.reuse_status, std::uint64_t(0));
      status = st.reuse_status;
    }
    v.reuse_status = status;
  }
  std::size_t pool = 0;
  if (make_map) {
    // The map may take the size of C beyond what the analysis keeps (or the option's bytes), and under a memory
    // budget half of what the budget leaves.
    map = decltype(st.positions)();
    const std::size_t c_bytes = c_entry_bytes<CMatrix>(handle);
    const std::size_t want = st.settings.reuse_positions_bytes > 0 ? st.settings.reuse_positions_bytes : c_bytes;
    std::size_t limit = want > handle.kept_bytes() ? want - handle.kept_bytes() : 0;
    if (pool_budget > 0) limit = min_of(limit, pool_budget / 2);
    const std::size_t pool_cap = c_bytes > handle.kept_bytes() ? c_bytes - handle.kept_bytes() : 1;
    if (!make_position_map(exec, workspace, handle, v, limit, pool_cap, pool)) {
      run_numeric(exec, handle, a, b, c, false, true, values);  // C's columns are not this product's: the full phase
      return;
    }
    if (pool_budget > 0) pool_budget -= map.bytes();
  }
  const bool replay = by_positions && !map.mapped.empty();
  const Settings launch_options = numeric_launch_options<ExecSpace, CMatrix>(handle);
  if (replay) {
    const bool deterministic = st.settings.deterministic;
    const std::size_t stream_bytes = st.settings.host_stream_bytes;
    // The replay, with started() once its check (and the tiles' zeroing of C) is queued.
    const auto replay_then = [&](const auto& started) {
      if (operands_checked) {
        replay_positions(exec, v, map, status, deterministic, stream_bytes, NoOperandItems(), started);
      } else {
        replay_positions(exec, v, map, status, deterministic, stream_bytes, OperandItems<AMatrix, BMatrix>(a, b),
                         started);
      }
    };
    auto replays = [&] { replay_then(NothingAtStart()); };
    // A graph where the replay is all the call launches: no gathered bins (their pools are the call's own).
    if (deferred && map.gathered.empty() && AValues::stored) {
      launch_replay(exec, map, replay_graph_key(v, status, operands_checked, deterministic), st.settings.replay_graphs,
                    replays);
    } else if (map.gathered_beside) {
      // The gathered bins on a side queue once the check is queued, the replay on the call's instance, joined
      // before the checks are read or copied.
      LaunchQueues<ExecSpace> queues(exec, 2);
      const auto gathered = [&]() {
        queues.next();  // the instance's turn: the replay's
        pool = max_of(pool, launch_row_kernels<true, Methods>(queues.next(), workspace, v, map.bins, map.gathered,
                                                              launch_options, pool_budget));
      };
      replay_then(gathered);
    } else {
      replays();
      pool = max_of(pool, launch_row_kernels<true, Methods>(exec, workspace, v, map.bins, map.gathered, launch_options,
                                                            pool_budget));
    }
  } else if (Methods::research && st.settings.algorithm == Algorithm::RMerge) {
    if constexpr (Methods::research) pool = Methods::template rmerge<true>(exec, v, a.num_rows());
  } else {
    pool = launch_row_kernels<true, Methods>(exec, workspace, v, st.numeric_bins, st.numeric_configs, launch_options,
                                             pool_budget);
    if (!st.product_configs.empty()) {
      pool = max_of(pool, launch_row_kernels<true, Methods>(exec, workspace, v, st.product_bins, st.product_configs,
                                                            launch_options, pool_budget));
    }
  }
  if (staged) {
    allocate_numeric_output(exec, handle, c);  // while the kernels run
    Kokkos::deep_copy(exec, c.entries(), out.entries());
    Kokkos::deep_copy(exec, c.values(), out.values());
  }
  if (deferred) {
    st.deferred.checks->end(exec, st.numeric_calls, replay, replay ? map.checksum : 0);
  } else if (v.known_columns) {
    const ReuseStatus found = read_reuse_status(exec, status);
    if (found.bad_operands > 0) {
      map = decltype(st.positions)();                // its replay was skipped; C holds nothing of this call
      check_operands(exec, "spgemm_numeric", a, b);  // names the problem (throws)
    }
    if (found.missing > 0 || (replay && found.checksum != map.checksum)) {
      // C's entries were changed since they were written. A new map from them serves them if they still hold this
      // product's columns (the map making checks); otherwise, or without the map, the full phase recomputes them.
      map = decltype(st.positions)();
      if (replay && !retried) st.written_columns = c.entries().data();
      run_numeric(exec, handle, a, b, c, true, true, values);
      return;
    }
  }
  st.written_columns = c.entries().data();
  st.written_sorted = st.settings.sorted;
  st.numeric_pool_bytes = pool;
  st.peak_extra_bytes =
      max_of(st.peak_extra_bytes, workspace.peak_bytes(pool) + handle.kept_bytes() + staging.capacity());
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
