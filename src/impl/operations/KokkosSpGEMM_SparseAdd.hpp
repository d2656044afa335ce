// C = X + Y for two CSR matrices of one shape with sorted rows (the merge of partial products): count each row's
// union, scan, then merge with sums. One thread per row: the partial products arrive with balanced, short rows.
#ifndef KOKKOSSPGEMM_SPARSEADD_HPP
#define KOKKOSSPGEMM_SPARSEADD_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Errors.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>

namespace KokkosSpGEMM {
namespace Impl {

template <class ExecSpace, class Matrix>
Matrix add_sorted(const ExecSpace& exec, const Matrix& x, const Matrix& y, const char* function) {
  using Ordinal = typename Matrix::ordinal_type;
  using Offset = typename Matrix::offset_type;
  const Ordinal rows = x.num_rows();
  const auto xr = x.row_map();
  const auto xc = x.entries();
  const auto xv = x.values();
  const auto yr = y.row_map();
  const auto yc = y.entries();
  const auto yv = y.values();
  typename Matrix::row_map_type row_map("KokkosSpGEMM::SparseAdd::row_map", static_cast<std::size_t>(rows) + 1);
  std::int64_t nnz = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::SparseAdd::count", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, std::int64_t& sum) {
        auto p = xr(i), q = yr(i);
        const auto pe = xr(i + 1), qe = yr(i + 1);
        std::int64_t n = 0;
        while (p < pe && q < qe) {
          const Ordinal a = xc(p), b = yc(q);
          p += a <= b ? 1 : 0;
          q += b <= a ? 1 : 0;
          ++n;
        }
        n += static_cast<std::int64_t>(pe - p) + static_cast<std::int64_t>(qe - q);
        row_map(i + 1) = static_cast<Offset>(n);
        sum += n;
      },
      nnz);
  KOKKOSSPGEMM_REQUIRE(
      static_cast<std::uint64_t>(nnz) <= static_cast<std::uint64_t>(std::numeric_limits<Offset>::max()), IndexOverflow,
      function,
      "nnz(C) = " << nnz << " does not fit C's " << sizeof(Offset) * 8
                  << "-bit offset type; use a 64-bit Offset for C");
  Kokkos::parallel_scan(
      "KokkosSpGEMM::SparseAdd::scan", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, Offset& partial, const bool final) {
        partial += row_map(i + 1);
        if (final) row_map(i + 1) = partial;
      });
  Matrix c(
      rows, x.num_cols(), row_map,
      typename Matrix::entries_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::C::entries"), nnz),
      typename Matrix::values_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::C::values"), nnz));
  const auto cc = c.entries();
  const auto cv = c.values();
  Kokkos::parallel_for(
      "KokkosSpGEMM::SparseAdd::merge", Impl::Range<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const Ordinal i) {
        auto p = xr(i), q = yr(i), o = row_map(i);
        const auto pe = xr(i + 1), qe = yr(i + 1);
        while (p < pe || q < qe) {
          const bool take_x = q >= qe || (p < pe && xc(p) <= yc(q));
          const bool take_y = p >= pe || (q < qe && yc(q) <= xc(p));
          if (take_x && take_y) {
            cc(o) = xc(p);
            cv(o++) = xv(p++) + yv(q++);
          } else if (take_x) {
            cc(o) = xc(p);
            cv(o++) = xv(p++);
          } else {
            cc(o) = yc(q);
            cv(o++) = yv(q++);
          }
        }
      });
  return c;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
