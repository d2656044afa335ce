// Generators against closed-form counts, structural properties and determinism.
#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <vector>

namespace {

template <class S, class O = int, class F = int>
using Host = KokkosSpGEMM::CsrMatrix<S, O, F, Kokkos::HostSpace>;

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

/// The stored value at (i, j), or NaN where nothing is stored.
template <class M>
double value_at(const M& m, long long i, long long j) {
  for (auto e = m.row_map()(i); e < m.row_map()(i + 1); ++e) {
    if (m.entries()(e) == j) return m.values()(e);
  }
  return std::nan("");
}

/// Same shape, row map, columns and values, bit for bit.
template <class M>
bool identical(const M& a, const M& b) {
  if (a.num_rows() != b.num_rows() || a.num_cols() != b.num_cols() || a.nnz() != b.nnz()) return false;
  for (std::size_t i = 0; i < a.row_map().extent(0); ++i) {
    if (a.row_map()(i) != b.row_map()(i)) return false;
  }
  for (std::size_t e = 0; e < a.nnz(); ++e) {
    if (a.entries()(e) != b.entries()(e) || !(a.values()(e) == b.values()(e))) return false;
  }
  return true;
}

TEST(Generators, stencil_nnz_closed_forms) {
  for (long long n : {0, 1, 2, 3, 5, 9}) {
    EXPECT_EQ(KokkosSpGEMM::poisson_2d_5pt<double>(n).nnz(), 5 * n * n - 4 * n) << n;
    EXPECT_EQ(KokkosSpGEMM::poisson_2d_9pt<double>(n).nnz(), n ? (3 * n - 2) * (3 * n - 2) : 0) << n;
    EXPECT_EQ(KokkosSpGEMM::poisson_3d_7pt<double>(n).nnz(), 7 * n * n * n - 6 * n * n) << n;
    EXPECT_EQ(KokkosSpGEMM::poisson_3d_27pt<double>(n).nnz(), n ? (3 * n - 2) * (3 * n - 2) * (3 * n - 2) : 0) << n;
    EXPECT_EQ(KokkosSpGEMM::poisson_2d_9pt<double>(n).num_rows(), n * n);
    EXPECT_EQ(KokkosSpGEMM::poisson_3d_27pt<double>(n).num_cols(), n * n * n);
  }
}

TEST(Generators, stencils_are_symmetric_with_standard_values) {
  const int n = 5;
  // (matrix, diagonal, full row length, an interior point)
  const std::vector<std::tuple<Host<double>, double, long long, long long>> cases = {
      {KokkosSpGEMM::poisson_2d_5pt<double>(n), 4, 5, 2 * n + 2},
      {KokkosSpGEMM::poisson_2d_9pt<double>(n), 8, 9, 2 * n + 2},
      {KokkosSpGEMM::poisson_3d_7pt<double>(n), 6, 7, (2 * n + 2) * n + 2},
      {KokkosSpGEMM::poisson_3d_27pt<double>(n), 26, 27, (2 * n + 2) * n + 2}};
  for (const auto& [a, diag, full, interior] : cases) {
    EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(a, true).ok);
    EXPECT_EQ(row_lengths(a)[interior], full);
    EXPECT_EQ(row_sum(a, interior), 0.0);  // interior rows annihilate constants
    for (long long i = 0; i < a.num_rows(); ++i) {
      EXPECT_EQ(value_at(a, i, i), diag);
      // Off-diagonals are -1, so a row sums to the number of neighbours it lacks (> 0 on the boundary).
      EXPECT_EQ(row_sum(a, i), diag - (row_lengths(a)[i] - 1));
      for (auto e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
        EXPECT_EQ(value_at(a, a.entries()(e), i), a.values()(e));
        if (a.entries()(e) != i) EXPECT_EQ(a.values()(e), -1.0);
      }
    }
  }
}

TEST(Generators, stencil_neighbours_are_grid_neighbours) {
  const auto a5 = KokkosSpGEMM::poisson_2d_5pt<double>(4);  // point (1, 1) is row 5
  const std::vector<int> expected5 = {1, 4, 5, 6, 9};
  EXPECT_TRUE(std::equal(expected5.begin(), expected5.end(), &a5.entries()(a5.row_map()(5))));
  const auto a9 = KokkosSpGEMM::poisson_2d_9pt<double>(4);  // corner (0, 0)
  const std::vector<int> expected9 = {0, 1, 4, 5};
  EXPECT_TRUE(std::equal(expected9.begin(), expected9.end(), &a9.entries()(0)));
  const auto a7 = KokkosSpGEMM::poisson_3d_7pt<double>(3);  // centre (1, 1, 1) is row 13
  const std::vector<int> expected7 = {4, 10, 12, 13, 14, 16, 22};
  EXPECT_TRUE(std::equal(expected7.begin(), expected7.end(), &a7.entries()(a7.row_map()(13))));
}

TEST(Generators, stencils_in_other_types) {
  const auto f = KokkosSpGEMM::poisson_3d_27pt<float, std::int64_t, std::int64_t>(4);
  const auto z = KokkosSpGEMM::poisson_2d_9pt<Kokkos::complex<double>, int, std::size_t>(4);
  EXPECT_EQ(f.nnz(), 1000u);
  EXPECT_EQ(f.values()(0), 26.0f);
  EXPECT_EQ(z.nnz(), 100u);
  EXPECT_EQ(z.values()(0), Kokkos::complex<double>(8, 0));
}

TEST(Generators, stencil_sizes_beyond_the_index_types_throw) {
  using KokkosSpGEMM::IndexOverflow;
  EXPECT_THROW((KokkosSpGEMM::poisson_3d_7pt<double, short, int>(40)), IndexOverflow);   // 64000 rows
  EXPECT_THROW((KokkosSpGEMM::poisson_2d_5pt<double, int, short>(100)), IndexOverflow);  // 49600 entries
  EXPECT_THROW((KokkosSpGEMM::poisson_3d_27pt<double, int, int>(1000)), IndexOverflow);  // 2.7e10 entries
  // n^3 beyond 64 bits: rejected before anything is allocated.
  EXPECT_THROW((KokkosSpGEMM::poisson_3d_7pt<double, std::int64_t, std::int64_t>(3000000)), IndexOverflow);
  EXPECT_THROW((KokkosSpGEMM::poisson_2d_5pt<double>(-1)), KokkosSpGEMM::InvalidInput);
}

TEST(Generators, rmat_is_deterministic_sorted_and_duplicate_free) {
  const auto a = KokkosSpGEMM::rmat<double>(10, 8, 5);
  EXPECT_EQ(a.num_rows(), 1024);
  EXPECT_EQ(a.num_cols(), 1024);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(a, true).ok);  // sorted, so no duplicate columns
  EXPECT_LE(a.nnz(), 8u * 1024);
  EXPECT_GT(a.nnz(), 4u * 1024);  // some edges merge, most do not
  for (std::size_t e = 0; e < a.nnz(); ++e) {
    ASSERT_GT(a.values()(e), 0.0);
    ASSERT_LE(a.values()(e), 1.0);
  }
  EXPECT_TRUE(identical(a, KokkosSpGEMM::rmat<double>(10, 8, 5)));
  EXPECT_FALSE(identical(a, KokkosSpGEMM::rmat<double>(10, 8, 6)));
  // Power law: the first row (a hub) is far longer than the mean, the last (d = 0.05 at every level) short.
  EXPECT_GT(row_lengths(a)[0], 8 * 8);
  EXPECT_LT(row_lengths(a)[1023], 8);
  EXPECT_EQ(KokkosSpGEMM::rmat<double>(0, 3, 1).nnz(), 1u);  // one vertex, three self loops merged
}

TEST(Generators, rmat_complex_values_have_both_parts) {
  const auto z = KokkosSpGEMM::rmat<Kokkos::complex<double>, std::int64_t, std::int64_t>(8, 4, 1);
  const auto d = KokkosSpGEMM::rmat<double, std::int64_t, std::int64_t>(8, 4, 1);
  ASSERT_EQ(z.nnz(), d.nnz());  // the structure does not depend on the scalar type
  for (std::size_t e = 0; e < z.nnz(); ++e) {
    ASSERT_EQ(z.entries()(e), d.entries()(e));
    ASSERT_GT(z.values()(e).real(), 0.0);
    ASSERT_GT(z.values()(e).imag(), 0.0);
    ASSERT_LE(z.values()(e).imag(), 1.0);
  }
}

TEST(Generators, uniform_random_has_exact_row_counts) {
  const auto a = KokkosSpGEMM::uniform_random<float, long long, long long>(50, 40, 7, 2);
  for (long long n : row_lengths(a)) EXPECT_EQ(n, 7);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(a, true).ok);
  const auto full = KokkosSpGEMM::uniform_random<double>(5, 3, 10, 2);  // capped at the column count
  for (long long n : row_lengths(full)) EXPECT_EQ(n, 3);
  EXPECT_EQ(KokkosSpGEMM::uniform_random<double>(5, 3, 0, 2).nnz(), 0u);
  EXPECT_EQ(KokkosSpGEMM::uniform_random<double>(5, 0, 4, 2).nnz(), 0u);
  const auto b = KokkosSpGEMM::uniform_random<double>(100, 1000, 10, 9);
  EXPECT_TRUE(identical(b, KokkosSpGEMM::uniform_random<double>(100, 1000, 10, 9)));
  EXPECT_FALSE(identical(b, KokkosSpGEMM::uniform_random<double>(100, 1000, 10, 10)));
  EXPECT_THROW((KokkosSpGEMM::uniform_random<double, int, short>(1000, 1000, 100, 1)), KokkosSpGEMM::IndexOverflow);
}

TEST(Generators, tentative_prolongator_maps_each_point_to_its_aggregate) {
  const int n = 5, b = 2, na = 3;  // aggregates of 2 or, at the far edge, 1 point per dimension
  const auto p = KokkosSpGEMM::aggregation_prolongator<double>(n, b, false);
  EXPECT_EQ(p.num_rows(), n * n * n);
  EXPECT_EQ(p.num_cols(), na * na * na);
  std::vector<int> members(p.num_cols(), 0);
  for (int x = 0; x < n; ++x) {
    for (int y = 0; y < n; ++y) {
      for (int z = 0; z < n; ++z) {
        const int row = (x * n + y) * n + z;
        ASSERT_EQ(row_lengths(p)[row], 1);
        EXPECT_EQ(p.values()(row), 1.0);
        EXPECT_EQ(p.entries()(row), ((x / b) * na + y / b) * na + z / b);
        ++members[p.entries()(row)];
      }
    }
  }
  EXPECT_EQ(members[0], 8);                                                             // a full 2 x 2 x 2 block
  EXPECT_EQ(members[na * na * na - 1], 1);                                              // the 1 x 1 x 1 corner block
  EXPECT_EQ(members[2], 4);                                                             // 2 x 2 x 1
  EXPECT_EQ(KokkosSpGEMM::aggregation_prolongator<double>(4, 9, false).num_cols(), 1);  // b > n: one aggregate
  EXPECT_EQ(KokkosSpGEMM::aggregation_prolongator<double>(0, 2, true).num_rows(), 0);
  EXPECT_THROW(KokkosSpGEMM::aggregation_prolongator<double>(4, 0, false), KokkosSpGEMM::InvalidInput);
}

// 2D aggregates, and `block` unknowns a point: row p * block + c goes to column aggregate(p) * block + c.
TEST(Generators, tentative_prolongator_in_2d_and_in_blocks) {
  const auto p2 = KokkosSpGEMM::tentative_prolongator<double>(5, 2, 2);
  EXPECT_EQ(p2.num_rows(), 25);
  EXPECT_EQ(p2.num_cols(), 9);
  for (int x = 0; x < 5; ++x) {
    for (int y = 0; y < 5; ++y) EXPECT_EQ(p2.entries()(x * 5 + y), (x / 2) * 3 + y / 2);
  }
  const auto pb = KokkosSpGEMM::tentative_prolongator<double>(3, 3, 2, 3);
  EXPECT_EQ(pb.num_rows(), 27 * 3);
  EXPECT_EQ(pb.num_cols(), 8 * 3);
  const auto p1 = KokkosSpGEMM::aggregation_prolongator<double>(3, 2, false);
  for (int point = 0; point < 27; ++point) {
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(row_lengths(pb)[point * 3 + c], 1);
      EXPECT_EQ(pb.entries()(point * 3 + c), p1.entries()(point) * 3 + c);
    }
  }
  EXPECT_THROW(KokkosSpGEMM::tentative_prolongator<double>(4, 1, 2), KokkosSpGEMM::InvalidInput);
  EXPECT_THROW(KokkosSpGEMM::tentative_prolongator<double>(4, 3, 2, 0), KokkosSpGEMM::InvalidInput);
}

// The elasticity-like operator: the 27-point pattern with dense blocks; block 1 has poisson_3d_27pt's pattern.
TEST(Generators, block_stencil_expands_the_27_point_pattern_into_dense_blocks) {
  const int n = 4, b = 3;
  const auto a = KokkosSpGEMM::block_stencil_3d_27pt<double>(n, b);
  const auto pattern = KokkosSpGEMM::poisson_3d_27pt<double>(n);
  EXPECT_EQ(a.num_rows(), n * n * n * b);
  EXPECT_EQ(static_cast<long long>(a.nnz()), static_cast<long long>(pattern.nnz()) * b * b);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(a).ok);
  for (int point = 0; point < n * n * n; ++point) {
    const int len = pattern.row_map()(point + 1) - pattern.row_map()(point);
    for (int r = 0; r < b; ++r) {
      const int row = point * b + r;
      ASSERT_EQ(row_lengths(a)[row], len * b);
      for (int t = 0; t < len; ++t) {
        const int q = pattern.entries()(pattern.row_map()(point) + t);
        for (int c = 0; c < b; ++c) {
          const int e = a.row_map()(row) + t * b + c;
          EXPECT_EQ(a.entries()(e), q * b + c);
          EXPECT_EQ(a.values()(e), q == point ? (r == c ? 27.0 + b : -0.5) : (r == c ? -1.0 : -0.1));
        }
      }
    }
  }
  const auto one = KokkosSpGEMM::block_stencil_3d_27pt<double>(n, 1);
  for (std::size_t e = 0; e < one.nnz(); ++e) EXPECT_EQ(one.entries()(e), pattern.entries()(e));
  EXPECT_THROW(KokkosSpGEMM::block_stencil_3d_27pt<double>(4, 0), KokkosSpGEMM::InvalidInput);
}

TEST(Generators, smoothed_prolongator_row_sums_and_pattern) {
  const int n = 6, b = 3;
  const double omega = 2.0 / 3.0;
  const auto a = KokkosSpGEMM::poisson_3d_7pt<double>(n);
  const auto pt = KokkosSpGEMM::aggregation_prolongator<double>(n, b, false);
  const auto ps = KokkosSpGEMM::aggregation_prolongator<double>(n, b, true, omega);
  EXPECT_EQ(ps.num_rows(), n * n * n);
  EXPECT_EQ(ps.num_cols(), 8);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(ps, true).ok);
  for (long long i = 0; i < ps.num_rows(); ++i) {
    // P_s 1 = (I - w D^-1 A) P_t 1 = 1 - w (A 1)_i / a_ii, since every row of P_t sums to 1.
    EXPECT_NEAR(row_sum(ps, i), 1.0 - omega * row_sum(a, i) / 6.0, 1e-14) << i;
    // Pattern: the aggregates of i and of its grid neighbours.
    std::vector<int> aggs;
    for (auto e = a.row_map()(i); e < a.row_map()(i + 1); ++e) aggs.push_back(pt.entries()(a.entries()(e)));
    std::sort(aggs.begin(), aggs.end());
    aggs.erase(std::unique(aggs.begin(), aggs.end()), aggs.end());
    ASSERT_EQ(row_lengths(ps)[i], static_cast<long long>(aggs.size())) << i;
    EXPECT_TRUE(std::equal(aggs.begin(), aggs.end(), &ps.entries()(ps.row_map()(i))));
  }
  // omega = 0 keeps P_s's pattern with the tentative values: 1 in the own aggregate, explicit 0 elsewhere.
  const auto p0 = KokkosSpGEMM::aggregation_prolongator<double>(n, b, true, 0.0);
  ASSERT_EQ(p0.nnz(), ps.nnz());
  for (long long i = 0; i < p0.num_rows(); ++i) EXPECT_EQ(value_at(p0, i, pt.entries()(i)), 1.0);
  EXPECT_EQ(row_sum(p0, 0), 1.0);
}

TEST(Generators, random_family_special_shapes) {
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = 200;
  o.cols = 300;
  o.empty_row_fraction = 0.3;
  o.long_row_length = 250;
  o.long_row = 199;
  const auto a = KokkosSpGEMM::random_csr<double>(o, 1);
  const auto n = row_lengths(a);
  EXPECT_EQ(n[199], 250);
  EXPECT_GT(std::count(n.begin(), n.end(), 0LL), 30);
  EXPECT_LT(std::count(n.begin(), n.end(), 0LL), 100);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(a, true).ok);
  EXPECT_TRUE(identical(a, KokkosSpGEMM::random_csr<double>(o, 1)));
  EXPECT_FALSE(identical(a, KokkosSpGEMM::random_csr<double>(o, 2)));
  o.rows = 0;  // 0 x 300
  const auto zero_rows = KokkosSpGEMM::random_csr<double>(o, 1);
  EXPECT_EQ(zero_rows.num_rows(), 0);
  EXPECT_EQ(zero_rows.num_cols(), 300);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(zero_rows, true).ok);
  o.rows = 10;  // 10 x 0
  o.cols = 0;
  const auto zero_cols = KokkosSpGEMM::random_csr<double>(o, 1);
  EXPECT_EQ(zero_cols.num_rows(), 10);
  EXPECT_EQ(zero_cols.nnz(), 0u);
  o.empty_row_fraction = 2;
  EXPECT_THROW(KokkosSpGEMM::random_csr<double>(o, 1), KokkosSpGEMM::InvalidInput);
}

TEST(Generators, random_family_power_law_and_column_pool) {
  KokkosSpGEMM::RandomCsrOptions<int> pl;
  pl.rows = 4000;
  pl.cols = 4000;
  pl.power_law = true;
  pl.empty_row_fraction = 0;
  pl.mean_per_row = 6;
  const auto p = row_lengths(KokkosSpGEMM::random_csr<double>(pl, 3));
  EXPECT_GT(*std::max_element(p.begin(), p.end()), 10 * 6);                          // a heavy tail
  EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0) / p.size(), 6.0 - 0.5, 1.0);  // floor of the draws
  KokkosSpGEMM::RandomCsrOptions<int> pool;
  pool.column_pool = 4;
  pool.mean_per_row = 10;
  const auto q = KokkosSpGEMM::random_csr<double>(pool, 4);
  EXPECT_GT(q.nnz(), 0u);
  for (std::size_t e = 0; e < q.nnz(); ++e) EXPECT_LT(q.entries()(e), 4);
  // Duplicate-heavy product: about 30 x 10 products per row of C land in at most 4 columns.
  const auto c = KokkosSpGEMM::reference_spgemm(KokkosSpGEMM::uniform_random<double>(100, 100, 30, 6),
                                                KokkosSpGEMM::random_csr<double>(pool, 5));
  for (long long len : row_lengths(c)) EXPECT_LE(len, 4);
}

TEST(Generators, random_family_complex_values) {
  KokkosSpGEMM::RandomCsrOptions<std::int64_t> o;
  const auto z = KokkosSpGEMM::random_csr<Kokkos::complex<double>, std::int64_t, int>(o, 7);
  ASSERT_GT(z.nnz(), 0u);
  bool negative_imag = false;
  for (std::size_t e = 0; e < z.nnz(); ++e) {
    EXPECT_LE(std::abs(z.values()(e).imag()), 1.0);
    negative_imag = negative_imag || z.values()(e).imag() < 0;
  }
  EXPECT_TRUE(negative_imag);
}

}  // namespace
