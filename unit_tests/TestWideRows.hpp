// Rows of C too long for a scratch hash table, through the bitmap accumulator (Options::wide_rows =
// WideRows::Bitmap, and DenseScratch with the row's values in scratch too): both phases, sorted output, every
// scalar/ordinal/offset type, deterministic mode, the fallback to hash tables under a tight pool, and reuse calls that
// gather C's known columns from it (including columns of C changed in between).
#include <SpGEMMTestHelpers.hpp>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace KokkosSpGEMMTest {

/// Scratch small enough that rows past 256 entries (numeric) or 1,024 products (symbolic) outgrow a scratch
/// table, large enough for the bitmap of B's columns in every case below.
constexpr int wide_rows_scratch = 8192;

inline std::vector<TestOptions> wide_row_paths() {
  std::vector<TestOptions> paths(8);
  for (auto& o : paths) {
    o.wide_rows = KokkosSpGEMM::WideRows::Bitmap;
    o.scratch_bytes = wide_rows_scratch;
    o.algorithm = KokkosSpGEMM::Algorithm::Hash;
  }
  paths[1].sorted = false;
  paths[2].deterministic = true;
  paths[3].pool_bytes_limit = 1;  // no room for dense rows: the bins hash
  paths[4].algorithm = KokkosSpGEMM::Algorithm::Auto;
  // The row's values in scratch too, wherever B's width fits the device's most scratch a team (on CUDA past
  // Kokkos' 48 KB: B of 20,001 columns), else the bitmap with values in the pool.
  for (int i = 5; i < 8; ++i) paths[i].wide_rows = KokkosSpGEMM::WideRows::DenseScratch;
  paths[6].sorted = false;
  paths[7].deterministic = true;
  return paths;
}

inline std::string wide_row_name(const TestOptions& o) {
  return std::string(KokkosSpGEMM::algorithm_name(o.algorithm)) + (o.sorted ? "" : ", unsorted") +
         (o.deterministic ? ", deterministic" : "") + (o.pool_bytes_limit == 1 ? ", pool of 1 byte" : "") +
         (o.wide_rows == KokkosSpGEMM::WideRows::DenseScratch ? ", dense rows in scratch" : "");
}

/// The handle's description of a one-shot with o (to see which kernels ran).
template <class ExecSpace, class S, class O, class F>
std::string describe_product(const HostCsr<S, O, F>& a, const HostCsr<S, O, F>& b, const TestOptions& o) {
  ExecSpace exec;
  KokkosSpGEMM::Handle<ExecSpace, S, O, F> handle(o);
  KokkosSpGEMM::CsrMatrix<S, O, F, typename ExecSpace::memory_space> c;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
  return handle.describe();
}

TEST(TEST_CATEGORY, wide_rows_bitmap_takes_the_long_rows) {
  const auto [a, b] = one_long_row_case();
  TestOptions o = wide_row_paths()[0];
  const std::string d = describe_product<TEST_EXECSPACE>(a, b, o);
  EXPECT_NE(d.find("team-row/bitmap-dense"), std::string::npos) << d;
  o.wide_rows = KokkosSpGEMM::WideRows::Hash;
  const std::string h = describe_product<TEST_EXECSPACE>(a, b, o);
  EXPECT_EQ(h.find("bitmap"), std::string::npos) << h;
  // B wider than the scratch holds as a bitmap (4,000 columns need 500 bytes): hash tables, whatever was asked.
  o.wide_rows = KokkosSpGEMM::WideRows::Bitmap;
  o.scratch_bytes = 512;
  const std::string narrow = describe_product<TEST_EXECSPACE>(a, b, o);
  EXPECT_EQ(narrow.find("bitmap"), std::string::npos) << narrow;
  expect_matches_reference<TEST_EXECSPACE>(a, b, o, "bitmap asked, scratch too small");
}

TEST(TEST_CATEGORY, wide_rows_dense_scratch_takes_the_rows_it_fits) {
  // Rows of ~1,300 of B's 2,000 columns: values and bitmap (16 KB) fit every backend's scratch.
  const auto wa = KokkosSpGEMM::uniform_random<double, int, int>(200, 50, 20, 8);
  const auto wb = KokkosSpGEMM::uniform_random<double, int, int>(50, 2000, 100, 9);
  TestOptions o = wide_row_paths()[5];
  const std::string d = describe_product<TEST_EXECSPACE>(wa, wb, o);
  EXPECT_NE(d.find("(values in scratch)"), std::string::npos) << d;
  o.wide_rows = KokkosSpGEMM::WideRows::Bitmap;
  const std::string b = describe_product<TEST_EXECSPACE>(wa, wb, o);
  EXPECT_EQ(b.find("(values in scratch)"), std::string::npos) << b;
  EXPECT_NE(b.find("team-row/bitmap-dense"), std::string::npos) << b;
  // B wider than any device's scratch holds as values (8 bytes a column): the bitmap with values in the pool.
  const auto ta = KokkosSpGEMM::uniform_random<double, int, int>(8, 16, 8, 10);
  const auto tb = KokkosSpGEMM::uniform_random<double, int, int>(16, 200000, 600, 11);
  o = wide_row_paths()[5];
  const std::string wide = describe_product<TEST_EXECSPACE>(ta, tb, o);
  EXPECT_EQ(wide.find("(values in scratch)"), std::string::npos) << wide;
  expect_matches_reference<TEST_EXECSPACE>(ta, tb, o, "8x16 * 16x200000, dense rows in scratch asked");
}

TEST(TEST_CATEGORY, wide_rows_bitmap_matches_the_reference) {
  const auto [long_a, long_b] = one_long_row_case();
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(10, 8, 5);
  // Power-law rows of A over a B of 3,000 columns: some rows of C fill most of B's width.
  KokkosSpGEMM::RandomCsrOptions<int> sa, sb;
  sa.rows = 400;
  sa.cols = 600;
  sa.mean_per_row = 12;
  sa.power_law = true;
  sa.long_row_length = 600;
  sb.rows = 600;
  sb.cols = 3000;
  sb.mean_per_row = 40;
  sb.empty_row_fraction = 0.2;
  const auto pa = KokkosSpGEMM::random_csr<double, int, int>(sa, 3);
  const auto pb = KokkosSpGEMM::random_csr<double, int, int>(sb, 4);
  // Every product of a row in 5 columns of B (duplicate-heavy: long rows of products, short rows of C).
  const auto da = KokkosSpGEMM::uniform_random<double, int, int>(60, 400, 300, 6);
  const auto db = KokkosSpGEMM::uniform_random<double, int, int>(400, 5, 4, 7);
  // Every row of C wide (~1,300 of 2,000 columns): a team's dense row serves one row after the other.
  const auto wa = KokkosSpGEMM::uniform_random<double, int, int>(200, 50, 20, 8);
  const auto wb = KokkosSpGEMM::uniform_random<double, int, int>(50, 2000, 100, 9);
  // Rows of C of ~20% and ~8% of 20,001 columns, either side of the 1/8 at which the sorted output is written a
  // word at a time: several words a lane, a last word part-filled.
  const auto ta = KokkosSpGEMM::uniform_random<double, int, int>(64, 16, 8, 10);
  const auto tb_dense = KokkosSpGEMM::uniform_random<double, int, int>(16, 20001, 600, 11);
  const auto tb_sparse = KokkosSpGEMM::uniform_random<double, int, int>(16, 20001, 200, 12);
  for (const auto& o : wide_row_paths()) {
    const std::string what = wide_row_name(o);
    expect_matches_reference<TEST_EXECSPACE>(wa, wb, o, "200x50 * 50x2000, " + what);
    expect_matches_reference<TEST_EXECSPACE>(ta, tb_dense, o, "64x16 * 16x20001 (~20% of columns), " + what);
    expect_matches_reference<TEST_EXECSPACE>(ta, tb_sparse, o, "64x16 * 16x20001 (~8% of columns), " + what);
    expect_matches_reference<TEST_EXECSPACE>(long_a, long_b, o, "one row with 1e5 products, " + what);
    expect_matches_reference<TEST_EXECSPACE>(rmat, rmat, o, "rmat(10,8)^2, " + what);
    expect_matches_reference<TEST_EXECSPACE>(pa, pb, o, "power-law 400x600 * 600x3000, " + what);
    expect_matches_reference<TEST_EXECSPACE>(da, db, o, "60x400 * 400x5, " + what);
  }
}

TEST(TEST_CATEGORY, wide_rows_bitmap_deterministic_bits) {
  // One thread per row sums in A's then B's order, as the reference does: the same bits.
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(10, 8, 9);
  const TestOptions o = wide_row_paths()[2];
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto d = KokkosSpGEMM::copy_to(exec, rmat);
  const auto c = KokkosSpGEMM::spgemm(exec, d, d, o);
  const auto ref = KokkosSpGEMM::reference_spgemm(rmat, rmat);
  ASSERT_TRUE(KokkosSpGEMM::compare_to_reference(c, rmat, rmat).ok);
  EXPECT_TRUE(bitwise_equal_values(c, ref));
}

template <class T>
class WideRowsTyped : public ::testing::Test {};

TYPED_TEST_SUITE(WideRowsTyped, ScalarOrdinalOffsetTypes);

TYPED_TEST(WideRowsTyped, bitmap_one_shot_and_reuse) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  const auto rmat = KokkosSpGEMM::rmat<S, O, F>(10, 8, 7);
  const auto wa = KokkosSpGEMM::uniform_random<S, O, F>(200, 50, 20, 8);
  const auto wb = KokkosSpGEMM::uniform_random<S, O, F>(50, 2000, 100, 9);
  for (auto o : wide_row_paths()) {
    expect_matches_reference<TEST_EXECSPACE>(rmat, rmat, o, "rmat(10,8)^2, " + wide_row_name(o));
    expect_matches_reference<TEST_EXECSPACE>(wa, wb, o, "200x50 * 50x2000, " + wide_row_name(o));
    // Reuse without the position map: the bitmap rows gather C's known columns.
    o.reuse_positions = false;
    check_reuse_rounds<TEST_EXECSPACE>(rmat, rmat, o, "rmat(10,8)^2 reuse, " + wide_row_name(o), 2);
    check_reuse_rounds<TEST_EXECSPACE>(wa, wb, o, "200x50 * 50x2000 reuse, " + wide_row_name(o), 2);
  }
}

TEST(TEST_CATEGORY, wide_rows_bitmap_reuse_notices_changed_columns) {
  using Exec = TEST_EXECSPACE;
  using DeviceCsr = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(10, 8, 11);
  const auto a2 = with_new_values(a, -1.5, 1.0);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto da2 = KokkosSpGEMM::copy_to(exec, a2);
  TestOptions o = wide_row_paths()[0];
  o.reuse_positions = false;
  o.synchronous_checks = true;  // each call reads its own checks and redoes itself (on GPUs too)
  KokkosSpGEMM::Handle<Exec, double> handle(o);
  DeviceCsr c;
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
  ASSERT_NE(handle.describe().find("bitmap-dense"), std::string::npos) << handle.describe();

  // The longest row's first column replaced by one the row lacks: the gather misses it and the call is redone.
  auto hc = KokkosSpGEMM::to_host(c);
  int longest = 0;
  for (int i = 0; i < hc.num_rows(); ++i) {
    if (hc.row_map()(i + 1) - hc.row_map()(i) > hc.row_map()(longest + 1) - hc.row_map()(longest)) longest = i;
  }
  std::vector<int> row(hc.entries().data() + hc.row_map()(longest), hc.entries().data() + hc.row_map()(longest + 1));
  ASSERT_GT(row.size(), 256u) << "the longest row must outgrow the scratch table";
  int absent = 0;
  while (std::find(row.begin(), row.end(), absent) != row.end()) ++absent;
  ASSERT_LT(absent, hc.num_cols());
  hc.entries()(hc.row_map()(longest)) = absent;
  Kokkos::deep_copy(c.entries(), hc.entries());
  KokkosSpGEMM::spgemm_numeric(exec, handle, da2, da2, c);
  auto cmp = KokkosSpGEMM::compare_to_reference(c, a2, a2);
  EXPECT_TRUE(cmp.ok) << "a foreign column: " << cmp.message;

  // Out-of-range columns (-1 and num_cols) are misses too, never reads outside the dense row.
  hc = KokkosSpGEMM::to_host(c);
  hc.entries()(hc.row_map()(longest)) = -1;
  hc.entries()(hc.row_map()(longest) + 1) = hc.num_cols();
  Kokkos::deep_copy(c.entries(), hc.entries());
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
  cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
  EXPECT_TRUE(cmp.ok) << "out-of-range columns: " << cmp.message;
  // Later calls gather cleanly again (the dense rows were left zero by the redone calls).
  for (int round = 0; round < 2; ++round) {
    KokkosSpGEMM::spgemm_numeric(exec, handle, da2, da2, c);
    cmp = KokkosSpGEMM::compare_to_reference(c, a2, a2);
    EXPECT_TRUE(cmp.ok) << "round " << round << ": " << cmp.message;
  }
}

}  // namespace KokkosSpGEMMTest
