// The symbolic phase's short rows of A on GPUs (stencils, A*P with a tentative P): a thread a row merges the rows
// of B its row of A selects, with a cursor per entry of A held in registers (at most register_merge_ways entries),
// and counts the distinct columns. Each step takes the smallest column among the cursors' heads and moves every
// cursor past it, so a product costs a comparison and a load, with no table and no probing. It needs B's rows
// sorted: a row of B found out of order is recorded in v.b_disorder, and the phase then counts the bin again with
// hash tables. The numeric phase keeps hashing these rows: there a thread that writes its own row of C stores to
// addresses a row apart from its neighbours', which measured slower than the lanes of a hash row writing theirs.
#ifndef KOKKOSSPGEMM_REGISTERMERGEROWS_HPP
#define KOKKOSSPGEMM_REGISTERMERGEROWS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Cursors a thread holds in registers: the longest row of A a register-merge bin may have.
constexpr int register_merge_ways = 8;

template <class Views, class Perm>
struct RegisterMergeCountKernel {
  using Ordinal = typename Views::ordinal_type;
  using BOffset = typename decltype(Views::b_rows)::non_const_value_type;
  static constexpr int ways = register_merge_ways;

  Views v;
  Perm perm;
  std::int64_t first = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    // Past every column of B: an exhausted cursor's head.
    constexpr Ordinal none = Kokkos::Experimental::finite_max<Ordinal>::value;
    const Ordinal row = perm(first + r);
    const auto a_begin = v.a_rows(row);
    const std::int64_t a_len = static_cast<std::int64_t>(v.a_rows(row + 1) - a_begin);
    Ordinal head[ways];
    BOffset pos[ways], end[ways];
    // Fixed indices only (unrolled loops, predicated loads), so that the cursors stay in registers.
    KOKKOSSPGEMM_UNROLL
    for (int j = 0; j < ways; ++j) {
      head[j] = none;
      pos[j] = end[j] = 0;
      if (j < a_len) {
        const Ordinal k = v.a_cols(a_begin + j);
        pos[j] = v.b_rows(k);
        end[j] = v.b_rows(k + 1);
        if (pos[j] < end[j]) head[j] = v.b_cols(pos[j]);
      }
    }
    std::int64_t count = 0;
    bool disordered = false;
    while (true) {
      Ordinal col = head[0];
      KOKKOSSPGEMM_UNROLL
      for (int j = 1; j < ways; ++j) col = head[j] < col ? head[j] : col;
      if (col == none) break;
      KOKKOSSPGEMM_UNROLL
      for (int j = 0; j < ways; ++j) {
        // A row of B may repeat a column: its cursor stays until it passes it.
        while (head[j] == col) {
          ++pos[j];
          head[j] = pos[j] < end[j] ? v.b_cols(pos[j]) : none;
          disordered = disordered || head[j] < col;
        }
      }
      ++count;
    }
    v.row_sizes(row) = count;
    // Every such row writes the same mark, and one that sees it set writes nothing: no queue of atomics on one
    // address when all of B is out of order.
    if (disordered && v.b_disorder(0) == 0) v.b_disorder(0) = 1;
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
