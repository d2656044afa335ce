// A^T*A (normal equations) and A*A^T (co-occurrence of rows) with a symbolic/numeric split. The row-wise kernels
// read the left operand by rows and the right one by rows, and both products need A by columns on one side, so
// A^T is formed once in the symbolic phase and kept with its source map: a numeric call refreshes its values by one
// gather of nnz(A) entries, which costs less than the row sort a fresh transpose needs (measured in
// perf_tests/KokkosSpGEMM_PerfGalerkin.cpp).
#ifndef KOKKOSSPGEMM_TRANSPOSEDPRODUCTS_HPP
#define KOKKOSSPGEMM_TRANSPOSEDPRODUCTS_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <operations/KokkosSpGEMM_Transpose.hpp>

#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

enum class TransposedProduct {
  AtA,  ///< C = A^T * A (num_cols x num_cols)
  AAt   ///< C = A * A^T (num_rows x num_rows)
};

/// Analysis of A^T*A or A*A^T for one structure of A. Scalar, Ordinal and Offset are C's (and the kept A^T's).
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class TransposedProductHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using product_handle = Handle<ExecSpace, Scalar, Ordinal, Offset>;

  explicit TransposedProductHandle(TransposedProduct kind, const Options& options = Options(),
                                   const Tuning& tuning = Tuning())
      : m_state{kind, product_handle(options, tuning), {}} {}

  TransposedProduct kind() const { return m_state.kind; }
  bool has_analysis() const { return m_state.product.has_analysis(); }
  std::int64_t nnz() const { return m_state.product.nnz(); }
  std::int64_t products() const { return m_state.product.products(); }
  const product_handle& product() const { return m_state.product; }
  /// Bytes kept between numeric calls: A^T, its source map and the product's analysis.
  std::size_t kept_bytes() const {
    return m_state.product.kept_bytes() + m_state.at.t.row_map().span() * sizeof(Offset) +
           m_state.at.t.nnz() * (sizeof(Ordinal) + sizeof(Scalar)) + m_state.at.source.span() * sizeof(Offset);
  }
  std::size_t peak_extra_bytes() const { return kept_bytes() + m_state.product.peak_extra_bytes(); }
  std::string describe() const {
    return std::string(m_state.kind == TransposedProduct::AtA ? "A^T*A" : "A*A^T") + " with A^T kept (" +
           std::to_string(kept_bytes()) + " B kept)\n" + m_state.product.describe();
  }

 private:
  friend struct Impl::HandleAccess;

  // The analysis: made by the functions below through Impl::HandleAccess, not part of the API.
  struct State {
    TransposedProduct kind;
    product_handle product;
    TransposeWithSource<Scalar, Ordinal, Offset, memory_space> at;
  };
  State m_state;
};

/// Symbolic phase of the handle's product: forms and keeps A^T, then analyses the multiplication; C gets its row
/// map. Throws InvalidInput, IndexOverflow.
template <class ExecSpace, class S, class O, class F, class AMatrix, class CMatrix>
void transposed_product_symbolic(const ExecSpace& exec, TransposedProductHandle<ExecSpace, S, O, F>& h,
                                 const AMatrix& a, CMatrix& c) {
  Impl::ProfilingRegion region("KokkosSpGEMM::transposed_product_symbolic");
  Impl::state(h).at = transpose_with_source<F>(exec, a);
  if (Impl::state(h).kind == TransposedProduct::AtA) {
    spgemm_symbolic(exec, Impl::state(h).product, Impl::state(h).at.t, a, c);
  } else {
    spgemm_symbolic(exec, Impl::state(h).product, a, Impl::state(h).at.t, c);
  }
}

/// Numeric phase with A's new values (same structure): refreshes the kept A^T, then multiplies.
template <class ExecSpace, class S, class O, class F, class AMatrix, class CMatrix>
void transposed_product_numeric(const ExecSpace& exec, TransposedProductHandle<ExecSpace, S, O, F>& h, const AMatrix& a,
                                CMatrix& c) {
  Impl::ProfilingRegion region("KokkosSpGEMM::transposed_product_numeric");
  KOKKOSSPGEMM_REQUIRE(h.has_analysis(), HandleMismatch, "transposed_product_numeric",
                       "the handle holds no analysis: call transposed_product_symbolic first");
  refresh_transpose_values(exec, Impl::state(h).at, a);
  if (Impl::state(h).kind == TransposedProduct::AtA) {
    spgemm_numeric(exec, Impl::state(h).product, Impl::state(h).at.t, a, c);
  } else {
    spgemm_numeric(exec, Impl::state(h).product, a, Impl::state(h).at.t, c);
  }
}

namespace Impl {
template <class COffset, class ExecSpace, class AMatrix>
auto transposed_product_one_shot(const ExecSpace& exec, const AMatrix& a, TransposedProduct kind,
                                 const Options& options, const Tuning& tuning) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  using S = typename AMatrix::scalar_type;
  using O = typename AMatrix::ordinal_type;
  TransposedProductHandle<ExecSpace, S, O, Offset> h(kind, options, tuning);
  CsrMatrix<S, O, Offset, typename ExecSpace::memory_space> c;
  transposed_product_symbolic(exec, h, a, c);
  // A^T was just formed from these values: no refresh.
  if (kind == TransposedProduct::AtA) {
    spgemm_numeric(exec, Impl::state(h).product, Impl::state(h).at.t, a, c);
  } else {
    spgemm_numeric(exec, Impl::state(h).product, a, Impl::state(h).at.t, c);
  }
  return c;
}
}  // namespace Impl

/// One-shot C = A^T*A (C has A's offset type unless COffset names another).
template <class COffset = void, class ExecSpace, class AMatrix>
auto spgemm_ata(const ExecSpace& exec, const AMatrix& a, const Options& options = Options(),
                const Tuning& tuning = Tuning()) {
  return Impl::transposed_product_one_shot<COffset>(exec, a, TransposedProduct::AtA, options, tuning);
}

/// One-shot C = A*A^T.
template <class COffset = void, class ExecSpace, class AMatrix>
auto spgemm_aat(const ExecSpace& exec, const AMatrix& a, const Options& options = Options(),
                const Tuning& tuning = Tuning()) {
  return Impl::transposed_product_one_shot<COffset>(exec, a, TransposedProduct::AAt, options, tuning);
}

/// verify (KokkosSpGEMM_SpGEMM.hpp) for the handle's product.
template <class ExecSpace, class Scalar, class Ordinal, class Offset>
void verify(TransposedProductHandle<ExecSpace, Scalar, Ordinal, Offset>& handle) {
  verify(Impl::state(handle).product);
}

}  // namespace KokkosSpGEMM

#endif
