// Rows cut into ranges of about equal work, for the CPU kernels that hand out rows a thread (the masked walk, the
// dense accumulator): power-law matrices keep their heaviest rows together (R-MAT's first), and ranges of equal row
// counts left one thread with most of the work.
#ifndef KOKKOSSPGEMM_WORKRANGES_HPP
#define KOKKOSSPGEMM_WORKRANGES_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

/// The first position p in sorted[begin, end) with sorted(p) >= key (end if none).
template <class Sorted, class Key>
KOKKOS_INLINE_FUNCTION std::int64_t sorted_lower_bound(const Sorted& sorted, std::int64_t begin, std::int64_t end,
                                                       Key key) {
  std::int64_t lo = begin, hi = end;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (sorted(mid) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Ranges a CPU thread: enough that the last grabs are short, few enough that grabbing them (an atomic and a token
/// or pool chunk each) stays far below the work (items of four rows, one a grab, cost usroads-48's triangle count
/// 40x on 16 threads).
constexpr std::int64_t work_ranges_per_thread = 16;

/// How many ranges `rows` rows take on exec: work_ranges_per_thread a thread, and at most one a min_rows rows.
template <class ExecSpace>
std::int64_t work_range_count(const ExecSpace& exec, std::int64_t rows, std::int64_t min_rows) {
  const std::int64_t by_rows = (rows + min_rows - 1) / min_rows;
  const std::int64_t by_threads = work_ranges_per_thread * static_cast<std::int64_t>(exec.concurrency());
  return by_rows < by_threads ? by_rows : by_threads;
}

template <class Perm>
struct IsRowsInOrder : std::false_type {};
template <class Ordinal>
struct IsRowsInOrder<RowsInOrder<Ordinal>> : std::true_type {};

/// Whether Weight gives its running sum in closed form (running_sum(r): the weights of rows [0, r)).
template <class Weight, class = void>
struct HasRunningSum : std::false_type {};
template <class Weight>
struct HasRunningSum<Weight, std::enable_if_t<Weight::running_sum_known>> : std::true_type {};

/// The weights of rows [0, r): in closed form, or from the scan's view of running sums (start).
template <class Weight, class Start>
struct RunningSum {
  Weight weight;
  Start start;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t r) const {
    if constexpr (HasRunningSum<Weight>::value) {
      return weight.running_sum(r);
    } else {
      return start(r);
    }
  }
};

/// Rows [0, rows) cut into `ranges` ranges of about equal total weight (weight(r) >= 1 for row r). A row heavier than
/// a range stands alone and ranges may be empty. Returns the ranges' first rows and, last, `rows`. On one thread,
/// where no cut balances anything, ranges of equal row counts without the pass over the rows' weights; a weight with
/// a running sum in closed form (rows in their own order) needs no pass either.
/// Every row falls in exactly one range even where the weights are wrong (a row map not yet checked, not monotone):
/// the first range starts at row 0, the goals never fall, and a binary search's answer never falls as its goal
/// rises, whatever the array (two goals take the same path until a probe between them, then part on either side).
template <class ExecSpace, class Weight>
Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> balanced_ranges(const ExecSpace& exec, std::int64_t rows,
                                                                              std::int64_t ranges,
                                                                              const Weight& weight) {
  using View = Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>;
  const bool by_rows = exec.concurrency() == 1;
  View start;
  if (!by_rows && !HasRunningSum<Weight>::value) {
    start = View(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::WorkRanges::start"), rows + 1);
    Kokkos::parallel_scan(
        "KokkosSpGEMM::WorkRanges::weights", Range<ExecSpace>(exec, 0, rows),
        KOKKOS_LAMBDA(const std::int64_t r, std::int64_t& sum, const bool final) {
          if (final) start(r) = sum;
          sum += weight(r);
          if (final && r + 1 == rows) start(rows) = sum;
        });
  }
  View first(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::WorkRanges::first"), ranges + 1);
  const RunningSum<Weight, View> sum{weight, start};
  Kokkos::parallel_for(
      "KokkosSpGEMM::WorkRanges::cut", Range<ExecSpace>(exec, 0, ranges + 1), KOKKOS_LAMBDA(const std::int64_t w) {
        if (w == ranges) {
          first(w) = rows;
        } else if (w == 0) {
          first(w) = 0;
        } else if (by_rows) {
          first(w) = rows * w / ranges;
        } else {
          // The first row that starts at or past range w's share of the work.
          const std::int64_t all = sum(rows);
          first(w) = sorted_lower_bound(sum, 0, rows,
                                        static_cast<std::int64_t>(static_cast<double>(all > 0 ? all : 0) * w / ranges));
        }
      });
  return first;
}

/// A row's weight from row maps alone: 1 plus its entries of A times B's mean row (the masked walk adds its target
/// row, MaskedRowWeight). Weighing each entry by its own row of B (a load an entry) balanced R-MAT no better in the
/// masked walk and cost the small graphs 10-25% on 2 threads.
template <class ARows, class Perm>
struct EntryWeight {
  ARows a_rows;
  Perm perm;
  std::int64_t first = 0;      // perm's offset
  std::int64_t per_entry = 1;  // 1 + B's mean row length
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t r) const {
    const auto i = perm(first + r);
    return 1 + static_cast<std::int64_t>(a_rows(i + 1) - a_rows(i)) * per_entry;
  }
  /// Rows in their own order: the weights of rows [0, r) from two offsets, no scan over the rows (docs/performance.md,
  /// v85).
  static constexpr bool running_sum_known = IsRowsInOrder<Perm>::value;
  KOKKOS_INLINE_FUNCTION std::int64_t running_sum(const std::int64_t r) const {
    return r + static_cast<std::int64_t>(a_rows(first + r) - a_rows(first)) * per_entry;
  }
};

/// 1 + B's mean row length: the weight of an entry of A.
template <class BRows, class BCols>
std::int64_t entry_weight(const BRows& b_rows, const BCols& b_cols) {
  const std::int64_t rows = static_cast<std::int64_t>(b_rows.extent(0)) - 1;
  return 1 + (rows > 0 ? static_cast<std::int64_t>(b_cols.extent(0)) / rows : 0);
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
