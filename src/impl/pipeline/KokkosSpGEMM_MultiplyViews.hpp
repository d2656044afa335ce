// The views every row kernel reads (A, B) and writes (row sizes in the symbolic phase, C in the numeric one).
#ifndef KOKKOSSPGEMM_MULTIPLYVIEWS_HPP
#define KOKKOSSPGEMM_MULTIPLYVIEWS_HPP

#include <impl/pipeline/KokkosSpGEMM_AValues.hpp>
#include <impl/pipeline/KokkosSpGEMM_WorkRanges.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// AValues: what the numeric kernels multiply B's rows by (AValues.hpp), through a_value().
template <class AMatrix, class BMatrix, class CMatrix, class AValues = StoredValues>
struct MultiplyViews {
  using ordinal_type = typename AMatrix::ordinal_type;
  using scalar_type = typename AMatrix::scalar_type;
  using memory_space = typename AMatrix::memory_space;

  typename AMatrix::row_map_type::const_type a_rows;
  typename AMatrix::entries_type::const_type a_cols;
  typename AMatrix::values_type::const_type a_vals;
  AValues a_values;
  /// Whether a_value(i, e) is a_vals(e) (the kernels that read a_vals directly require it).
  static constexpr bool stored_values = AValues::stored;
  typename BMatrix::row_map_type::const_type b_rows;
  typename BMatrix::entries_type::const_type b_cols;
  typename BMatrix::values_type::const_type b_vals;
  typename CMatrix::row_map_type c_rows;
  typename CMatrix::entries_type c_cols;
  typename CMatrix::values_type c_vals;
  /// Symbolic output: the size of each row of C.
  Kokkos::View<std::int64_t*, memory_space> row_sizes;
  /// Products per row (the size bound before clipping to B's columns).
  Kokkos::View<const std::int64_t*, memory_space> row_products;
  /// Symbolic phase of the CPU dense rows in order (Symbolic.hpp), where no pass before it finds the products: the
  /// count writes each row's products here and, per work item w, its rows' products summed, their most and (with
  /// check_a) A's rows and entries that break the CSR rules, not followed, in counted_totals(w, 0..2). Else empty.
  Kokkos::View<std::int64_t*, memory_space> counted_products;
  Kokkos::View<std::int64_t* [3], memory_space> counted_totals;
  bool check_a = false;
  /// Symbolic phase: set when the register merge meets a row of B out of order (RegisterRows.hpp).
  Kokkos::View<std::uint64_t*, memory_space> b_disorder;
  /// Symbolic phase on CPUs: B's rows as runs of (column / 64, bit mask), when that compresses B
  /// (CompressedB.hpp); empty otherwise.
  Kokkos::View<std::int64_t*, memory_space> bc_rows;
  Kokkos::View<ordinal_type*, memory_space> bc_words;
  Kokkos::View<std::uint64_t*, memory_space> bc_masks;
  ordinal_type b_num_cols = 0;
  /// Every row of B holds one entry (rows_of_one_entry, found by the symbolic phase on host spaces): A's column k
  /// names B's entry k, which the CPU dense rows and host replay read without B's row bounds (a load, and a loop
  /// branch, a product).
  bool unit_b = false;
  /// CPU dense count: with a branch on new columns (rows_of_even_length of A and B), not without.
  bool count_branches = false;
  /// Numeric reuse: C's entries already hold this structure's columns (written by the previous numeric call of the
  /// handle), so the hash kernels only gather each column's value instead of extracting and sorting their tables.
  bool known_columns = false;
  /// Reuse checks: [0] counts columns of C that a gather did not find in its row's table (C's entries were
  /// changed: the call is redone); [1] sums the position map's checksum of the replayed rows' columns.
  Kokkos::View<std::uint64_t*, memory_space> reuse_status;
  /// A complemented mask's rows (sorted columns; empty: none): the CPU dense rows leave row i's columns
  /// mask_cols[mask_rows(i), mask_rows(i + 1)) out of C (MaskedSpGEMM.hpp's one-shot C⟨¬M⟩).
  Kokkos::View<const typename CMatrix::row_map_type::non_const_value_type*, typename CMatrix::memory_space> mask_rows;
  Kokkos::View<const typename CMatrix::entries_type::non_const_value_type*, typename CMatrix::memory_space> mask_cols;
  /// The binned rows' complemented mask (set with mask_rows; empty: none, or the CPU dense rows take the mask):
  /// the symbolic kernels write here how many of M's row's columns each row of A·B holds, row_sizes keeping A·B's
  /// sizes (which bin the rows and size their tables), and the numeric kernels leave those columns out of C.
  Kokkos::View<ordinal_type*, memory_space> mask_hits;

  /// The accumulated value of C's column col, or a recorded miss (zero) when the table lacks it.
  template <class Table, class Level2>
  KOKKOS_INLINE_FUNCTION scalar_type gathered(const Table& l1, ordinal_type l1_window, const Level2& l2,
                                              ordinal_type col) const {
    ordinal_type s = l1.find(col, l1_window);
    if (s >= 0) return l1.values[s];
    if (l2.keys != nullptr) {
      s = l2.find(col, l2.capacity());
      if (s >= 0) return l2.values[s];
    }
    return missed();
  }

  /// A check beside this reuse call's replay (reuse_status(2), PositionReplay.hpp) found A or B malformed: the
  /// kernels that gather the rows the map leaves skip their work too, so that bad indices are never followed.
  KOKKOS_INLINE_FUNCTION bool operands_failed() const {
    return known_columns && reuse_status.data() != nullptr && reuse_status(2) != 0;
  }

  /// Records a column of C absent from its row's accumulator; its value is zero until the call is redone.
  KOKKOS_INLINE_FUNCTION scalar_type missed() const {
    Kokkos::atomic_add(&reuse_status(0), std::uint64_t(1));
    return scalar_type();
  }

  MultiplyViews(const AMatrix& a, const BMatrix& b, const CMatrix& c, const AValues& values = AValues())
      : a_rows(a.row_map()),
        a_cols(a.entries()),
        a_vals(a.values()),
        a_values(values),
        b_rows(b.row_map()),
        b_cols(b.entries()),
        b_vals(b.values()),
        c_rows(c.row_map()),
        c_cols(c.entries()),
        c_vals(c.values()),
        b_num_cols(b.num_cols()) {}

  /// The value entry e of row i of A contributes.
  template <class AOffset>
  KOKKOS_INLINE_FUNCTION scalar_type a_value(ordinal_type i, AOffset e) const {
    return a_values.value(a_vals, i, e);
  }

  KOKKOS_INLINE_FUNCTION bool binned_mask() const { return mask_hits.data() != nullptr; }

  /// Whether the numeric pass must take a binned complemented mask's columns out of row i: only where the symbolic
  /// pass counted some in A·B's row (elsewhere C's row is A·B's, and the mask's row is not read again).
  KOKKOS_INLINE_FUNCTION bool erases_in_row(ordinal_type i) const { return binned_mask() && mask_hits(i) > 0; }

  /// Whether column col is in row i of the complemented mask (binned_mask(); its rows are sorted without repeats).
  KOKKOS_INLINE_FUNCTION bool in_mask_row(ordinal_type i, ordinal_type col) const {
    const std::int64_t end = mask_rows(i + 1);
    const std::int64_t p = sorted_lower_bound(mask_cols, mask_rows(i), end, col);
    return p < end && mask_cols(p) == col;
  }

  /// The sum of f(column) over row i of a binned complemented mask, its columns split over the team's threads and
  /// lanes; 0 without such a mask.
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION std::int64_t over_mask_row(const Member& team, ordinal_type i, const F& f) const {
    std::int64_t sum = 0;
    if (!binned_mask()) return sum;
    const auto begin = mask_rows(i);
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, static_cast<ordinal_type>(mask_rows(i + 1) - begin)),
        [&](const ordinal_type j, std::int64_t& s) { s += f(mask_cols(begin + j)); }, sum);
    return sum;
  }

  /// The numeric phase's count of row i's distinct columns in A·B: C's row, and under a binned mask the columns
  /// the mask takes out of it.
  KOKKOS_INLINE_FUNCTION std::int64_t product_row_size(ordinal_type i) const {
    const std::int64_t c = static_cast<std::int64_t>(c_rows(i + 1) - c_rows(i));
    return binned_mask() ? c + mask_hits(i) : c;
  }

  /// Upper bound of the size of row i of C.
  KOKKOS_INLINE_FUNCTION std::int64_t row_bound(ordinal_type i) const {
    const std::int64_t p = row_products(i);
    return p < b_num_cols ? p : static_cast<std::int64_t>(b_num_cols);
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
