// Sorting every row of a CSR matrix by column in place, values alongside (one thread per row): what the sorted-row
// methods (heap, merge, segmerge, bhsparse, rmerge) need of B when it comes unsorted.
#ifndef KOKKOSSPGEMM_SORTROWS_HPP
#define KOKKOSSPGEMM_SORTROWS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <impl/accumulate/KokkosSpGEMM_RowSort.hpp>

#include <Kokkos_Core.hpp>

namespace KokkosSpGEMM {

/// Sorts each row of m by column index in place (m must live in memory the execution space can reach).
template <class ExecSpace, class S, class O, class F, class M>
void sort_rows(const ExecSpace& exec, const CsrMatrix<S, O, F, M>& m) {
  const auto rows = m.row_map();
  const auto cols = m.entries();
  const auto vals = m.values();
  Kokkos::parallel_for(
      "KokkosSpGEMM::sort_rows", Impl::Range<ExecSpace>(exec, 0, m.num_rows()), KOKKOS_LAMBDA(const O i) {
        Impl::sort_row_sequential(cols.data() + rows(i), vals.data() + rows(i), rows(i + 1) - rows(i));
      });
}

}  // namespace KokkosSpGEMM

#endif
