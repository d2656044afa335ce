// Input checks, always on and cheap (one pass over each operand on the device): shapes agree, the row map starts at
// 0, never decreases and ends at the number of stored entries, and every column index is in range.
#ifndef KOKKOSSPGEMM_INPUTCHECKS_HPP
#define KOKKOSSPGEMM_INPUTCHECKS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Errors.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

/// x < 0 without a warning for unsigned offsets (size_t row maps are common).
template <class T>
KOKKOS_INLINE_FUNCTION constexpr bool is_negative(const T& x) {
  if constexpr (std::is_signed<T>::value) {
    return x < 0;
  } else {
    return false;
  }
}

/// Whether row i's offsets of a CSR matrix keep the rules: monotone within [0, nnz], starting at 0 and ending at
/// nnz. Columns are checked entry by entry (csr_column_ok): a thread per row would queue a long row's columns on one
/// thread, and the check would wait on the longest row.
template <class Offset, class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION bool csr_offsets_ok(const Offset begin, const Offset end, std::size_t nnz, Ordinal i,
                                                Ordinal rows) {
  return !is_negative(begin) && begin <= end && static_cast<std::size_t>(end) <= nnz && (i != 0 || begin == 0) &&
         (i + 1 != rows || static_cast<std::size_t>(end) == nnz);
}

template <class RowMap, class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION bool csr_offsets_ok(const RowMap& row_map, std::size_t nnz, Ordinal i, Ordinal rows) {
  return csr_offsets_ok(row_map(i), row_map(i + 1), nnz, i, rows);
}

template <class Cols, class Ordinal>
KOKKOS_INLINE_FUNCTION bool csr_column_ok(const Cols& cols, std::int64_t e, Ordinal num_cols) {
  return cols(e) >= 0 && cols(e) < num_cols;
}

/// Throws InvalidInput naming function, matrix and the first offending row unless m is a well-formed CSR matrix.
/// Rows may be unsorted and may repeat a column: every algorithm here accepts that.
template <class ExecSpace, class Matrix>
void check_csr(const ExecSpace& exec, const char* function, const char* name, const Matrix& m) {
  using Ordinal = typename Matrix::ordinal_type;
  const Ordinal rows = m.num_rows();
  KOKKOSSPGEMM_REQUIRE(rows >= 0 && m.num_cols() >= 0, InvalidInput, function,
                       name << " has negative dimensions " << rows << " x " << m.num_cols());
  const std::size_t nnz = m.entries().extent(0);
  KOKKOSSPGEMM_REQUIRE(m.values().extent(0) == nnz, InvalidInput, function,
                       name << " has " << nnz << " column indices but " << m.values().extent(0) << " values");
  if (rows == 0 && m.row_map().extent(0) == 0) {
    KOKKOSSPGEMM_REQUIRE(nnz == 0, InvalidInput, function, name << " has no rows but " << nnz << " entries");
    return;
  }
  KOKKOSSPGEMM_REQUIRE(m.row_map().extent(0) == static_cast<std::size_t>(rows) + 1, InvalidInput, function,
                       name << "'s row map has " << m.row_map().extent(0)
                            << " entries, expected num_rows + 1 = " << static_cast<std::int64_t>(rows) + 1);
  const auto row_map = m.row_map();
  const auto cols = m.entries();
  const Ordinal num_cols = m.num_cols();
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad_row = none;      // first row whose offsets decrease or leave [0, nnz]
  std::int64_t bad_col_row = none;  // first row with a column index out of range
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::InputChecks::csr", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& first_bad, std::int64_t& first_bad_col) {
        const auto begin = row_map(i);
        const auto end = row_map(i + 1);
        if (is_negative(begin) || end < begin || static_cast<std::size_t>(end) > nnz) {
          if (i < first_bad) first_bad = i;
          return;
        }
        for (auto e = begin; e < end; ++e) {
          const Ordinal c = cols(e);
          if (c < 0 || c >= num_cols) {
            if (i < first_bad_col) first_bad_col = i;
            return;
          }
        }
      },
      Kokkos::Min<std::int64_t>(bad_row), Kokkos::Min<std::int64_t>(bad_col_row));
  auto first = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(row_map, std::make_pair(std::size_t(0), std::size_t(1))));
  KOKKOSSPGEMM_REQUIRE(first(0) == 0, InvalidInput, function, name << "'s row map starts at " << first(0) << ", not 0");
  if (bad_row != none) {
    auto host_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
    KOKKOSSPGEMM_REQUIRE(false, InvalidInput, function,
                         name << "'s row map is not monotone within [0, " << nnz << "] at row " << bad_row
                              << " (row_map[" << bad_row << "] = " << host_row_map(bad_row) << ", row_map["
                              << bad_row + 1 << "] = " << host_row_map(bad_row + 1) << ")");
  }
  auto last = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(row_map, std::make_pair(std::size_t(rows), std::size_t(rows) + 1)));
  KOKKOSSPGEMM_REQUIRE(static_cast<std::size_t>(last(0)) == nnz, InvalidInput, function,
                       name << "'s row map ends at " << last(0) << " but it stores " << nnz << " entries");
  if (bad_col_row != none) {
    auto host_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
    auto host_cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cols);
    for (auto e = host_row_map(bad_col_row); e < host_row_map(bad_col_row + 1); ++e) {
      KOKKOSSPGEMM_REQUIRE(host_cols(e) >= 0 && host_cols(e) < num_cols, InvalidInput, function,
                           name << " has column index " << host_cols(e) << " in row " << bad_col_row << ", outside [0, "
                                << num_cols << ")");
    }
  }
}

/// The first of the `rows` rows of a CSR (row_map, cols) whose columns decrease (strict: do not increase), or -1.
template <class ExecSpace, class RowMap, class Cols>
std::int64_t first_unsorted_row_of(const ExecSpace& exec, const char* label, const RowMap& row_map, const Cols& cols,
                                   std::int64_t rows, bool strict) {
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad = none;
  Kokkos::parallel_reduce(
      label, Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& first_bad) {
        for (auto e = row_map(i) + 1; e < row_map(i + 1); ++e) {
          if (cols(e) < cols(e - 1) || (strict && cols(e) == cols(e - 1))) {
            if (i < first_bad) first_bad = i;
            return;
          }
        }
      },
      Kokkos::Min<std::int64_t>(bad));
  return bad == none ? -1 : bad;
}

/// The first row of m whose columns decrease (strict: do not increase), or -1.
template <class ExecSpace, class Matrix>
std::int64_t first_unsorted_row(const ExecSpace& exec, const char* label, const Matrix& m, bool strict) {
  return first_unsorted_row_of(exec, label, m.row_map(), m.entries(), static_cast<std::int64_t>(m.num_rows()), strict);
}

/// Throws InvalidInput naming function, matrix and the first offending row unless every row of m is sorted by column
/// without repeats (masks and graphs: each product searches its row, and a graph's rows are compared as sets).
template <class ExecSpace, class Matrix>
void check_rows_sorted_unique(const ExecSpace& exec, const char* function, const char* name, const Matrix& m) {
  const std::int64_t bad = first_unsorted_row(exec, "KokkosSpGEMM::InputChecks::rows_sorted_unique", m, true);
  KOKKOSSPGEMM_REQUIRE(bad < 0, InvalidInput, function,
                       "row " << bad << " of " << name
                              << " is not sorted by column or repeats a column: it needs sorted rows without repeats "
                                 "(KokkosSpGEMM::sort_rows sorts them)");
}

/// What SortedUniqueItems counts: rows and entries that break the CSR rules (bad), and descents within rows (exact
/// where bad is 0; it may be negative otherwise). Both 0: a well-formed matrix with sorted rows without repeats. A
/// reduction's value type (+= and the value-initialised zeros).
struct CsrFlaws {
  std::uint64_t bad = 0;
  std::int64_t descents = 0;
  KOKKOS_INLINE_FUNCTION bool none() const { return bad == 0 && descents == 0; }
  KOKKOS_INLINE_FUNCTION CsrFlaws& operator+=(const CsrFlaws& o) {
    bad += o.bad;
    descents += o.descents;
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile CsrFlaws& o) volatile {
    bad += o.bad;
    descents += o.descents;
  }
};

/// The items of check_csr_sorted_unique's pass: m's rows, then its entries. bad counts rows whose offsets break the
/// CSR rules and entries whose column is out of range; descents counts the adjacent entries whose column does not
/// rise, less those that straddle two rows (at a non-empty row's first entry). Where every row's offsets are right, a
/// position starts one non-empty row at most, so that descents counts exactly the descents within rows; where some are
/// wrong, bad decides. Flat over entries: a row a thread mispredicted its loop's end on rows of 1-3 entries
/// (docs/performance.md, v63).
template <class RowMap, class Cols>
struct SortedUniqueItems {
  using Ordinal = std::remove_const_t<typename Cols::value_type>;
  RowMap row_map;
  Cols cols;
  Ordinal rows = 0, num_cols = 0;
  std::int64_t nnz = 0;

  std::int64_t items = 1;  // work items: each takes a slice of the rows and a slice of the entries

  /// Work item w's slice of n things.
  KOKKOS_INLINE_FUNCTION void slice(const std::int64_t w, const std::int64_t n, std::int64_t& lo,
                                    std::int64_t& hi) const {
    const std::int64_t per = (n + items - 1) / items;
    lo = w * per < n ? w * per : n;
    hi = lo + per < n ? lo + per : n;
  }

  /// Work item w: its rows, then its entries, each loop without a branch an item (a row costs several entries, so
  /// that items of rows alone would leave one thread most of the pass). The counts in locals: the reduction's own
  /// places may alias the views' data, which the compiler would then store and reload an item.
  KOKKOS_INLINE_FUNCTION void count(const std::int64_t w, CsrFlaws& flaws) const {
    using Unsigned = std::make_unsigned_t<Ordinal>;
    std::uint64_t bad = 0;
    std::int64_t descents = 0;
    const Ordinal* c = cols.data();
    std::int64_t lo = 0, hi = 0;
    slice(w, rows, lo, hi);
    for (std::int64_t i = lo; i < hi && nnz > 0; ++i) {
      const auto begin = row_map(i), end = row_map(i + 1);
      const bool ok = csr_offsets_ok(begin, end, static_cast<std::size_t>(nnz), static_cast<Ordinal>(i), rows);
      bad += ok ? 0 : 1;
      // Without a branch on whether the row starts a straddling pair (rows of 0-3 entries make it a coin toss):
      // both loads at entry 0 where it does not.
      const std::int64_t p = static_cast<std::int64_t>(begin);
      const std::int64_t straddles = ok & (p > 0) & (p < static_cast<std::int64_t>(end));
      const std::int64_t at = p & -straddles, before = (p - 1) & -straddles;  // masks: GCC made selects a branch
      descents -= straddles & static_cast<std::int64_t>(c[at] <= c[before]);
    }
    for (std::int64_t i = lo; i < hi && nnz == 0; ++i) {
      bad += csr_offsets_ok(row_map(i), row_map(i + 1), 0, static_cast<Ordinal>(i), rows) ? 0 : 1;
    }
    slice(w, nnz, lo, hi);
    if (lo == 0 && hi > 0) bad += static_cast<Unsigned>(c[0]) >= static_cast<Unsigned>(num_cols) ? 1 : 0;
    for (std::int64_t e = lo > 0 ? lo : 1; e < hi; ++e) {
      bad += static_cast<Unsigned>(c[e]) >= static_cast<Unsigned>(num_cols) ? 1 : 0;
      descents += c[e] <= c[e - 1] ? 1 : 0;
    }
    flaws.bad += bad;
    flaws.descents += descents;
  }
};

/// SortedUniqueItems' pass over a matrix's row map and columns (rows > 0, row_map of rows + 1 offsets), counted
/// into flaws: a CsrFlaws (a wait), or a view of one on the device (none: the count stays queued on exec).
template <class ExecSpace, class RowMap, class Cols, class Ordinal, class Result>
void count_sorted_unique_flaws(const ExecSpace& exec, const RowMap& row_map, const Cols& cols, const Ordinal rows,
                               const Ordinal num_cols, Result&& flaws) {
  constexpr std::int64_t block = BackendTraits<ExecSpace>::flat_items_per_work_item;
  const std::int64_t nnz = static_cast<std::int64_t>(cols.extent(0));
  const std::int64_t size = static_cast<std::int64_t>(rows) + nnz;
  const SortedUniqueItems<typename RowMap::const_type, typename Cols::const_type> items{
      row_map, cols, rows, num_cols, nnz, (size + block - 1) / block};
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::InputChecks::csr_sorted_unique", Impl::Range<ExecSpace>(exec, 0, items.items),
      KOKKOS_LAMBDA(const std::int64_t w, CsrFlaws& f) { items.count(w, f); }, flaws);
}

/// check_csr and check_rows_sorted_unique in one flat pass over m's rows and entries and one wait where m is well
/// formed with sorted rows (a mask, a graph); the separate checks, which name the problem, run only when the pass
/// found one.
template <class ExecSpace, class Matrix>
void check_csr_sorted_unique(const ExecSpace& exec, const char* function, const char* name, const Matrix& m) {
  using Ordinal = typename Matrix::ordinal_type;
  const Ordinal rows = m.num_rows(), num_cols = m.num_cols();
  const std::size_t nnz = m.entries().extent(0);
  CsrFlaws flaws;
  // Without rows, or without a CSR matrix's array shapes, the pass cannot run: the separate checks decide.
  const bool pass = rows > 0 && num_cols >= 0 && m.values().extent(0) == nnz &&
                    m.row_map().extent(0) == static_cast<std::size_t>(rows) + 1;
  if (pass) {
    count_sorted_unique_flaws(exec, m.row_map(), m.entries(), rows, num_cols, flaws);
    if (flaws.none()) return;
  }
  check_csr(exec, function, name, m);
  check_rows_sorted_unique(exec, function, name, m);
  // Only if m changed between the passes (another stream writing it).
  KOKKOSSPGEMM_REQUIRE(flaws.none(), InvalidInput, function,
                       name << " is not a well-formed CSR matrix with sorted rows without repeats");
}

/// For the methods that merge rows: every row sorted by column (repeats allowed). InvalidInput names the row.
template <class ExecSpace, class Matrix>
void check_rows_sorted(const ExecSpace& exec, const char* function, const char* name, const char* method,
                       const Matrix& m) {
  const std::int64_t bad = first_unsorted_row(exec, "KokkosSpGEMM::InputChecks::rows_sorted", m, false);
  KOKKOSSPGEMM_REQUIRE(bad < 0, InvalidInput, function,
                       "algorithm '" << method << "' merges sorted rows, but row " << bad << " of " << name
                                     << " is not sorted by column: sort the rows (KokkosSpGEMM::sort_rows) or use "
                                        "algorithm 'hash' or 'esc'");
}

/// Every row and entry of A and B, as one flat range: A's rows, A's entries, B's rows, B's entries. ok(i) says
/// whether item i keeps the rules (csr_offsets_ok, csr_column_ok). Where B is A (the same arrays and shape: A*A),
/// the range holds A's items only.
template <class AMatrix, class BMatrix>
struct OperandItems {
  using Ordinal = typename AMatrix::ordinal_type;
  typename AMatrix::row_map_type a_rows;
  typename AMatrix::entries_type a_cols;
  typename BMatrix::row_map_type b_rows;
  typename BMatrix::entries_type b_cols;
  Ordinal ra = 0, ca = 0, rb = 0, cb = 0;
  std::int64_t na = 0, nb = 0, a_end = 0, b_rows_end = 0, items_end = 0;

  OperandItems(const AMatrix& a, const BMatrix& b)
      : a_rows(a.row_map()),
        a_cols(a.entries()),
        b_rows(b.row_map()),
        b_cols(b.entries()),
        ra(a.num_rows()),
        ca(a.num_cols()),
        rb(b.num_rows()),
        cb(b.num_cols()),
        na(static_cast<std::int64_t>(a.entries().extent(0))),
        nb(static_cast<std::int64_t>(b.entries().extent(0))),
        a_end(static_cast<std::int64_t>(ra) + na),
        b_rows_end(a_end + static_cast<std::int64_t>(rb)),
        items_end(same_arrays(a, b) ? a_end : b_rows_end + nb) {}

  template <class X, class Y>
  static bool same_arrays(const X& x, const Y& y) {
    if constexpr (std::is_same<X, Y>::value) {
      return x.num_rows() == y.num_rows() && x.num_cols() == y.num_cols() && x.row_map().data() == y.row_map().data() &&
             x.row_map().extent(0) == y.row_map().extent(0) && x.entries().data() == y.entries().data() &&
             x.entries().extent(0) == y.entries().extent(0);
    } else {
      return false;
    }
  }

  static constexpr bool checks = true;
  KOKKOS_INLINE_FUNCTION std::int64_t size() const { return items_end; }
  /// A's rows and entries: the first items.
  KOKKOS_INLINE_FUNCTION std::int64_t a_items() const { return a_end; }

  KOKKOS_INLINE_FUNCTION bool ok(const std::int64_t i) const {
    if (i < ra) return csr_offsets_ok(a_rows, static_cast<std::size_t>(na), static_cast<Ordinal>(i), ra);
    if (i < a_end) return csr_column_ok(a_cols, i - ra, ca);
    if (i < b_rows_end)
      return csr_offsets_ok(b_rows, static_cast<std::size_t>(nb), static_cast<Ordinal>(i - a_end), rb);
    return csr_column_ok(b_cols, i - b_rows_end, cb);
  }
  /// How many of items [lo, hi) break the rules: one loop per part of the range (A's rows, A's entries, ...), so
  /// that a CPU thread's block of items runs without a branch on the part per item, and the column loops vectorize.
  KOKKOS_INLINE_FUNCTION std::int64_t bad_items(const std::int64_t lo, const std::int64_t hi) const {
    if (hi - lo == 1) return ok(lo) ? 0 : 1;
    if (hi - lo == unrolled_items) {  // a GPU thread's block within one part: its loads in flight together
      if (lo >= ra && hi <= a_end) return bad_columns(a_cols.data() + (lo - ra), ca);
      if (lo >= b_rows_end && hi <= items_end) return bad_columns(b_cols.data() + (lo - b_rows_end), cb);
      if (hi <= ra) return bad_offsets(a_rows, na, static_cast<Ordinal>(lo), ra);
      if (lo >= a_end && hi <= b_rows_end) return bad_offsets(b_rows, nb, static_cast<Ordinal>(lo - a_end), rb);
    }
    std::int64_t bad = 0;
    const auto offsets = [&](const auto& rows, std::int64_t nnz, Ordinal count, std::int64_t start) {
      const std::int64_t end = start + count;
      for (std::int64_t i = lo > start ? lo : start; i < (hi < end ? hi : end); ++i)
        bad += !csr_offsets_ok(rows, static_cast<std::size_t>(nnz), static_cast<Ordinal>(i - start), count);
    };
    const auto columns = [&](const auto& cols, Ordinal num_cols, std::int64_t start, std::int64_t end) {
      using Unsigned = std::make_unsigned_t<Ordinal>;
      const Ordinal* c = cols.data();
      for (std::int64_t i = lo > start ? lo : start; i < (hi < end ? hi : end); ++i)
        bad += static_cast<Unsigned>(c[i - start]) >= static_cast<Unsigned>(num_cols);
    };
    offsets(a_rows, na, ra, 0);
    columns(a_cols, ca, ra, a_end);
    offsets(b_rows, nb, rb, a_end);
    columns(b_cols, cb, b_rows_end, size());
    return bad;
  }

  /// Items a GPU thread checks at once (BackendTraits::flat_items_per_work_item on CUDA): all their loads are
  /// issued before any compare, where the loop above waits on each load before the next (one load in flight a
  /// thread: docs/performance.md, v49).
  static constexpr int unrolled_items = 8;
  KOKKOS_INLINE_FUNCTION static std::int64_t bad_columns(const Ordinal* c, const Ordinal num_cols) {
    using Unsigned = std::make_unsigned_t<Ordinal>;
    Unsigned x[unrolled_items];
    for (int u = 0; u < unrolled_items; ++u) x[u] = static_cast<Unsigned>(c[u]);
    std::int64_t bad = 0;
    for (int u = 0; u < unrolled_items; ++u) bad += x[u] >= static_cast<Unsigned>(num_cols) ? 1 : 0;
    return bad;
  }
  /// Rows first, first + 1, ... (unrolled_items of them, within the matrix's rows): csr_offsets_ok of each.
  template <class RowMap>
  KOKKOS_INLINE_FUNCTION static std::int64_t bad_offsets(const RowMap& rows, const std::int64_t nnz,
                                                         const Ordinal first, const Ordinal count) {
    using Offset = std::remove_const_t<typename RowMap::value_type>;
    Offset x[unrolled_items + 1];
    for (int u = 0; u <= unrolled_items; ++u) x[u] = rows(first + u);
    std::int64_t bad = 0;
    for (int u = 0; u < unrolled_items; ++u) {
      bad +=
          csr_offsets_ok(x[u], x[u + 1], static_cast<std::size_t>(nnz), static_cast<Ordinal>(first + u), count) ? 0 : 1;
    }
    return bad;
  }
};

/// The items of `all` past A's (OperandItems: B's rows and entries; none where B is A).
template <class Items>
struct ItemsPastA {
  Items all;
  KOKKOS_INLINE_FUNCTION std::int64_t size() const { return all.size() - all.a_items(); }
  KOKKOS_INLINE_FUNCTION bool ok(std::int64_t i) const { return all.ok(i + all.a_items()); }
  KOKKOS_INLINE_FUNCTION std::int64_t bad_items(std::int64_t lo, std::int64_t hi) const {
    return all.bad_items(lo + all.a_items(), hi + all.a_items());
  }
};

/// A's items of `all` (OperandItems: A's rows and entries, the first items).
template <class Items>
struct ItemsOfA {
  Items all;
  KOKKOS_INLINE_FUNCTION std::int64_t size() const { return all.a_items(); }
  KOKKOS_INLINE_FUNCTION bool ok(std::int64_t i) const { return all.ok(i); }
  KOKKOS_INLINE_FUNCTION std::int64_t bad_items(std::int64_t lo, std::int64_t hi) const {
    return all.bad_items(lo, hi);
  }
};

/// Counts the items that break the rules (Items::bad_items) into result (a number, or a view of one: then without a
/// wait), in blocks of BackendTraits::flat_items_per_work_item items.
template <class ExecSpace, class Items, class Result>
void count_bad_items(const ExecSpace& exec, const char* label, const Items& items, Result&& result) {
  constexpr std::int64_t block = BackendTraits<ExecSpace>::flat_items_per_work_item;
  const std::int64_t size = items.size();
  Kokkos::parallel_reduce(
      label, Impl::Range<ExecSpace>(exec, 0, (size + block - 1) / block),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& count) {
        count +=
            static_cast<std::uint64_t>(items.bad_items(i * block, (i + 1) * block < size ? (i + 1) * block : size));
      },
      result);
}

/// What count_operand_and_mask_flaws counts: A's and B's items that break the rules (OperandItems) and a mask's
/// CsrFlaws, in the order of the symbolic phase's carried values (three words). A reduction's value type.
struct OperandAndMaskFlaws {
  std::uint64_t operands = 0;
  CsrFlaws mask;
  KOKKOS_INLINE_FUNCTION OperandAndMaskFlaws& operator+=(const OperandAndMaskFlaws& o) {
    operands += o.operands;
    mask += o.mask;
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile OperandAndMaskFlaws& o) volatile {
    operands += o.operands;
    mask += o.mask;
  }
};
static_assert(sizeof(OperandAndMaskFlaws) == 3 * sizeof(std::uint64_t), "three words, as the carried values");

/// count_bad_items of the operands (items) and count_sorted_unique_flaws of a mask (rows > 0, row_map of rows + 1
/// offsets) in one launch, into result (a view of an OperandAndMaskFlaws): the mask's pass would otherwise be a
/// launch of its own after the operands', each a few microseconds of latency on small matrices.
template <class ExecSpace, class Items, class RowMap, class Cols, class Ordinal, class Result>
void count_operand_and_mask_flaws(const ExecSpace& exec, const Items& items, const RowMap& row_map, const Cols& cols,
                                  const Ordinal rows, const Ordinal num_cols, Result&& result) {
  constexpr std::int64_t block = BackendTraits<ExecSpace>::flat_items_per_work_item;
  const std::int64_t size = items.size();
  const std::int64_t operand_work = (size + block - 1) / block;
  const std::int64_t nnz = static_cast<std::int64_t>(cols.extent(0));
  const SortedUniqueItems<typename RowMap::const_type, typename Cols::const_type> mask{
      row_map, cols, rows, num_cols, nnz, (static_cast<std::int64_t>(rows) + nnz + block - 1) / block};
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::InputChecks::operands_and_mask", Impl::Range<ExecSpace>(exec, 0, operand_work + mask.items),
      KOKKOS_LAMBDA(const std::int64_t w, OperandAndMaskFlaws& f) {
        if (w < operand_work) {
          const std::int64_t lo = w * block;
          f.operands += static_cast<std::uint64_t>(items.bad_items(lo, lo + block < size ? lo + block : size));
        } else {
          mask.count(w - operand_work, f.mask);
        }
      },
      result);
}

/// A team's part of a flat check: its threads count items [first, first + team_size * per_thread) (Items::bad_items,
/// per_thread adjacent items each, their loads issued together), and the team adds its total to *counter once, where
/// a range reduction would wait on a last block to combine its blocks' sums.
template <class Member, class Items>
KOKKOS_INLINE_FUNCTION void add_team_bad_items(const Member& team, const Items& items, const std::int64_t first,
                                               const std::int64_t per_thread, std::uint64_t* counter) {
  const std::int64_t size = items.size();
  std::uint64_t bad = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, team.team_size()),
      [&](const int t, std::uint64_t& x) {
        const std::int64_t lo = first + t * per_thread;
        if (lo < size)
          x += static_cast<std::uint64_t>(items.bad_items(lo, lo + per_thread < size ? lo + per_thread : size));
      },
      bad);
  Kokkos::single(Kokkos::PerTeam(team), [&]() {
    if (bad != 0) Kokkos::atomic_add(counter, bad);
  });
}

/// The checks of A and B that need no device pass: dimensions agree, and the arrays have the shape of a CSR matrix
/// with rows (false: the device pass cannot run; check_csr names the problem).
template <class AMatrix, class BMatrix>
bool check_operand_shapes(const char* function, const AMatrix& a, const BMatrix& b) {
  KOKKOSSPGEMM_REQUIRE(a.num_cols() == b.num_rows(), DimensionMismatch, function,
                       "A is " << a.num_rows() << " x " << a.num_cols() << " but B is " << b.num_rows() << " x "
                               << b.num_cols() << ": A.num_cols() must equal B.num_rows()");
  auto shape_ok = [](const auto& m) {
    return m.num_rows() > 0 && m.num_cols() >= 0 && m.values().extent(0) == m.entries().extent(0) &&
           m.row_map().extent(0) == static_cast<std::size_t>(m.num_rows()) + 1;
  };
  return shape_ok(a) && shape_ok(b);
}

/// Whether every row of a CSR matrix with this row map and nnz entries holds exactly one entry (row_map(i) == i),
/// as B = a tentative prolongator's do: the CPU kernels then read B's entry k for A's column k without a loop over
/// a row of B. A pass over the row map only where nnz equals the rows.
template <class ExecSpace, class RowMap>
bool rows_of_one_entry(const ExecSpace& exec, const RowMap& row_map, std::size_t nnz) {
  const std::size_t rows = row_map.extent(0) > 0 ? row_map.extent(0) - 1 : 0;
  if (rows == 0 || nnz != rows) return false;
  std::int64_t off = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::InputChecks::rows_of_one_entry", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows + 1),
      KOKKOS_LAMBDA(const std::size_t i, std::int64_t& count) { count += static_cast<std::size_t>(row_map(i)) != i; },
      off);
  return off == 0;
}

/// Checks A and B for a product: dimensions, then every row of both. The common case (valid operands) costs one
/// pass over both and one synchronisation; the detailed checks, which name the problem, run only when it found one
/// (or for shapes without rows).
template <class ExecSpace, class AMatrix, class BMatrix>
void check_operands(const ExecSpace& exec, const char* function, const AMatrix& a, const BMatrix& b) {
  std::uint64_t bad = 0;
  if (check_operand_shapes(function, a, b)) {
    count_bad_items(exec, "KokkosSpGEMM::InputChecks::operands", OperandItems<AMatrix, BMatrix>(a, b), bad);
    if (bad == 0) return;
  }
  check_csr(exec, function, "A", a);
  check_csr(exec, function, "B", b);
  // Only if the operands changed between the two passes (another stream writing them).
  KOKKOSSPGEMM_REQUIRE(bad == 0, InvalidInput, function, "A or B is not a well-formed CSR matrix");
}

/// check_operands in two parts, for a caller that checks A's rows and entries as it reads them (the CPU dense rows'
/// count, DenseRowKernel: a pass over A less): first the shapes and B's rows and entries (none where B is A).
template <class ExecSpace, class AMatrix, class BMatrix>
void check_operands_past_a(const ExecSpace& exec, const char* function, const AMatrix& a, const BMatrix& b) {
  std::uint64_t bad = 0;
  if (check_operand_shapes(function, a, b)) {
    const ItemsPastA<OperandItems<AMatrix, BMatrix>> items{OperandItems<AMatrix, BMatrix>(a, b)};
    if (items.size() > 0) count_bad_items(exec, "KokkosSpGEMM::InputChecks::operands_past_a", items, bad);
    if (bad == 0) return;
  }
  check_operands(exec, function, a, b);  // names the problem (throws)
}

/// Then A's part, given the number of its rows and entries that broke the rules (counted by the caller, or here
/// where bad_a < 0): throws InvalidInput naming the first offending row unless none did.
template <class ExecSpace, class AMatrix, class BMatrix>
void check_operands_of_a(const ExecSpace& exec, const char* function, const AMatrix& a, const BMatrix& b,
                         std::int64_t bad_a = -1) {
  if (bad_a < 0) {
    std::uint64_t bad = 0;
    count_bad_items(exec, "KokkosSpGEMM::InputChecks::operands_of_a",
                    ItemsOfA<OperandItems<AMatrix, BMatrix>>{OperandItems<AMatrix, BMatrix>(a, b)}, bad);
    bad_a = static_cast<std::int64_t>(bad);
  }
  if (bad_a == 0) return;
  check_csr(exec, function, "A", a);
  KOKKOSSPGEMM_REQUIRE(false, InvalidInput, function, "A is not a well-formed CSR matrix");
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
