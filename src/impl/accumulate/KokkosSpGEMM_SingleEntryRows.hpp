// Bin 1: rows that need no accumulator table (every product lands in one column, so the row of C is one entry).
#ifndef KOKKOSSPGEMM_SINGLEENTRYROWS_HPP
#define KOKKOSSPGEMM_SINGLEENTRYROWS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Bin 1: one product, or one column of B: C's row is a single entry summing every product.
template <bool Numeric, class Views, class Perm>
struct SingleEntryRowsKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  Views v;
  Perm perm;
  std::int64_t first = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    if (v.operands_failed()) return;
    const Ordinal row = perm(first + r);
    if constexpr (!Numeric) {
      v.row_sizes(row) = 1;
      if (v.binned_mask()) {  // the row's one column: that of its first product
        for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
          const Ordinal k = v.a_cols(e);
          if (v.b_rows(k + 1) == v.b_rows(k)) continue;
          v.mask_hits(row) = v.in_mask_row(row, v.b_cols(v.b_rows(k))) ? 1 : 0;
          break;
        }
      }
    } else {
      if (v.c_rows(row + 1) == v.c_rows(row)) return;  // a complemented mask took its column out
      Scalar sum = Scalar();
      Ordinal col = 0;
      for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
        const Ordinal k = v.a_cols(e);
        for (auto jb = v.b_rows(k); jb < v.b_rows(k + 1); ++jb) {
          sum += v.a_value(row, e) * v.b_vals(jb);
          col = v.b_cols(jb);
        }
      }
      v.c_cols(v.c_rows(row)) = col;
      v.c_vals(v.c_rows(row)) = sum;
    }
  }
};

template <class ExecSpace, bool Numeric, class Views, class Perm>
void single_entry_rows(const ExecSpace& exec, const Views& v, const Perm& perm, std::int64_t first, std::int64_t rows) {
  Kokkos::parallel_for(
      Numeric ? "KokkosSpGEMM::Numeric::single_entry_rows" : "KokkosSpGEMM::Symbolic::single_entry_rows",
      Impl::Range<ExecSpace>(exec, 0, rows), SingleEntryRowsKernel<Numeric, Views, Perm>{v, perm, first});
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
