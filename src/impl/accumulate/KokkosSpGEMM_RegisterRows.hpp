// Short rows on GPUs held in a thread's registers (stencils, A*P with a tentative P), in bins with rows enough to
// keep the device busy a thread a row (Symbolic.hpp chooses them): no table, no probing, no atomics.
// - Symbolic phase (RegisterMergeCountKernel): a thread a row merges the rows of B its row of A selects, with a
//   cursor per entry of A (at most register_merge_ways entries), and counts the distinct columns. Each step takes
//   the smallest column among the cursors' heads and moves every cursor past it. It needs B's rows sorted: a row of
//   B found out of order is recorded in v.b_disorder, and the phase then counts the bin again with hash tables.
// - Numeric phase (RegisterAccumulateKernel): a thread a row of C of at most register_accumulate_slots entries adds
//   each product into the slot of its column, compared with every slot at once, then sorts the slots and writes
//   them. It needs no order in B.
#ifndef KOKKOSSPGEMM_REGISTERROWS_HPP
#define KOKKOSSPGEMM_REGISTERROWS_HPP

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
    // A binned complemented mask's row (MultiplyViews::mask_hits), walked beside the merge: its columns met.
    const bool masked = v.binned_mask();
    auto m_pos = masked ? v.mask_rows(row) : 0;
    const auto m_end = masked ? v.mask_rows(row + 1) : 0;
    Ordinal hits = 0;
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
      if (masked) {
        while (m_pos < m_end && v.mask_cols(m_pos) < col) ++m_pos;
        hits += m_pos < m_end && v.mask_cols(m_pos) == col;
      }
    }
    v.row_sizes(row) = count;
    if (masked) v.mask_hits(row) = hits;
    // Every such row writes the same mark, and one that sees it set writes nothing: no queue of atomics on one
    // address when all of B is out of order.
    if (disordered && v.b_disorder(0) == 0) v.b_disorder(0) = 1;
  }
};

/// Slots of the numeric register accumulator: the largest exact size of a row of C it takes (sixteen columns and
/// values stay in registers; the hash rows' tables win beyond).
constexpr int register_accumulate_slots = 16;

/// Numeric phase, a bin of rows of C of at most Slots entries (their exact sizes: the symbolic phase counted them).
/// A product's column is compared with every slot (unrolled, fixed indices, so that the slots stay in registers);
/// the slots are then sorted by an odd-even transposition network, unused ones last, and written. Where C's columns
/// are known (reuse without a position map), each is gathered from the slots instead, one absent counted as a miss.
/// A row never writes past its length in C, whatever its operands hold.
template <class Views, class Perm, int Slots>
struct RegisterAccumulateKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;

  Views v;
  Perm perm;
  std::int64_t first = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    if (v.operands_failed()) return;
    constexpr Ordinal none = Kokkos::Experimental::finite_max<Ordinal>::value;  // sorts after every column
    const Ordinal row = perm(first + r);
    Ordinal cols[Slots];
    Scalar vals[Slots];
    KOKKOSSPGEMM_UNROLL
    for (int j = 0; j < Slots; ++j) {
      cols[j] = none;
      vals[j] = Scalar();
    }
    int n = 0;
    const auto a_row = v.a_values.row(row);
    for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
      const Ordinal k = v.a_cols(e);
      const Scalar a = a_row(v.a_vals(e), e);
      for (auto p = v.b_rows(k); p < v.b_rows(k + 1); ++p) {
        const Ordinal c = v.b_cols(p);
        const Scalar x = a * v.b_vals(p);
        bool found = false;
        KOKKOSSPGEMM_UNROLL
        for (int j = 0; j < Slots; ++j) {
          if (cols[j] == c) {
            vals[j] += x;
            found = true;
          }
        }
        if (!found) {
          KOKKOSSPGEMM_UNROLL
          for (int j = 0; j < Slots; ++j) {
            if (j == n) {
              cols[j] = c;
              vals[j] = x;
            }
          }
          ++n;
        }
      }
    }
    const auto out = v.c_rows(row);
    const std::int64_t length = static_cast<std::int64_t>(v.c_rows(row + 1) - out);
    if (v.known_columns) {
      for (std::int64_t i = 0; i < length; ++i) {
        const Ordinal c = v.c_cols(out + i);
        Scalar x = Scalar();
        bool found = false;
        KOKKOSSPGEMM_UNROLL
        for (int j = 0; j < Slots; ++j) {
          if (cols[j] == c && c != none) {
            x = vals[j];
            found = true;
          }
        }
        v.c_vals(out + i) = found ? x : v.missed();
      }
      return;
    }
    KOKKOSSPGEMM_UNROLL
    for (int round = 0; round < Slots; ++round) {
      KOKKOSSPGEMM_UNROLL
      for (int j = round % 2; j + 1 < Slots; j += 2) {
        if (cols[j + 1] < cols[j]) {
          const Ordinal c = cols[j];
          cols[j] = cols[j + 1];
          cols[j + 1] = c;
          const Scalar x = vals[j];
          vals[j] = vals[j + 1];
          vals[j + 1] = x;
        }
      }
    }
    if (v.erases_in_row(row)) {  // a complemented mask's columns left out
      std::int64_t o = 0;
      KOKKOSSPGEMM_UNROLL
      for (int j = 0; j < Slots; ++j) {
        if (j < n && !v.in_mask_row(row, cols[j])) {
          if (o < length) {
            v.c_cols(out + o) = cols[j];
            v.c_vals(out + o) = vals[j];
          }
          ++o;
        }
      }
      return;
    }
    KOKKOSSPGEMM_UNROLL
    for (int j = 0; j < Slots; ++j) {
      if (j < n && j < length) {
        v.c_cols(out + j) = cols[j];
        v.c_vals(out + j) = vals[j];
      }
    }
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
