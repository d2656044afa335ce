// The Tpetra adapter against Tpetra's own MatrixMatrix::Multiply and TripleMatrixMultiply::MultiplyRAP, run under
// mpirun at 1 to 4 ranks (ctest label MPI). Every check is collective: a rank counts its mismatches and the test
// expects the sum over ranks to be zero, so that no rank leaves a test early while another waits in a collective.
#include <distributed/KokkosSpGEMM_Tpetra.hpp>
#include <distributed/KokkosSpGEMM_TpetraMatrices.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>

#include <TpetraExt_MatrixMatrix.hpp>
#include <TpetraExt_TripleMatrixMultiply.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using Matrix = Tpetra::CrsMatrix<double>;
using Map = Matrix::map_type;
using GO = Matrix::global_ordinal_type;
using LO = Matrix::local_ordinal_type;
using Host = KokkosSpGEMM::CsrMatrix<double, int, int, Kokkos::HostSpace>;
namespace D = KokkosSpGEMM::Distributed;
using D::RowLayout;

Teuchos::RCP<const Teuchos::Comm<int>> comm() { return Tpetra::getDefaultComm(); }

long long sum_over_ranks(long long mine) {
  long long all = 0;
  Teuchos::reduceAll<int, long long>(*comm(), Teuchos::REDUCE_SUM, mine, Teuchos::outArg(all));
  return all;
}

/// Entries of this rank's rows that differ from the reference (values to 1e-12 relative).
template <class Reference>
long long mismatches(const Matrix& x, const Reference& reference) {
  return D::mismatched_entries(x, reference, 1e-12);
}

/// Tpetra's own C = op(A) * op(B).
Teuchos::RCP<Matrix> tpetra_product(const Matrix& a, bool ta, const Matrix& b, bool tb) {
  auto c = Teuchos::rcp(new Matrix(ta ? a.getDomainMap() : a.getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(a, ta, b, tb, *c);
  return c;
}

/// The global host matrix (generated the same way on every rank), spread over `layout`.
/// The domain map is the row map for a square matrix, else contiguous; the range map the row map unless given.
Teuchos::RCP<Matrix> spread(const Host& global, RowLayout layout, Teuchos::RCP<const Map> range = Teuchos::null,
                            Teuchos::RCP<const Map> domain = Teuchos::null) {
  const auto rows = D::make_row_map<Map>(layout, global.num_rows(), comm());
  if (domain.is_null()) domain = rows;
  if (domain->getGlobalNumElements() != static_cast<Tpetra::global_size_t>(global.num_cols())) {
    domain = D::make_row_map<Map>(RowLayout::Contiguous, global.num_cols(), comm());
  }
  return D::distribute<Matrix>(global, rows, domain, range);
}

/// The same structure with other values (a different value per entry, so that a stale value shows).
Host revalued(Host m, double shift) {
  Host out("revalued", m.num_rows(), m.num_cols(), m.nnz());
  Kokkos::deep_copy(out.row_map(), m.row_map());
  Kokkos::deep_copy(out.entries(), m.entries());
  for (std::size_t e = 0; e < m.nnz(); ++e) out.values()(e) = m.values()(e) * (1.5 + shift) + shift * double(e % 7);
  return out;
}

/// C = A*B from the global matrices spread over the given layouts, checked against the host reference and, where
/// asked, against Tpetra's own Multiply.
void expect_product(const Host& ga, RowLayout layout, const Host& gb, RowLayout layout_b, bool against_tpetra) {
  const auto a = spread(ga, layout);
  const auto b = spread(gb, layout_b, a->getDomainMap());  // B's range map is A's domain map
  Teuchos::RCP<Matrix> c;
  D::multiply(*a, false, *b, false, c);
  ASSERT_FALSE(c.is_null());
  EXPECT_TRUE(c->isFillComplete());
  EXPECT_EQ(sum_over_ranks(mismatches(*c, KokkosSpGEMM::reference_spgemm(ga, gb))), 0);
  if (against_tpetra) EXPECT_EQ(sum_over_ranks(mismatches(*c, *tpetra_product(*a, false, *b, false))), 0);
}

const std::vector<RowLayout> layouts = {RowLayout::Contiguous, RowLayout::Cyclic, RowLayout::Random,
                                        RowLayout::FirstEmpty};

}  // namespace

TEST(Distributed, poisson_3d_by_every_row_layout) {
  const Host a = KokkosSpGEMM::poisson_3d_7pt<double>(9);
  for (const RowLayout layout : layouts) {
    SCOPED_TRACE(static_cast<int>(layout));
    expect_product(a, layout, a, layout, true);
  }
}

TEST(Distributed, operands_are_left_as_they_were) {
  // A's columns are relabelled into the local operand's own array, never in place: with rows spread over ranks the
  // relabelled indices differ from A's, and a second product from the same A must still be right.
  const Host g = KokkosSpGEMM::rmat<double>(9, 8, 5);
  const auto d = spread(g, RowLayout::Cyclic);
  const auto before = d->getLocalMatrixHost();
  std::vector<LO> columns(before.graph.entries.data(), before.graph.entries.data() + before.graph.entries.extent(0));
  std::vector<double> values(before.values.data(), before.values.data() + before.values.extent(0));
  Teuchos::RCP<Matrix> c;
  D::multiply(*d, false, *d, false, c);
  D::multiply(*d, true, *d, false, c);
  const auto after = d->getLocalMatrixHost();
  long long changed = 0;
  for (std::size_t e = 0; e < columns.size(); ++e) {
    changed += after.graph.entries(e) != columns[e] || after.values(e) != values[e];
  }
  EXPECT_EQ(sum_over_ranks(changed), 0);
  D::multiply(*d, false, *d, false, c);
  EXPECT_EQ(sum_over_ranks(mismatches(*c, KokkosSpGEMM::reference_spgemm(g, g))), 0);
}

TEST(Distributed, poisson_27_point_with_a_and_b_laid_out_differently) {
  // B's rows cyclic while A's are contiguous: nearly every row of B that A needs lives on another rank. Not against
  // Tpetra 13.2's Multiply, which crashes on this pair at 2 ranks (see rmat_with_hub_rows_on_one_rank).
  const Host a = KokkosSpGEMM::poisson_3d_27pt<double>(6);
  expect_product(a, RowLayout::Contiguous, a, RowLayout::Cyclic, false);
  expect_product(a, RowLayout::Random, a, RowLayout::FirstEmpty, false);
}

TEST(Distributed, rectangular_aggregation_prolongator_across_rank_boundaries) {
  // 8^3 points, 2^3 aggregates: with contiguous rows, aggregates straddle the ranks' row ranges.
  const Host a = KokkosSpGEMM::poisson_3d_7pt<double>(8);
  const Host p = KokkosSpGEMM::aggregation_prolongator<double>(8, 2, true);
  for (const RowLayout layout : {RowLayout::Contiguous, RowLayout::Random}) {
    expect_product(a, layout, p, layout, true);
  }
}

TEST(Distributed, rmat_with_hub_rows_on_one_rank) {
  // R-MAT's hubs are its low indices: contiguous rows put them all on rank 0. Checked against our host reference:
  // Tpetra 13.2's own Multiply overruns its output on this graph (its serial kernel grows C's arrays by doubling
  // once per row, less than a hub row of C can need) and crashes.
  const Host g = KokkosSpGEMM::rmat<double>(10, 8, 7);
  const Host ref = KokkosSpGEMM::reference_spgemm(g, g);
  for (const RowLayout layout : {RowLayout::Contiguous, RowLayout::Cyclic}) {
    const auto d = spread(g, layout);
    Teuchos::RCP<Matrix> c;
    D::multiply(*d, false, *d, false, c);
    EXPECT_EQ(sum_over_ranks(mismatches(*c, ref)), 0);
  }
}

TEST(Distributed, transposed_operands) {
  const Host a = KokkosSpGEMM::poisson_3d_7pt<double>(6);
  const Host p = KokkosSpGEMM::aggregation_prolongator<double>(6, 2, true);
  const Host g = KokkosSpGEMM::rmat<double>(8, 4, 3);  // not symmetric
  const auto da = spread(a, RowLayout::Contiguous);
  const auto dp = spread(p, RowLayout::Contiguous);
  const auto dg = spread(g, RowLayout::Cyclic);
  const auto ap = tpetra_product(*da, false, *dp, false);
  struct Case {
    const char* name;
    const Matrix& left;
    bool tl;
    const Matrix& right;
    bool tr;
  };
  for (const Case& k : {Case{"P^T*AP", *dp, true, *ap, false}, Case{"AP*P^T", *ap, false, *dp, true},
                        Case{"G^T*G^T", *dg, true, *dg, true}, Case{"G^T*G", *dg, true, *dg, false}}) {
    SCOPED_TRACE(k.name);
    Teuchos::RCP<Matrix> c;
    D::multiply(k.left, k.tl, k.right, k.tr, c);
    EXPECT_EQ(sum_over_ranks(mismatches(*c, *tpetra_product(k.left, k.tl, k.right, k.tr))), 0);
  }
}

TEST(Distributed, reuse_with_new_values_twice) {
  const Host a = KokkosSpGEMM::poisson_3d_27pt<double>(7);
  for (const RowLayout layout : {RowLayout::Contiguous, RowLayout::Cyclic}) {
    const auto da = spread(a, layout);
    D::DistributedHandle<double, LO, GO, Matrix::node_type> handle;
    Teuchos::RCP<Matrix> c;
    D::multiply_symbolic(handle, *da, false, *da, false, c);
    EXPECT_EQ(sum_over_ranks(mismatches(*c, *tpetra_product(*da, false, *da, false))), 0);
    for (const double shift : {1.0, 2.0}) {
      const auto a2 = spread(revalued(a, shift), layout);
      const auto b2 = spread(revalued(a, shift + 0.5), layout);
      D::multiply_numeric(handle, *a2, *b2, *c);
      EXPECT_EQ(sum_over_ranks(mismatches(*c, *tpetra_product(*a2, false, *b2, false))), 0);
    }
  }
}

Host host_transpose(const Host& m) {
  Host t("transpose", m.num_cols(), m.num_rows(), m.nnz());
  std::vector<int> count(static_cast<std::size_t>(m.num_cols()) + 1, 0);
  for (std::size_t e = 0; e < m.nnz(); ++e) ++count[static_cast<std::size_t>(m.entries()(e)) + 1];
  for (int j = 0; j < m.num_cols(); ++j) count[j + 1] += count[j];
  for (int j = 0; j <= m.num_cols(); ++j) t.row_map()(j) = count[j];
  for (int i = 0; i < m.num_rows(); ++i) {
    for (int e = m.row_map()(i); e < m.row_map()(i + 1); ++e) {
      const int at = count[m.entries()(e)]++;
      t.entries()(at) = i;
      t.values()(at) = m.values()(e);
    }
  }
  return t;
}

TEST(Distributed, galerkin_pt_a_p_and_r_a_p_with_reuse) {
  // Against the host reference R*(A*P): Tpetra 13.2's TripleMatrixMultiply::MultiplyRAP crashes inside its serial
  // kernel on these operands at 2 ranks and more (it matches ours at 1 rank, checked by hand).
  const Host a = KokkosSpGEMM::poisson_3d_7pt<double>(8);
  auto rap = [](const Host& rr, const Host& aa, const Host& pp) {
    return KokkosSpGEMM::reference_spgemm(rr, KokkosSpGEMM::reference_spgemm(aa, pp));
  };
  for (const bool smoothed : {false, true}) {
    const Host p = KokkosSpGEMM::aggregation_prolongator<double>(8, 2, smoothed);
    const Host r = host_transpose(p);
    for (const RowLayout layout : {RowLayout::Contiguous, RowLayout::Cyclic}) {
      SCOPED_TRACE(std::string(smoothed ? "smoothed" : "tentative") + " P, layout " +
                   std::to_string(static_cast<int>(layout)));
      const auto da = spread(a, layout);
      const auto dp = spread(p, layout);
      // R = P^T, never formed by the caller.
      D::GalerkinHandle<double, LO, GO, Matrix::node_type> pt;
      Teuchos::RCP<Matrix> ac;
      D::galerkin_symbolic(pt, *da, *dp, ac);
      EXPECT_TRUE(pt.transposed_product());  // P and A*P share their row map: no P^T across ranks
      // On host spaces, for a tentative P (one entry a row), without A*P formed either.
      EXPECT_EQ(pt.fused(), !smoothed && !KokkosSpGEMM::BackendTraits<Matrix::node_type::execution_space>::is_gpu);
      EXPECT_EQ(pt.ap_matrix().is_null(), pt.fused());
      EXPECT_EQ(sum_over_ranks(mismatches(*ac, rap(r, a, p))), 0);
      const Host a2 = revalued(a, 1.0), p2 = revalued(p, 0.25);
      const auto da2 = spread(a2, layout);
      const auto dp2 = spread(p2, layout);
      D::galerkin_numeric(pt, *da2, *dp2, *ac);
      EXPECT_EQ(sum_over_ranks(mismatches(*ac, rap(host_transpose(p2), a2, p2))), 0);

      // An explicit R, laid out by contiguous rows whatever A's layout (its domain map is A's range map).
      const auto dr = spread(r, RowLayout::Contiguous, dp->getDomainMap(), da->getRangeMap());
      D::GalerkinHandle<double, LO, GO, Matrix::node_type> explicit_r;
      Teuchos::RCP<Matrix> ac2;
      D::galerkin_symbolic(explicit_r, *dr, *da, *dp, ac2);
      EXPECT_EQ(sum_over_ranks(mismatches(*ac2, rap(r, a, p))), 0);
      D::galerkin_numeric(explicit_r, *dr, *da2, *dp, *ac2);
      EXPECT_EQ(sum_over_ranks(mismatches(*ac2, rap(r, a2, p))), 0);

      // P laid out unlike A (its rows random, A's range map as P's): P^T is formed by Tpetra's transposer.
      const auto dp_random = spread(p, RowLayout::Random, da->getDomainMap());
      D::GalerkinHandle<double, LO, GO, Matrix::node_type> other;
      Teuchos::RCP<Matrix> ac3;
      D::galerkin_symbolic(other, *da, *dp_random, ac3);
      EXPECT_EQ(other.transposed_product(), comm()->getSize() == 1);
      EXPECT_EQ(sum_over_ranks(mismatches(*ac3, rap(r, a, p))), 0);
      D::galerkin_numeric(other, *da2, *spread(p2, RowLayout::Random, da->getDomainMap()), *ac3);
      EXPECT_EQ(sum_over_ranks(mismatches(*ac3, rap(host_transpose(p2), a2, p2))), 0);
    }
  }
}

TEST(Distributed, galerkin_against_tpetra_multiply_rap_with_a_tentative_prolongator) {
  // Tpetra 13.2's MultiplyRAP runs on a tentative prolongator at every rank count (on a smoothed one it crashes
  // past 1 rank; the test above checks that case against the host reference).
  const Host a = KokkosSpGEMM::poisson_3d_7pt<double>(8);
  const Host p = KokkosSpGEMM::aggregation_prolongator<double>(8, 2, false);
  const auto da = spread(a, RowLayout::Contiguous);
  const auto dp = spread(p, RowLayout::Contiguous);
  D::GalerkinHandle<double, LO, GO, Matrix::node_type> handle;
  Teuchos::RCP<Matrix> ac;
  D::galerkin_symbolic(handle, *da, *dp, ac);
  auto theirs = Teuchos::rcp(new Matrix(dp->getDomainMap(), 0));
  Tpetra::TripleMatrixMultiply::MultiplyRAP(*dp, true, *da, false, *dp, false, *theirs);
  EXPECT_EQ(sum_over_ranks(mismatches(*ac, *theirs)), 0);
  const auto a2 = spread(revalued(a, 1.0), RowLayout::Contiguous);
  D::galerkin_numeric(handle, *a2, *dp, *ac);
  auto theirs2 = Teuchos::rcp(new Matrix(dp->getDomainMap(), 0));
  Tpetra::TripleMatrixMultiply::MultiplyRAP(*dp, true, *a2, false, *dp, false, *theirs2);
  EXPECT_EQ(sum_over_ranks(mismatches(*ac, *theirs2)), 0);
}

TEST(Distributed, empty_matrix) {
  Host empty("empty", 40, 40, 0);
  const auto d = spread(empty, RowLayout::Contiguous);
  Teuchos::RCP<Matrix> c;
  D::multiply(*d, false, *d, false, c);
  EXPECT_EQ(c->getGlobalNumEntries(), 0u);
  EXPECT_EQ(c->getGlobalNumRows(), 40u);
}

// Counts, over ranks, the ranks on which `call` threw Expected with `words` in its message.
template <class Expected>
long long ranks_that_threw(const std::function<void()>& call, const std::string& words) {
  long long threw = 0;
  try {
    call();
  } catch (const Expected& e) {
    threw = std::string(e.what()).find(words) != std::string::npos ? 1 : 0;
  } catch (...) {
  }
  return sum_over_ranks(threw);
}

TEST(Distributed, domain_map_not_range_map_throws_on_every_rank) {
  const Host a = KokkosSpGEMM::poisson_3d_7pt<double>(5);  // 125 columns
  const Host b = KokkosSpGEMM::poisson_3d_7pt<double>(4);  // 64 rows
  const auto da = spread(a, RowLayout::Contiguous);
  const auto db = spread(b, RowLayout::Contiguous);
  Teuchos::RCP<Matrix> c;
  EXPECT_EQ(
      ranks_that_threw<KokkosSpGEMM::DimensionMismatch>([&] { D::multiply(*da, false, *db, false, c); }, "domain map"),
      comm()->getSize());
  // Same sizes, other layouts: A's domain map contiguous, B's range map cyclic.
  if (comm()->getSize() > 1) {
    const auto dc = spread(a, RowLayout::Cyclic);
    EXPECT_EQ(ranks_that_threw<KokkosSpGEMM::DimensionMismatch>([&] { D::multiply(*da, false, *dc, false, c); },
                                                                "domain map"),
              comm()->getSize());
  }
}

TEST(Distributed, structure_change_on_one_rank_throws_handle_mismatch_on_every_rank) {
  const Host a = KokkosSpGEMM::poisson_3d_7pt<double>(6);
  const auto da = spread(a, RowLayout::Contiguous);
  D::DistributedHandle<double, LO, GO, Matrix::node_type> handle;
  Teuchos::RCP<Matrix> c;
  D::multiply_symbolic(handle, *da, false, *da, false, c);
  // One more entry in the last row: only the last rank's rows change.
  const int n = a.num_rows();
  Host grown("grown", n, n, a.nnz() + 1);
  for (int i = 0; i <= n; ++i) grown.row_map()(i) = a.row_map()(i) + (i == n ? 1 : 0);
  for (std::size_t e = 0; e < a.nnz(); ++e) {
    grown.entries()(e) = a.entries()(e);
    grown.values()(e) = a.values()(e);
  }
  grown.entries()(a.nnz()) = 0;
  grown.values()(a.nnz()) = 1.0;
  const auto dg = spread(grown, RowLayout::Contiguous);
  EXPECT_EQ(
      ranks_that_threw<KokkosSpGEMM::HandleMismatch>([&] { D::multiply_numeric(handle, *dg, *da, *c); }, "changed"),
      comm()->getSize());
  // The same handle still works with the analysed structure, and another C is refused.
  D::multiply_numeric(handle, *da, *da, *c);
  EXPECT_EQ(sum_over_ranks(mismatches(*c, *tpetra_product(*da, false, *da, false))), 0);
  Teuchos::RCP<Matrix> other;
  D::multiply(*da, false, *da, false, other);
  EXPECT_EQ(ranks_that_threw<KokkosSpGEMM::HandleMismatch>([&] { D::multiply_numeric(handle, *da, *da, *other); },
                                                           "not the matrix"),
            comm()->getSize());

  // A Galerkin product P^T*A*P (on host spaces one pass without A*P formed): A grown on one rank.
  const Host p = KokkosSpGEMM::aggregation_prolongator<double>(6, 2, false);
  const auto dp = spread(p, RowLayout::Contiguous);
  D::GalerkinHandle<double, LO, GO, Matrix::node_type> galerkin;
  Teuchos::RCP<Matrix> ac;
  D::galerkin_symbolic(galerkin, *da, *dp, ac);
  EXPECT_EQ(
      ranks_that_threw<KokkosSpGEMM::HandleMismatch>([&] { D::galerkin_numeric(galerkin, *dg, *dp, *ac); }, "changed"),
      comm()->getSize());
  D::galerkin_numeric(galerkin, *da, *dp, *ac);
  auto theirs = Teuchos::rcp(new Matrix(dp->getDomainMap(), 0));
  Tpetra::TripleMatrixMultiply::MultiplyRAP(*dp, true, *da, false, *dp, false, *theirs);
  EXPECT_EQ(sum_over_ranks(mismatches(*ac, *theirs)), 0);
}

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 prints the test names; every rank prints its own failures.
  if (Tpetra::getDefaultComm()->getRank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS();
  int any = 0;
  Teuchos::reduceAll<int, int>(*Tpetra::getDefaultComm(), Teuchos::REDUCE_MAX, failed, Teuchos::outArg(any));
  return any;
}
