// Input checks, always on and cheap (one pass over each operand on the device): shapes agree, the row map starts at
// 0, never decreases and ends at the number of stored entries, and every column index is in range.
#ifndef KOKKOSSPGEMM_INPUTCHECKS_HPP
#define KOKKOSSPGEMM_INPUTCHECKS_HPP

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
      "KokkosSpGEMM::InputChecks::csr", Kokkos::RangePolicy<ExecSpace>(exec, 0, rows),
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

/// For the methods that merge rows: every row sorted by column (repeats allowed). InvalidInput names the row.
template <class ExecSpace, class Matrix>
void check_rows_sorted(const ExecSpace& exec, const char* function, const char* name, const char* method,
                       const Matrix& m) {
  const auto row_map = m.row_map();
  const auto cols = m.entries();
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad = none;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::InputChecks::rows_sorted", Kokkos::RangePolicy<ExecSpace>(exec, 0, m.num_rows()),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& first_bad) {
        for (auto e = row_map(i) + 1; e < row_map(i + 1); ++e) {
          if (cols(e) < cols(e - 1)) {
            if (i < first_bad) first_bad = i;
            return;
          }
        }
      },
      Kokkos::Min<std::int64_t>(bad));
  KOKKOSSPGEMM_REQUIRE(bad == none, InvalidInput, function,
                       "algorithm '" << method << "' merges sorted rows, but row " << bad << " of " << name
                                     << " is not sorted by column: sort the rows (KokkosSpGEMM::sort_rows) or use "
                                        "algorithm 'hash' or 'esc'");
}

template <class ExecSpace, class AMatrix, class BMatrix>
void check_operands(const ExecSpace& exec, const char* function, const AMatrix& a, const BMatrix& b) {
  KOKKOSSPGEMM_REQUIRE(a.num_cols() == b.num_rows(), DimensionMismatch, function,
                       "A is " << a.num_rows() << " x " << a.num_cols() << " but B is " << b.num_rows() << " x "
                               << b.num_cols() << ": A.num_cols() must equal B.num_rows()");
  check_csr(exec, function, "A", a);
  check_csr(exec, function, "B", b);
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
