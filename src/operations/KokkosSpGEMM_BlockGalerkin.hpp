// The Galerkin product Ac = R*A*P on blocks: A*P then R*(A*P), two block products with their analyses kept, and
// for R = P^T the block transpose of P with its source map (new values of P reach P^T by one gather a call).
#ifndef KOKKOSSPGEMM_BLOCKGALERKIN_HPP
#define KOKKOSSPGEMM_BLOCKGALERKIN_HPP

#include <KokkosSpGEMM_BsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <operations/KokkosSpGEMM_BlockSpGEMM.hpp>
#include <operations/KokkosSpGEMM_Transpose.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {

/// Analysis of Ac = R*A*P (or P^T*A*P) on blocks for one structure of R, A and P.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class BsrGalerkinHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using matrix_type = BsrMatrix<Scalar, Ordinal, Offset, memory_space>;
  using product_handle = BsrHandle<ExecSpace, Scalar, Ordinal, Offset>;

  explicit BsrGalerkinHandle(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_state{product_handle(options, tuning), product_handle(options, tuning)} {}

  bool has_analysis() const { return m_state.done; }
  /// The analyses of A*P and of R*(A*P).
  const product_handle& ap() const { return m_state.ap; }
  const product_handle& rap() const { return m_state.rap; }
  /// Block products of both (the flop count is 2 b^3 times this).
  std::int64_t block_products() const { return m_state.ap.block_products() + m_state.rap.block_products(); }

 private:
  friend struct Impl::HandleAccess;

  struct State {
    product_handle ap, rap;
    bool done = false;
    bool implicit_r = false;
    matrix_type ap_matrix;
    matrix_type pt;                               // P^T (implicit R)
    Kokkos::View<Offset*, memory_space> source;   // P^T's block e is P's block source(e)
    Kokkos::View<Ordinal*, memory_space> p_cols;  // P's block columns as analysed (implicit R)
  };
  State m_state;
};

namespace Impl {

/// P^T with its source map and a copy of P's block columns, for the Galerkin handle.
template <class ExecSpace, class GHandle, class PMatrix>
void make_block_transpose(const ExecSpace& exec, GHandle& h, const PMatrix& p) {
  auto& st = state(h);
  const auto graph_t =
      transpose_with_source<typename GHandle::matrix_type::offset_type>(exec, block_graph(p, p.values()));
  st.source = graph_t.source;
  st.pt = typename GHandle::matrix_type(
      graph_t.t.num_rows(), graph_t.t.num_cols(), p.block_size(), graph_t.t.row_map(), graph_t.t.entries(),
      typename GHandle::matrix_type::values_type(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::BsrGalerkin::Pt"),
          p.values().extent(0)));
  st.p_cols = decltype(st.p_cols)(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::BsrGalerkin::P"),
                                  p.nnz_blocks());
  Kokkos::deep_copy(exec, st.p_cols, p.entries());
}

/// False when P's block graph is not the analysed one (same number of blocks, checked by the caller).
template <class ExecSpace, class GHandle, class PMatrix>
bool same_block_columns(const ExecSpace& exec, const GHandle& h, const PMatrix& p) {
  const auto kept = state(h).p_cols;
  const auto now = p.entries();
  std::int64_t differ = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::BsrGalerkin::same_P", Impl::Range<ExecSpace>(exec, 0, kept.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t e, std::int64_t& sum) {
        if (kept(e) != now(e)) ++sum;
      },
      differ);
  return differ == 0;
}

}  // namespace Impl

/// Ac = P^T*A*P on blocks through the handle (P^T formed and kept by the handle; its values refreshed each call).
/// The first call analyses; later calls take new values of A and P with the same structures, else HandleMismatch.
template <class ExecSpace, class S, class O, class F, class AMatrix, class PMatrix>
void galerkin_product(const ExecSpace& exec, BsrGalerkinHandle<ExecSpace, S, O, F>& h, const AMatrix& a,
                      const PMatrix& p, BsrMatrix<S, O, F, typename ExecSpace::memory_space>& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::bsr_galerkin_product");
  auto& st = Impl::state(h);
  Impl::check_bsr_shape("galerkin_product", "P", p);
  if (!st.done) {
    Impl::make_block_transpose(exec, h, p);
    st.implicit_r = true;
  } else {
    KOKKOSSPGEMM_REQUIRE(st.implicit_r && st.p_cols.extent(0) == p.nnz_blocks() &&
                             st.pt.num_block_cols() == p.num_block_rows() && Impl::same_block_columns(exec, h, p),
                         HandleMismatch, "galerkin_product",
                         "P differs in structure from the analysed P (or the analysis had an explicit R)");
  }
  Impl::gather_transposed_blocks(exec, st.source, p.values(), st.pt.values(), p.block_size());
  spgemm(exec, st.ap, a, p, st.ap_matrix);
  spgemm(exec, st.rap, st.pt, st.ap_matrix, ac);
  st.done = true;
}

/// Ac = R*A*P on blocks through the handle (analysis at the first call, then new values of R, A and P).
template <class ExecSpace, class S, class O, class F, class RMatrix, class AMatrix, class PMatrix>
void galerkin_product(const ExecSpace& exec, BsrGalerkinHandle<ExecSpace, S, O, F>& h, const RMatrix& r,
                      const AMatrix& a, const PMatrix& p, BsrMatrix<S, O, F, typename ExecSpace::memory_space>& ac) {
  Impl::ProfilingRegion region("KokkosSpGEMM::bsr_galerkin_product");
  auto& st = Impl::state(h);
  KOKKOSSPGEMM_REQUIRE(!st.done || !st.implicit_r, HandleMismatch, "galerkin_product",
                       "the handle's analysis is of P^T A P: give it A and P only, or use another handle");
  spgemm(exec, st.ap, a, p, st.ap_matrix);
  spgemm(exec, st.rap, r, st.ap_matrix, ac);
  st.done = true;
}

}  // namespace KokkosSpGEMM

#endif
