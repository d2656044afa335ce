// C = A ⊕.⊗ B over a semiring (KokkosSpGEMM_Semirings.hpp). The structure of C does not depend on the semiring, so
// spgemm_symbolic is the plain one and a handle serves every semiring; the numeric phase runs the pipeline on views
// of A, B and C as semiring values (impl/accumulate/KokkosSpGEMM_SemiringValue.hpp): every row method, the
// position-map reuse, deterministic mode and row blocks under a memory budget, with no kernel of its own.
#ifndef KOKKOSSPGEMM_SEMIRINGPRODUCTS_HPP
#define KOKKOSSPGEMM_SEMIRINGPRODUCTS_HPP

#include <KokkosSpGEMM_Semirings.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <impl/accumulate/KokkosSpGEMM_SemiringValue.hpp>

#include <type_traits>

namespace KokkosSpGEMM {

namespace Impl {
template <class Semiring, class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix>
void semiring_numeric_phase(const ExecSpace& exec, HandleT& handle, const AMatrix& a, const BMatrix& b, CMatrix& c,
                            bool checked) {
  static_assert(Semirings::is_semiring<Semiring>::value,
                "KokkosSpGEMM: the semiring needs value_type, identity(), add(x, y) and multiply(x, y)");
  static_assert(std::is_same<typename Semiring::value_type, typename CMatrix::scalar_type>::value,
                "KokkosSpGEMM: the semiring's value_type must be C's scalar type");
  if constexpr (Semirings::is_plus_times<Semiring>::value) {
    numeric_phase(exec, handle, a, b, c, checked);
  } else {
    KOKKOSSPGEMM_REQUIRE(handle.has_analysis(), HandleMismatch, "spgemm_numeric",
                         "the handle holds no analysis: call spgemm_symbolic first");
    prepare_numeric_output(exec, handle, c);  // C's own arrays (under the budget's check), which the views share
    auto cs = semiring_view<Semiring>(c);
    numeric_phase(exec, handle, semiring_view<Semiring>(a), semiring_view<Semiring>(b), cs, checked);
  }
}
}  // namespace Impl

/// Numeric phase of C = A ⊕.⊗ B on a handle that spgemm_symbolic analysed for A and B (any semiring: the structure is
/// the same). A, B and C hold Semiring::value_type. Reuse, errors and options are spgemm_numeric's.
template <class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix, class Semiring,
          class = std::enable_if_t<Semirings::is_semiring<Semiring>::value>>
void spgemm_numeric(const ExecSpace& exec, HandleT& handle, const AMatrix& a, const BMatrix& b, CMatrix& c,
                    const Semiring&) {
  Impl::semiring_numeric_phase<Semiring>(exec, handle, a, b, c, false);
}

/// Both phases of C = A ⊕.⊗ B on a handle (it keeps the analysis for later spgemm_numeric calls).
template <class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix, class Semiring,
          class = std::enable_if_t<Semirings::is_semiring<Semiring>::value>>
void spgemm(const ExecSpace& exec, HandleT& handle, const AMatrix& a, const BMatrix& b, CMatrix& c, const Semiring&) {
  Impl::symbolic_phase(exec, handle, a, b, c, false);
  Impl::semiring_numeric_phase<Semiring>(exec, handle, a, b, c, true);
}

/// One-shot C = A ⊕.⊗ B, e.g. spgemm(exec, A, B, Semirings::MinPlus<double>()). C has A's offset type unless COffset
/// names another.
template <class COffset = void, class ExecSpace, class AMatrix, class BMatrix, class Semiring,
          class = std::enable_if_t<Semirings::is_semiring<Semiring>::value>>
auto spgemm(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const Semiring& semiring,
            const Options& options = Options(), const Tuning& tuning = Tuning()) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  using Scalar = typename AMatrix::scalar_type;
  using Ordinal = typename AMatrix::ordinal_type;
  CsrMatrix<Scalar, Ordinal, Offset, typename ExecSpace::memory_space> c;
  Handle<ExecSpace, Scalar, Ordinal, Offset> handle(options, tuning);
  Impl::state(handle).single_use = true;
  spgemm(exec, handle, a, b, c, semiring);
  return c;
}

}  // namespace KokkosSpGEMM

#endif
