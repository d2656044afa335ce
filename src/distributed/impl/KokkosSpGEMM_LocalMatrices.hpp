// Our CsrMatrix over a Tpetra matrix's local arrays, and a matrix's transpose where an operand is transposed.
#ifndef KOKKOSSPGEMM_LOCALMATRICES_HPP
#define KOKKOSSPGEMM_LOCALMATRICES_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <Kokkos_Core.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>

#include <cstddef>

namespace KokkosSpGEMM {
namespace Distributed {
namespace Impl {

/// Unmanaged views of a Tpetra matrix's local arrays as our CsrMatrix (no copy; the matrix must outlive them).
template <class LocalMatrix, class Matrix>
LocalMatrix local_view(const Matrix& m, std::size_t cols) {
  using S = typename LocalMatrix::scalar_type;
  using O = typename LocalMatrix::ordinal_type;
  using F = typename LocalMatrix::offset_type;
  using Space = typename LocalMatrix::memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const auto lcl = KokkosSpGEMM::Impl::tpetra_local_matrix(m);
  Kokkos::View<F*, Space, Unmanaged> row_map(const_cast<F*>(lcl.graph.row_map.data()), lcl.graph.row_map.extent(0));
  Kokkos::View<O*, Space, Unmanaged> entries(const_cast<O*>(lcl.graph.entries.data()), lcl.graph.entries.extent(0));
  Kokkos::View<S*, Space, Unmanaged> values(const_cast<S*>(lcl.values.data()), lcl.values.extent(0));
  return LocalMatrix(static_cast<O>(KokkosSpGEMM::Impl::tpetra_local_num_rows(m)), static_cast<O>(cols), row_map,
                     entries, values);
}

template <class Matrix>
Teuchos::RCP<const Matrix> operand(const Matrix& m, bool transposed) {
  if (!transposed) return Teuchos::rcpFromRef(m);
  using Transposer = Tpetra::RowMatrixTransposer<typename Matrix::scalar_type, typename Matrix::local_ordinal_type,
                                                 typename Matrix::global_ordinal_type, typename Matrix::node_type>;
  Transposer transposer(Teuchos::rcpFromRef(m));
  return transposer.createTranspose();
}

}  // namespace Impl
}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
