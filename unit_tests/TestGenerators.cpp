// Generators against closed-form counts and structural properties.
#include <KokkosSpGEMM.hpp>

#include <gtest/gtest.h>

namespace {

template <class M>
std::vector<long long> row_lengths(const M& m) {
  std::vector<long long> n;
  for (long long i = 0; i < m.num_rows(); ++i) n.push_back(m.row_map()(i + 1) - m.row_map()(i));
  return n;
}

template <class M>
double row_sum(const M& m, long long i) {
  double s = 0;
  for (auto e = m.row_map()(i); e < m.row_map()(i + 1); ++e) s += m.values()(e);
  return s;
}

template <class M>
double value_at(const M& m, long long i, long long j) {
  for (auto e = m.row_map()(i); e < m.row_map()(i + 1); ++e) {
    if (m.entries()(e) == j) return m.values()(e);
  }
  return 0;
}

TEST(Generators, stencil_nnz_closed_forms) {
  for (long long n : {1, 2, 5, 9}) {
    EXPECT_EQ(KokkosSpGEMM::poisson_2d_5pt<double>(n).nnz(), 5 * n * n - 4 * n) << n;
    EXPECT_EQ(KokkosSpGEMM::poisson_2d_9pt<double>(n).nnz(), (3 * n - 2) * (3 * n - 2)) << n;
    EXPECT_EQ(KokkosSpGEMM::poisson_3d_7pt<double>(n).nnz(), 7 * n * n * n - 6 * n * n) << n;
    EXPECT_EQ(KokkosSpGEMM::poisson_3d_27pt<double>(n).nnz(), (3 * n - 2) * (3 * n - 2) * (3 * n - 2)) << n;
  }
  EXPECT_EQ(KokkosSpGEMM::poisson_3d_27pt<double>(0).num_rows(), 0);
}

TEST(Generators, stencil_interior_rows_symmetry_and_row_sums) {
  const int n = 6;
  const auto a27 = KokkosSpGEMM::poisson_3d_27pt<double>(n);
  const auto a7 = KokkosSpGEMM::poisson_3d_7pt<double>(n);
  const long long interior = (2LL * n + 2) * n + 2;  // (2, 2, 2)
  EXPECT_EQ(row_lengths(a27)[interior], 27);
  EXPECT_EQ(row_lengths(a7)[interior], 7);
  EXPECT_EQ(row_sum(a27, interior), 0.0);
  EXPECT_EQ(row_sum(a7, interior), 0.0);
  EXPECT_EQ(value_at(a7, interior, interior), 6.0);
  EXPECT_GT(row_sum(a7, 0), 0.0);  // boundary rows are diagonally dominant
  for (long long i = 0; i < a27.num_rows(); ++i) {
    for (auto e = a27.row_map()(i); e < a27.row_map()(i + 1); ++e) {
      EXPECT_EQ(value_at(a27, a27.entries()(e), i), a27.values()(e));
    }
  }
  EXPECT_EQ(KokkosSpGEMM::csr_invariant_violation(a27, true), "");
}

TEST(Generators, rmat_is_deterministic_sorted_and_duplicate_free) {
  const auto a = KokkosSpGEMM::rmat<double>(10, 8, 5);
  const auto b = KokkosSpGEMM::rmat<double>(10, 8, 5);
  const auto c = KokkosSpGEMM::rmat<double>(10, 8, 6);
  EXPECT_EQ(a.num_rows(), 1024);
  EXPECT_EQ(KokkosSpGEMM::csr_invariant_violation(a, true), "");
  EXPECT_LE(a.nnz(), 8u * 1024);
  EXPECT_GT(a.nnz(), 4u * 1024);  // some edges merge, most do not
  ASSERT_EQ(a.nnz(), b.nnz());
  for (std::size_t e = 0; e < a.nnz(); ++e) EXPECT_EQ(a.values()(e), b.values()(e));
  EXPECT_NE(a.nnz() == c.nnz() ? a.values()(0) : -1.0, c.values()(0));
  // Power law: the first row (a hub) is far longer than the mean.
  EXPECT_GT(row_lengths(a)[0], 8 * 8);
}

TEST(Generators, uniform_random_has_exact_row_counts) {
  const auto a = KokkosSpGEMM::uniform_random<float, long long, long long>(50, 40, 7, 2);
  for (long long n : row_lengths(a)) EXPECT_EQ(n, 7);
  EXPECT_EQ(KokkosSpGEMM::csr_invariant_violation(a, true), "");
  const auto full = KokkosSpGEMM::uniform_random<double>(5, 3, 10, 2);  // capped at the column count
  for (long long n : row_lengths(full)) EXPECT_EQ(n, 3);
}

TEST(Generators, prolongators) {
  const int n = 5, b = 2;
  const auto p = KokkosSpGEMM::aggregation_prolongator<double>(n, b, false);
  EXPECT_EQ(p.num_rows(), 125);
  EXPECT_EQ(p.num_cols(), 27);  // ceil(5/2)^3
  for (long long i = 0; i < p.num_rows(); ++i) {
    ASSERT_EQ(row_lengths(p)[i], 1);
    EXPECT_EQ(p.values()(p.row_map()(i)), 1.0);
  }
  const auto ps = KokkosSpGEMM::aggregation_prolongator<double>(n, b, true);
  EXPECT_EQ(ps.num_rows(), 125);
  EXPECT_EQ(ps.num_cols(), 27);
  // P_s * 1 = (I - w D^-1 A) * 1: interior rows of A sum to 0, so interior rows of P_s sum to 1.
  const long long interior = (2LL * n + 2) * n + 2;
  EXPECT_NEAR(row_sum(ps, interior), 1.0, 1e-14);
  EXPECT_NEAR(row_sum(ps, 0), 1.0 - 2.0 / 3.0 * 3.0 / 6.0, 1e-14);  // corner: A row sum 3, diagonal 6
  EXPECT_GT(ps.nnz(), p.nnz());
}

TEST(Generators, random_family_special_shapes) {
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = 200;
  o.cols = 300;
  o.empty_row_fraction = 0.3;
  o.long_row_length = 250;
  const auto a = KokkosSpGEMM::random_csr<double>(o, 1);
  const auto n = row_lengths(a);
  EXPECT_EQ(n[0], 250);
  EXPECT_GT(std::count(n.begin(), n.end(), 0LL), 20);
  EXPECT_EQ(KokkosSpGEMM::csr_invariant_violation(a, true), "");
  o.rows = 0;
  EXPECT_EQ(KokkosSpGEMM::random_csr<double>(o, 1).num_rows(), 0);
  o.rows = 10;
  o.cols = 0;
  EXPECT_EQ(KokkosSpGEMM::random_csr<double>(o, 1).nnz(), 0u);
  KokkosSpGEMM::RandomCsrOptions<int> pl;
  pl.rows = 2000;
  pl.cols = 2000;
  pl.power_law = true;
  pl.mean_per_row = 6;
  const auto p = row_lengths(KokkosSpGEMM::random_csr<double>(pl, 3));
  EXPECT_GT(*std::max_element(p.begin(), p.end()), 10 * 6);
  KokkosSpGEMM::RandomCsrOptions<int> pool;
  pool.column_pool = 4;
  pool.mean_per_row = 10;
  const auto q = KokkosSpGEMM::random_csr<double>(pool, 4);
  for (std::size_t e = 0; e < q.nnz(); ++e) EXPECT_LT(q.entries()(e), 4);
}

TEST(Generators, sizes_beyond_the_index_types_overflow) {
  EXPECT_THROW((KokkosSpGEMM::poisson_3d_7pt<double, short, int>(40)), KokkosSpGEMM::IndexOverflow);   // 64000 rows
  EXPECT_THROW((KokkosSpGEMM::poisson_2d_5pt<double, int, short>(100)), KokkosSpGEMM::IndexOverflow);  // 49600 nnz
}

}  // namespace
