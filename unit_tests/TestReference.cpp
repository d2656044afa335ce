// The reference SpGEMM against hand-computed and independent dense products, and the checkers' ability to fail.
#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

namespace {

template <class S, class O = int, class F = int>
using Host = KokkosSpGEMM::CsrMatrix<S, O, F, Kokkos::HostSpace>;
template <class S, class O = int>
using Rows = std::vector<std::vector<std::pair<O, S>>>;

/// A host matrix holding the given rows in the given order (unsorted and repeated columns stay as they are).
template <class S, class O = int, class F = int>
Host<S, O, F> make_csr(O cols, const Rows<S, O>& rows) {
  std::size_t nnz = 0;
  for (const auto& r : rows) nnz += r.size();
  Host<S, O, F> m("test", static_cast<O>(rows.size()), cols, nnz);
  std::size_t e = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const auto& [c, v] : rows[i]) {
      m.entries()(e) = c;
      m.values()(e++) = v;
    }
    m.row_map()(i + 1) = static_cast<F>(e);
  }
  return m;
}

template <class S, class O, class F>
Rows<S, O> rows_of(const Host<S, O, F>& m) {
  Rows<S, O> r(m.num_rows());
  for (O i = 0; i < m.num_rows(); ++i) {
    for (F e = m.row_map()(i); e < m.row_map()(i + 1); ++e) r[i].push_back({m.entries()(e), m.values()(e)});
  }
  return r;
}

TEST(Reference, ramamoorthy_fig2_example) {
  // Fig. 2 of Ramamoorthy et al. (HH-CPU), row-row formulation: C(i,:) = sum_k A(i,k) B(k,:).
  const Rows<double> a_rows = {{{1, 2}, {2, 1}}, {{2, 1}, {3, 1}}, {{0, 1}, {2, 1}}, {{0, 2}, {3, 4}}};
  const Rows<double> b_rows = {{{0, 2}, {1, 3}, {2, 4}}, {{0, 8}}, {{2, 6}}, {{1, 7}}};
  const auto a = make_csr<double>(4, a_rows);
  const auto b = make_csr<double>(3, b_rows);
  const auto ref = KokkosSpGEMM::reference_spgemm_with_bounds(a, b);
  const auto& c = ref.c;
  // By hand: [16 0 6], [0 7 6], [2 3 10], [4 34 8]; the zeros of rows 1 and 2 have no product, so are not stored.
  const std::vector<int> row_map = {0, 2, 4, 7, 10}, cols = {0, 2, 1, 2, 0, 1, 2, 0, 1, 2};
  const std::vector<double> vals = {16, 6, 7, 6, 2, 3, 10, 4, 34, 8};
  const std::vector<std::int64_t> terms = {1, 1, 1, 1, 1, 1, 2, 1, 2, 1};
  ASSERT_EQ(c.num_rows(), 4);
  ASSERT_EQ(c.num_cols(), 3);
  ASSERT_EQ(c.nnz(), 10u);
  for (int i = 0; i <= 4; ++i) EXPECT_EQ(c.row_map()(i), row_map[i]);
  for (int e = 0; e < 10; ++e) {
    EXPECT_EQ(c.entries()(e), cols[e]) << e;
    EXPECT_EQ(c.values()(e), vals[e]) << e;
    EXPECT_EQ(ref.terms[e], terms[e]) << e;
    EXPECT_EQ(ref.bound[e], vals[e]) << e;  // all products positive: the bound is the value
  }
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, b).ok);
}

// Dense arrays and a triple loop, sharing nothing with the reference but the inputs: the structure is the boolean
// product of the patterns, values and bounds the plain sums.
template <class S, class O, class F>
void expect_equals_dense_product(const Host<S, O, F>& a, const Host<S, O, F>& b, bool repeated_columns = false) {
  const std::size_t m = a.num_rows(), k = a.num_cols(), n = b.num_cols();
  std::vector<S> da(m * k, S()), db(k * n, S()), dc(m * n, S());
  std::vector<char> pa(m * k, 0), pb(k * n, 0), pc(m * n, 0);
  std::vector<double> bound(m * n, 0.0);
  std::vector<std::int64_t> terms(m * n, 0);
  for (std::size_t i = 0; i < m; ++i) {
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      da[i * k + a.entries()(e)] += a.values()(e);
      pa[i * k + a.entries()(e)] = 1;
    }
  }
  for (std::size_t i = 0; i < k; ++i) {
    for (F e = b.row_map()(i); e < b.row_map()(i + 1); ++e) {
      db[i * n + b.entries()(e)] += b.values()(e);
      pb[i * n + b.entries()(e)] = 1;
    }
  }
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t l = 0; l < k; ++l) {
      for (std::size_t j = 0; j < n; ++j) {
        if (!pa[i * k + l] || !pb[l * n + j]) continue;
        pc[i * n + j] = 1;
        dc[i * n + j] += da[i * k + l] * db[l * n + j];
        bound[i * n + j] += KokkosSpGEMM::Impl::magnitude(da[i * k + l]) * KokkosSpGEMM::Impl::magnitude(db[l * n + j]);
        ++terms[i * n + j];
      }
    }
  }
  const auto ref = KokkosSpGEMM::reference_spgemm_with_bounds(a, b);
  const auto& c = ref.c;
  ASSERT_EQ(c.num_rows(), a.num_rows());
  ASSERT_EQ(c.num_cols(), b.num_cols());
  EXPECT_EQ(KokkosSpGEMM::csr_invariant_violation(c, true), "");
  ASSERT_EQ(c.nnz(), static_cast<std::size_t>(std::count(pc.begin(), pc.end(), 1)));
  using Real = typename KokkosSpGEMM::Impl::RealOf<S>::type;
  const double eps = std::numeric_limits<Real>::epsilon();
  for (std::size_t i = 0; i < m; ++i) {
    for (F e = c.row_map()(i); e < c.row_map()(i + 1); ++e) {
      const std::size_t at = i * n + c.entries()(e);
      ASSERT_TRUE(pc[at]) << "C(" << i << "," << c.entries()(e) << ") is not structural";
      const double tol = 8 * eps * static_cast<double>(std::max<std::int64_t>(ref.terms[e], 1)) * ref.bound[e];
      EXPECT_LE(KokkosSpGEMM::Impl::magnitude(c.values()(e) - dc[at]), tol) << i << "," << c.entries()(e);
      // Repeated input columns are merged before multiplying here, after in the reference: more terms there.
      if (repeated_columns) {
        EXPECT_GE(ref.terms[e], terms[at]);
        EXPECT_GE(ref.bound[e] * (1 + 4 * eps), bound[at]);
      } else {
        EXPECT_EQ(ref.terms[e], terms[at]);
        EXPECT_NEAR(ref.bound[e], bound[at], 4 * eps * bound[at]);
      }
    }
  }
}

template <class T>
class ReferenceTyped : public ::testing::Test {};
using ReferenceTypes =
    ::testing::Types<std::tuple<double, int, int>, std::tuple<float, int, int>,
                     std::tuple<Kokkos::complex<double>, int, int>, std::tuple<double, std::int64_t, std::int64_t>,
                     std::tuple<Kokkos::complex<double>, std::int64_t, int>, std::tuple<float, int, std::size_t>>;
TYPED_TEST_SUITE(ReferenceTyped, ReferenceTypes);

TYPED_TEST(ReferenceTyped, matches_dense_triple_loop) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  struct Shape {
    int m, k, n, pool;
    double empty;
  };
  // Rectangular, 1 x 1, 0 x k, k = 0, n = 0, 0 x 0, empty rows, and few columns (many products per entry).
  for (const Shape& s :
       {Shape{13, 7, 19, 0, 0.1}, Shape{1, 1, 1, 0, 0}, Shape{0, 4, 3, 0, 0}, Shape{5, 0, 6, 0, 0},
        Shape{6, 5, 0, 0, 0}, Shape{0, 0, 0, 0, 0}, Shape{40, 30, 25, 0, 0.5}, Shape{30, 40, 50, 3, 0}}) {
    for (std::uint64_t seed : {1, 2}) {
      KokkosSpGEMM::RandomCsrOptions<O> oa, ob;
      oa.rows = s.m;
      oa.cols = ob.rows = s.k;
      ob.cols = s.n;
      oa.mean_per_row = 3;
      ob.mean_per_row = 4;
      oa.empty_row_fraction = ob.empty_row_fraction = s.empty;
      ob.column_pool = s.pool;
      expect_equals_dense_product(KokkosSpGEMM::random_csr<S, O, F>(oa, seed),
                                  KokkosSpGEMM::random_csr<S, O, F>(ob, seed + 50));
    }
  }
}

TYPED_TEST(ReferenceTyped, accepts_unsorted_and_repeated_input_columns) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  KokkosSpGEMM::RandomCsrOptions<O> o;
  o.rows = o.cols = 20;
  auto a = rows_of(KokkosSpGEMM::random_csr<S, O, F>(o, 3));
  auto b = rows_of(KokkosSpGEMM::random_csr<S, O, F>(o, 4));
  for (auto& r : a) std::reverse(r.begin(), r.end());
  for (auto& r : b) {
    if (!r.empty()) r.push_back({r.front().first, S(0.25)});  // a repeated column adds to the first
  }
  expect_equals_dense_product(make_csr<S, O, F>(20, a), make_csr<S, O, F>(20, b), true);
}

TEST(Reference, cancellation_keeps_the_structural_entry) {
  const auto c = KokkosSpGEMM::reference_spgemm(make_csr<double>(2, {{{0, 1.0}, {1, -1.0}}}),
                                                make_csr<double>(1, {{{0, 1.0}}, {{0, 1.0}}}));
  ASSERT_EQ(c.nnz(), 1u);
  EXPECT_EQ(c.values()(0), 0.0);
  using Z = Kokkos::complex<double>;
  // i * i + 1 * 1 = 0.
  const auto z = KokkosSpGEMM::reference_spgemm(make_csr<Z>(2, {{{0, Z(0, 1)}, {1, Z(1, 0)}}}),
                                                make_csr<Z>(1, {{{0, Z(0, 1)}}, {{0, Z(1, 0)}}}));
  ASSERT_EQ(z.nnz(), 1u);
  EXPECT_EQ(z.values()(0), Z(0, 0));
}

TEST(Reference, bad_operands_throw) {
  const auto a = make_csr<double>(2, {{{0, 1.0}, {1, -1.0}}});
  EXPECT_THROW(KokkosSpGEMM::reference_spgemm(a, a), KokkosSpGEMM::DimensionMismatch);
  auto bad = make_csr<double>(2, {{{0, 1.0}}, {{1, 1.0}}});
  bad.entries()(1) = 7;  // past B's columns: must throw, not write out of bounds
  EXPECT_THROW(KokkosSpGEMM::reference_spgemm(a, bad), KokkosSpGEMM::InvalidInput);
}

// The comparison: the reference of A*A for a random 20 x 20 A, and that product altered.
struct ReferenceCompare : ::testing::Test {
  Host<double> a = KokkosSpGEMM::uniform_random<double>(20, 20, 4, 1);
  Host<double> good = KokkosSpGEMM::reference_spgemm(a, a);
  Rows<double> rows = rows_of(good);
  KokkosSpGEMM::SpGEMMComparison check(const Rows<double>& r, bool sorted = true) {
    return KokkosSpGEMM::compare_to_reference(make_csr<double>(20, r), a, a, sorted);
  }
};

TEST_F(ReferenceCompare, reference_passes_and_rounding_is_tolerated) {
  EXPECT_TRUE(check(rows).ok) << check(rows).message;
  rows[2][1].second = std::nextafter(rows[2][1].second, 1e300);
  EXPECT_TRUE(check(rows).ok);
}

TEST_F(ReferenceCompare, detects_a_wrong_value) {
  rows[3][1].second *= 1.0 + 1e-9;
  const auto r = check(rows);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("C(3," + std::to_string(rows[3][1].first) + ")"), std::string::npos) << r.message;
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(make_csr<double>(20, rows), a, a, true, 1e9).ok);
}

TEST_F(ReferenceCompare, detects_nan) {
  rows[4][0].second = std::nan("");
  EXPECT_FALSE(check(rows).ok);
  EXPECT_FALSE(check(rows, false).ok);
}

TEST(Reference, non_finite_values_compare_equal_to_the_same_non_finite_values) {
  // A with an Inf and a NaN: C(0,*) holds Inf, C(1,*) NaN, and C(2,2) = Inf - Inf = NaN.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const auto a = make_csr<double>(3, {{{0, inf}}, {{1, nan}}, {{0, 1.0}, {2, -1.0}}});
  const auto b = make_csr<double>(3, {{{0, 1.0}, {2, inf}}, {{1, 2.0}}, {{2, inf}}});
  const auto ref = KokkosSpGEMM::reference_spgemm(a, b);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(ref, a, b).ok)
      << KokkosSpGEMM::compare_to_reference(ref, a, b).message;
  EXPECT_TRUE(KokkosSpGEMM::compare_rows_to_reference(ref, a, b, std::vector<int>{0, 1, 2}).ok);
  auto rows = rows_of(ref);
  ASSERT_EQ(rows[0].size(), 2u);
  const auto with = [&](int i, int k, double v) {
    auto r = rows;
    r[i][k].second = v;
    return make_csr<double>(3, r);
  };
  for (const auto& [i, k, v] : std::vector<std::tuple<int, int, double>>{
           {0, 0, -inf}, {0, 0, nan}, {0, 0, 1e300}, {1, 0, inf}, {1, 0, 0.0}, {0, 1, nan}}) {
    const auto c = with(i, k, v);
    EXPECT_FALSE(KokkosSpGEMM::compare_to_reference(c, a, b).ok) << i << " " << k << " " << v;
    EXPECT_FALSE(KokkosSpGEMM::compare_to_reference(c, a, b, false).ok) << i << " " << k << " " << v;
    EXPECT_FALSE(KokkosSpGEMM::compare_rows_to_reference(c, a, b, std::vector<int>{i}).ok) << i << " " << k;
  }
  // Complex values: part by part.
  using Z = Kokkos::complex<double>;
  const auto za = make_csr<Z>(1, {{{0, Z(inf, 1.0)}}});
  const auto zref = KokkosSpGEMM::reference_spgemm(za, za);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(zref, za, za).ok)
      << KokkosSpGEMM::compare_to_reference(zref, za, za).message;
}

TEST_F(ReferenceCompare, detects_a_missing_entry) {
  const int col = rows[5][1].first;
  rows[5].erase(rows[5].begin() + 1);
  const auto r = check(rows);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("missing entry C(5," + std::to_string(col) + ")"), std::string::npos) << r.message;
  EXPECT_FALSE(check(rows, false).ok);
}

TEST_F(ReferenceCompare, detects_an_extra_entry) {
  int col = 0;
  while (std::any_of(rows[6].begin(), rows[6].end(), [&](const auto& p) { return p.first == col; })) ++col;
  rows[6].push_back({col, 1.0});
  std::sort(rows[6].begin(), rows[6].end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const auto r = check(rows);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("extra entry C(6," + std::to_string(col) + ")"), std::string::npos) << r.message;
}

TEST_F(ReferenceCompare, detects_unsorted_rows_only_when_sorted_is_required) {
  std::swap(rows[7][0], rows[7][1]);
  EXPECT_FALSE(check(rows, true).ok);
  EXPECT_TRUE(check(rows, false).ok) << check(rows, false).message;
}

TEST_F(ReferenceCompare, detects_duplicates_shape_and_wrong_columns_in_unsorted_mode) {
  auto dup = rows;
  dup[8][1].first = dup[8][0].first;
  EXPECT_FALSE(check(dup, false).ok);
  auto moved = rows;
  moved[9].back().first = (moved[9].back().first + 1) % 20;
  EXPECT_FALSE(check(moved, false).ok);
  EXPECT_FALSE(KokkosSpGEMM::compare_to_reference(make_csr<double>(21, rows), a, a).ok);
}

TEST(Reference, is_valid_csr_detects_each_violation) {
  const auto a = KokkosSpGEMM::uniform_random<double>(6, 6, 3, 1);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(a).ok);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(Host<double>(0, 5, {}, {}, {})).ok);  // 0 rows, no row map
  auto copy = [&] { return KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a); };
  auto expect_invalid = [](const Host<double>& m, bool sorted, const std::string& what) {
    const auto v = KokkosSpGEMM::is_valid_csr(m, sorted);
    EXPECT_FALSE(v.ok) << what;
    EXPECT_NE(v.message.find(what), std::string::npos) << v.message;
  };
  auto m = copy();
  m.row_map()(0) = 1;
  expect_invalid(m, false, "starts at 1");
  m = copy();
  m.row_map()(3) = m.row_map()(2) - 1;
  expect_invalid(m, false, "decreases at row 2");
  m = copy();
  m.row_map()(6) = 17;
  expect_invalid(m, false, "ends at 17");
  m = copy();
  m.row_map()(6) = 100;  // past the entries: reported, not read
  expect_invalid(m, false, "ends at 100");
  m = copy();
  m.entries()(4) = 6;
  expect_invalid(m, false, "column 6 out of range");
  m = copy();
  m.entries()(4) = -1;
  expect_invalid(m, false, "column -1 out of range");
  m = copy();
  std::swap(m.entries()(0), m.entries()(1));
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(m, false).ok);
  expect_invalid(m, true, "row 0 is not strictly increasing");
  m = copy();
  m.entries()(1) = m.entries()(0);
  EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(m, false).ok);
  expect_invalid(m, true, "row 0 is not strictly increasing");
  m = copy();
  m.set_row_map(Host<double>::row_map_type("short", 6));
  expect_invalid(m, false, "row map has 6 entries for 6 rows");
  m = copy();
  m.set_values(Host<double>::values_type("few", 2));
  expect_invalid(m, false, "2 values for 18 column indices");
}

TEST(Reference, compare_rows_checks_only_the_listed_rows_and_fails_on_errors) {
  const auto a = KokkosSpGEMM::rmat<double, int, int>(9, 8, 7);
  const auto c = KokkosSpGEMM::reference_spgemm(a, a);
  std::vector<int> rows = {0, 3, 17, 200, a.num_rows() - 1};
  EXPECT_TRUE(KokkosSpGEMM::compare_rows_to_reference(c, a, a, rows).ok);
  // A wrong value in a listed row is found; in an unlisted row it is not looked at.
  auto wrong = KokkosSpGEMM::reference_spgemm(a, a);
  const int row = 200;
  ASSERT_GT(wrong.row_map()(row + 1), wrong.row_map()(row));
  wrong.values()(wrong.row_map()(row)) += 1.0;
  const auto cmp = KokkosSpGEMM::compare_rows_to_reference(wrong, a, a, rows);
  EXPECT_FALSE(cmp.ok);
  EXPECT_NE(cmp.message.find("row 200"), std::string::npos) << cmp.message;
  EXPECT_TRUE(KokkosSpGEMM::compare_rows_to_reference(wrong, a, a, std::vector<int>{0, 3}).ok);
  // A wrong column in a listed row.
  auto moved = KokkosSpGEMM::reference_spgemm(a, a);
  moved.entries()(moved.row_map()(row)) = a.num_cols() - 1;
  EXPECT_FALSE(KokkosSpGEMM::compare_rows_to_reference(moved, a, a, rows).ok);
}

}  // namespace
