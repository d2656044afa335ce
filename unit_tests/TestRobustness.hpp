// Deterministic mode (bitwise identical sums), the memory budget and allocation failures as typed errors.
#include <SpGEMMTestHelpers.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <tuple>
#include <vector>

namespace KokkosSpGEMMTest {

TEST(TEST_CATEGORY, deterministic_mode_sums_in_reference_order) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  // Values that round differently in every order: sums of products of random magnitudes with cancellation.
  std::vector<std::pair<HostCsr<double>, HostCsr<double>>> cases;
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(10, 16, 3);
  cases.push_back({rmat, rmat});
  for (const auto& [a, b] : random_shapes()) {
    cases.push_back({KokkosSpGEMM::random_csr<double>(a, 21), KokkosSpGEMM::random_csr<double>(b, 22)});
  }
  for (const auto& [a, b] : cases) {
    const auto reference = KokkosSpGEMM::reference_spgemm(a, b);  // Gustavson: A's then B's order per entry
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto db = KokkosSpGEMM::copy_to(exec, b);
    for (int scratch : {0, 512}) {  // other tables, team shapes and level-2 spills: the same bits
      TestOptions o;
      o.deterministic = true;
      o.scratch_bytes = scratch;
      for (int run = 0; run < 2; ++run) {
        const auto c = KokkosSpGEMM::spgemm(exec, da, db, o);
        const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, b);
        ASSERT_TRUE(cmp.ok) << cmp.message;
        EXPECT_TRUE(bitwise_equal_values(c, reference)) << "scratch " << scratch << ", run " << run;
      }
    }
  }
}

TEST(TEST_CATEGORY, memory_budget_bounds_the_pools_and_refuses_what_cannot_fit) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(11, 8, 4);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  // Unbounded, for the sizes.
  TestOptions tiny_scratch;
  tiny_scratch.algorithm = KokkosSpGEMM::Algorithm::Hash;
  tiny_scratch.scratch_bytes = 512;  // long rows need level-2 tables from the pool
  KokkosSpGEMM::Handle<Exec, double> free_handle(tiny_scratch);
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
  KokkosSpGEMM::spgemm_symbolic(exec, free_handle, da, da, c);
  KokkosSpGEMM::spgemm_numeric(exec, free_handle, da, da, c);
  const std::size_t c_bytes = c.nnz() * (sizeof(int) + sizeof(double)) + c.row_map().span() * sizeof(int);
  // A budget of C plus a little: the pools shrink, the result is still right and the peak stays in the budget.
  TestOptions bounded = tiny_scratch;
  bounded.memory_budget_bytes = c_bytes + free_handle.peak_extra_bytes() / 4 + 64 * 1024;
  KokkosSpGEMM::Handle<Exec, double> handle(bounded);
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c2;
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c2);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c2);
  const auto cmp = KokkosSpGEMM::compare_to_reference(c2, a, a);
  EXPECT_TRUE(cmp.ok) << cmp.message;
  EXPECT_LE(handle.peak_extra_bytes(), bounded.memory_budget_bytes) << handle.describe();
  // A budget smaller than C: refused before the numeric phase touches C, with the sizes in the message.
  TestOptions small = tiny_scratch;
  small.memory_budget_bytes = c_bytes / 2;
  KokkosSpGEMM::Handle<Exec, double> refused(small);
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c3;
  try {
    KokkosSpGEMM::spgemm_symbolic(exec, refused, da, da, c3);
    KokkosSpGEMM::spgemm_numeric(exec, refused, da, da, c3);
    ADD_FAILURE() << "no exception";
  } catch (const KokkosSpGEMM::OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c3.entries().extent(0), 0u);
  // Far too small for even the row analysis: refused in the symbolic phase; the handle is usable afterwards.
  small.memory_budget_bytes = 100;
  KokkosSpGEMM::Handle<Exec, double> h4(small);
  EXPECT_THROW(KokkosSpGEMM::spgemm_symbolic(exec, h4, da, da, c3), KokkosSpGEMM::OutOfMemory);
  EXPECT_FALSE(h4.has_analysis());
  h4.options().memory_budget_bytes = 0;
  KokkosSpGEMM::spgemm_symbolic(exec, h4, da, da, c3);
  KokkosSpGEMM::spgemm_numeric(exec, h4, da, da, c3);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c3, a, a).ok);
}

TEST(TEST_CATEGORY, memory_budget_splits_rows_into_blocks) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  // Many rows, a small C: the row analysis (32 bytes a row) is what does not fit, so rows go in blocks.
  KokkosSpGEMM::RandomCsrOptions<int> ao, bo;
  ao.rows = 20000, ao.cols = 2000, ao.mean_per_row = 1, ao.empty_row_fraction = 0.3, ao.power_law = true;
  bo.rows = 2000, bo.cols = 3000, bo.mean_per_row = 1, bo.long_row_length = 3000;
  const auto a = KokkosSpGEMM::random_csr<double>(ao, 31);
  const auto b = KokkosSpGEMM::random_csr<double>(bo, 32);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  KokkosSpGEMM::Handle<Exec, double> free_handle;
  M c0;
  KokkosSpGEMM::spgemm_symbolic(exec, free_handle, da, db, c0);
  const std::size_t c_bytes = static_cast<std::size_t>(free_handle.nnz()) * 12 + (a.num_rows() + 1) * sizeof(int);
  for (const auto& o0 : all_paths()) {
    TestOptions o = o0;
    o.memory_budget_bytes = c_bytes + free_handle.kept_bytes() + 200000;
    KokkosSpGEMM::Handle<Exec, double> h(o);
    M c;
    KokkosSpGEMM::spgemm_symbolic(exec, h, da, db, c);
    EXPECT_GT(h.row_chunks(), 1u) << h.describe();
    EXPECT_EQ(h.nnz(), free_handle.nnz());
    EXPECT_EQ(h.products(), free_handle.products());
    KokkosSpGEMM::spgemm_numeric(exec, h, da, db, c);
    auto cmp = KokkosSpGEMM::compare_to_reference(c, a, b, o.sorted);
    EXPECT_TRUE(cmp.ok) << KokkosSpGEMM::algorithm_name(o.algorithm) << ": " << cmp.message;
    EXPECT_LE(h.peak_extra_bytes(), o.memory_budget_bytes);
    EXPECT_NE(h.describe().find("row blocks"), std::string::npos);
    const auto a2 = with_new_values(a, -0.5, 2.0);
    KokkosSpGEMM::spgemm_numeric(exec, h, KokkosSpGEMM::copy_to(exec, a2), db, c);
    cmp = KokkosSpGEMM::compare_to_reference(c, a2, b, o.sorted);
    EXPECT_TRUE(cmp.ok) << "reuse: " << cmp.message;
    // Again: each block replays the position map the call above made within what the budget left.
    const auto a3 = with_new_values(a, 1.5, -1.0);
    KokkosSpGEMM::spgemm_numeric(exec, h, KokkosSpGEMM::copy_to(exec, a3), db, c);
    cmp = KokkosSpGEMM::compare_to_reference(c, a3, b, o.sorted);
    EXPECT_TRUE(cmp.ok) << "replay: " << cmp.message;
    EXPECT_LE(h.peak_extra_bytes(), o.memory_budget_bytes);
    EXPECT_LT(h.kept_bytes() + c_bytes, o.memory_budget_bytes);
  }
}

// The dense accumulator's bins share one pool: a chunk per thread picked by its unique token, or (a pool limited to
// one chunk) chunks taken and given back per row; R-MAT rows fill many bins, rectangular B other widths.
TEST(TEST_CATEGORY, dense_bins_share_one_pool) {
  using Exec = TEST_EXECSPACE;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "the dense accumulator is a CPU path";
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(11, 8, 5);
  const auto wide = KokkosSpGEMM::uniform_random<double, int, int>(2048, 70000, 6, 9);
  for (const std::size_t limit : {std::size_t(0), std::size_t(1)}) {
    TestOptions o;
    o.algorithm = KokkosSpGEMM::Algorithm::Dense;
    o.pool_bytes_limit = limit;
    expect_matches_reference<Exec>(rmat, rmat, o, "R-MAT, pool limit " + std::to_string(limit));
    expect_matches_reference<Exec>(rmat, wide, o, "R-MAT x wide, pool limit " + std::to_string(limit));
  }
}

// The dense accumulator's sorted output: rows whose columns lie close together come in order from its bitmap
// (word edges 63/64, the first and last column, a row spanning whole words), rows of a few far-apart columns from
// a sort of the touched list; float values (4-byte slots, odd width) and double, with unsorted input rows of B.
// Width 200001: rows of C far shorter than B is wide (the walk goes through the summary bitmap); 3001: without it.
// Rows of up to 32 entries try the insertion sort first: row 6 (1320, 1200, then 20 columns descending) makes it
// give up with its list partly reordered (1200 moved first), and the bitmap's walk must still start at 1200's word.
template <class S>
void check_dense_sorted_output(int width) {
  using Exec = TEST_EXECSPACE;
  std::vector<std::vector<std::pair<int, S>>> b_rows(7);
  b_rows[0] = {{64, S(1)}, {63, S(2)}, {0, S(3)}, {65, S(4)}, {127, S(5)}, {128, S(-3)}};  // near: walk the bitmap
  b_rows[1] = {{width - 1, S(1)}, {0, S(2)}};                                              // 2 far apart: sort
  b_rows[2] = {{width - 1, S(2)}, {width - 64, S(1)}, {width - 65, S(7)}};                 // the end of the bitmap
  for (int c = 1000; c < 1200; c += 3) b_rows[3].push_back({c, S(c % 7 + 1)});             // one dense band
  for (int c = 0; c < width; c += width / 20) b_rows[4].push_back({c, S(1)});              // sparse over the width
  b_rows[5] = {};
  b_rows[6] = {{1320, S(2)}, {1200, S(3)}};
  for (int c = 1339; c >= 1300; c -= 2) b_rows[6].push_back({c, S(c % 5 + 1)});
  const auto b = csr_from_rows<S>(7, width, b_rows);
  const std::vector<std::vector<std::pair<int, S>>> a_rows = {
      {{0, S(1)}},
      {{1, S(1)}},
      {{2, S(2)}},
      {{3, S(1)}, {0, S(-1)}},
      {{4, S(1)}, {1, S(1)}},
      {{0, S(1)}, {2, S(1)}, {3, S(1)}, {4, S(1)}, {1, S(1)}},
      {{5, S(1)}},
      {{0, S(1)}, {0, S(-1)}},  // cancellation keeps the entries with value 0
      {{6, S(2)}},
      {{6, S(1)}, {1, S(3)}},
      {{6, S(1)}, {3, S(1)}}};  // over 32 entries: the walk's span first
  const auto a = csr_from_rows<S>(11, 7, a_rows);
  TestOptions o;
  o.algorithm = KokkosSpGEMM::Algorithm::Dense;
  expect_matches_reference<Exec>(a, b, o, "dense, sorted");
  o.sorted = false;
  expect_matches_reference<Exec>(a, b, o, "dense, unsorted");
}

TEST(TEST_CATEGORY, dense_accumulator_sorts_by_bitmap_or_by_sort) {
  if (KokkosSpGEMM::BackendTraits<TEST_EXECSPACE>::is_gpu) GTEST_SKIP() << "the dense accumulator is a CPU path";
  for (int width : {200001, 3001}) {
    check_dense_sorted_output<double>(width);
    check_dense_sorted_output<float>(width);
  }
}

// The dense accumulator on low compression (200,000 products over 2,000 columns: most products new), on a wide B
// (rows of C far shorter than B is wide: the sorted walk through the summary bitmap, or the sort), and on high
// compression (rows of B over 12 columns, each met ~50 times a row); sorted and unsorted, then reuse with new values.
TEST(TEST_CATEGORY, dense_numeric_on_low_and_high_compression) {
  using Exec = TEST_EXECSPACE;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "the dense accumulator is a CPU path";
  const auto a = KokkosSpGEMM::uniform_random<double, int, int>(2000, 300, 10, 21);
  const auto b = KokkosSpGEMM::uniform_random<double, int, int>(300, 2000, 10, 22);
  const auto short_a = KokkosSpGEMM::uniform_random<double, int, int>(400, 300, 6, 23);
  const auto wide = KokkosSpGEMM::uniform_random<double, int, int>(300, 100000, 9, 24);
  const auto narrow_a = KokkosSpGEMM::uniform_random<double, int, int>(400, 300, 20, 25);
  std::vector<std::vector<std::pair<int, double>>> rows(300);
  for (int k = 0; k < 300; ++k) {
    for (int j = 0; j < 30; ++j) rows[k].push_back({(j * 7 + k) % 12, 1.0 + (j + k) % 5});
  }
  const auto narrow = csr_from_rows<double>(300, 40, rows);
  const std::vector<std::tuple<std::string, HostCsr<double>, HostCsr<double>>> cases = {
      {"random 2000 x 2000", a, b}, {"wide B", short_a, wide}, {"12 columns", narrow_a, narrow}};
  for (const auto& [name, x, y] : cases) {
    for (bool sorted : {true, false}) {
      TestOptions o;
      o.algorithm = KokkosSpGEMM::Algorithm::Dense;
      o.sorted = sorted;
      check_reuse_rounds<Exec>(x, y, o, name + (sorted ? ", sorted" : ", unsorted"), 1);
    }
  }
}

// The dense accumulator's stamps are 16-bit: a thread's chunk hands out one per row and, after 65,535 rows, clears
// its stamps and starts again from 1. C = I * B with B's row i = {i mod 65,535, 65,535 + i}: a row that took stamp 0
// (the pool's clean value) would see its never-touched second column as met; on one thread, in order, row i + 65,535
// takes row i's stamp, and without the clearing would see its first column, row i's, as met. More rows than 65,535
// per thread at any thread count; symbolic, numeric (sorted and unsorted) and the reuse gather of C's known columns
// (without the position map).
TEST(TEST_CATEGORY, dense_stamps_start_again_after_65535_rows) {
  using Exec = TEST_EXECSPACE;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "the dense accumulator is a CPU path";
  constexpr int period = 65535;
  const int rows = 70000 * static_cast<int>(KokkosSpGEMM::Impl::concurrency(Exec()));
  std::vector<std::vector<std::pair<int, double>>> a_rows(rows), b_rows(rows);
  for (int i = 0; i < rows; ++i) {
    a_rows[i] = {{i, 1.0}};
    b_rows[i] = {{i % period, 1.0 + i % 3}, {period + i, 2.0}};
  }
  const auto a = csr_from_rows<double>(rows, rows, a_rows);
  const auto b = csr_from_rows<double>(rows, period + rows, b_rows);
  for (const bool sorted : {true, false}) {
    TestOptions o;
    o.algorithm = KokkosSpGEMM::Algorithm::Dense;
    o.sorted = sorted;
    o.reuse_positions = false;
    check_reuse_rounds<Exec>(a, b, o, sorted ? "sorted" : "unsorted", 2);
  }
}

// The symbolic phase of the dense accumulator from B compressed into (word, mask) runs (forced: ratio 1) gives the
// sizes of the uncompressed count (ratio 0) on stencils (runs of neighbours), random and R-MAT rows, unsorted rows
// of B (a word met twice in a row); with and without a memory budget.
TEST(TEST_CATEGORY, dense_symbolic_from_compressed_b) {
  using Exec = TEST_EXECSPACE;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "the dense accumulator is a CPU path";
  Exec exec;
  std::vector<std::pair<HostCsr<double>, HostCsr<double>>> cases;
  const auto stencil = KokkosSpGEMM::poisson_3d_27pt<double, int, int>(9);
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(10, 8, 7);
  cases.push_back({stencil, stencil});
  cases.push_back({rmat, rmat});
  cases.push_back({KokkosSpGEMM::uniform_random<double, int, int>(300, 500, 7, 3),
                   KokkosSpGEMM::uniform_random<double, int, int>(500, 4000, 40, 4)});
  // Unsorted rows of B with columns alternating between two words.
  std::vector<std::vector<std::pair<int, double>>> zigzag(64);
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 10; ++j) zigzag[i].push_back({(j % 2) * 64 + (i + 7 * j) % 64, 1.0 + j});
  }
  const auto zb = csr_from_rows<double>(64, 128, zigzag);
  cases.push_back({KokkosSpGEMM::uniform_random<double, int, int>(50, 64, 9, 5), zb});
  for (const auto& [a, b] : cases) {
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto db = KokkosSpGEMM::copy_to(exec, b);
    TestOptions plain;
    plain.algorithm = KokkosSpGEMM::Algorithm::Dense;
    plain.symbolic_compression_ratio = 0;
    KokkosSpGEMM::Handle<Exec, double> plain_handle(plain);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c_plain;
    KokkosSpGEMM::spgemm_symbolic(exec, plain_handle, da, db, c_plain);
    const auto plain_rows = KokkosSpGEMM::to_host(c_plain).row_map();
    for (const std::size_t budget : {std::size_t(0), std::size_t(1) << 24}) {
      TestOptions o = plain;
      o.symbolic_compression_ratio = 1;
      o.memory_budget_bytes = budget;
      KokkosSpGEMM::Handle<Exec, double> h(o);
      KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
      KokkosSpGEMM::spgemm_symbolic(exec, h, da, db, c);
      ASSERT_EQ(h.nnz(), plain_handle.nnz());
      const auto rows = KokkosSpGEMM::to_host(c).row_map();
      for (std::size_t i = 0; i < rows.extent(0); ++i) ASSERT_EQ(rows(i), plain_rows(i)) << "row " << i;
      KokkosSpGEMM::spgemm_numeric(exec, h, da, db, c);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, b);
      EXPECT_TRUE(cmp.ok) << cmp.message;
    }
  }
}

TEST(TEST_CATEGORY, allocation_failure_is_out_of_memory) {
  using Exec = TEST_EXECSPACE;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "the dense accumulator is a CPU path";
  Exec exec;
  // 2^40 columns: the dense accumulator asks for 9 TB, which no allocator grants.
  using O = std::int64_t;
  const O cols = O(1) << 40;
  const auto a = csr_from_rows<double, O, O>(2, 2, {{{0, 1.0}}, {{1, 2.0}}});
  const auto b = csr_from_rows<double, O, O>(2, cols, {{{0, 1.0}, {cols - 1, 1.0}}, {{5, 3.0}}});
  TestOptions o;
  o.algorithm = KokkosSpGEMM::Algorithm::Dense;
  KokkosSpGEMM::Handle<Exec, double, O, O> handle(o);
  KokkosSpGEMM::CsrMatrix<double, O, O, Exec::memory_space> c;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  EXPECT_THROW(KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c), KokkosSpGEMM::OutOfMemory);
  // Another algorithm on the same handle and operands works afterwards.
  handle.options().algorithm = KokkosSpGEMM::Algorithm::Hash;
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
  // (The reference's dense accumulator would itself need 2^40 entries: the three entries are checked here.)
  const auto hc = KokkosSpGEMM::to_host(c);
  ASSERT_EQ(hc.nnz(), 3u);
  EXPECT_EQ(hc.entries()(0), 0);
  EXPECT_EQ(hc.entries()(1), cols - 1);
  EXPECT_EQ(hc.entries()(2), 5);
  EXPECT_EQ(hc.values()(0), 1.0);
  EXPECT_EQ(hc.values()(1), 1.0);
  EXPECT_EQ(hc.values()(2), 6.0);
}

TEST(TEST_CATEGORY, allocation_failure_on_the_device_is_out_of_memory) {
  using Exec = TEST_EXECSPACE;
  if (!KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "the host spaces' case is the test above";
  Exec exec;
  // 4096 rows each meeting one row of 2^26 entries: every team's symbolic level-2 table takes 512 MB from a pool
  // sized for all teams that run at once (~500 on an H100: ~270 GB), past any device's memory; the symbolic phase
  // fails at that allocation, before any row is counted.
  const int long_row = 1 << 26;
  HostCsr<double> a("a", 4096, 1, 4096), b("b", 1, long_row, long_row);
  for (int i = 0; i <= 4096; ++i) a.row_map()(i) = i;
  for (int i = 0; i < 4096; ++i) a.entries()(i) = 0, a.values()(i) = 1.0;
  b.row_map()(0) = 0;
  b.row_map()(1) = long_row;
  for (int j = 0; j < long_row; ++j) b.entries()(j) = j, b.values()(j) = 1.0;
  KokkosSpGEMM::Handle<Exec, double, int, std::int64_t> handle;
  KokkosSpGEMM::CsrMatrix<double, int, std::int64_t, Exec::memory_space> c;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  try {
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    ADD_FAILURE() << "no exception: " << handle.describe();
  } catch (const KokkosSpGEMM::OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("spgemm_symbolic"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(handle.has_analysis());
  // The device is usable afterwards, through the same handle.
  const auto small = KokkosSpGEMM::rmat<double, int, int>(8, 8, 1);
  const auto ds = KokkosSpGEMM::copy_to(exec, small);
  KokkosSpGEMM::Handle<Exec, double, int, int> h2;
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c2;
  KokkosSpGEMM::spgemm_symbolic(exec, h2, ds, ds, c2);
  KokkosSpGEMM::spgemm_numeric(exec, h2, ds, ds, c2);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c2, small, small).ok);
}

TEST(TEST_CATEGORY, workspace_allocation_failure_is_out_of_memory) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  // A phase's block of 2^50 bytes, from the temporary cache (CUDA) or a Kokkos view (elsewhere): refused, and named.
  {
    KokkosSpGEMM::Impl::Workspace<Exec> workspace(exec, std::size_t(1) << 50);
    try {
      KokkosSpGEMM::Impl::translate_allocation_failure("spgemm_symbolic",
                                                       [&] { workspace.take<double>("KokkosSpGEMM::test", 1); });
      ADD_FAILURE() << "a 2^50-byte block was granted";
    } catch (const KokkosSpGEMM::OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("spgemm_symbolic"), std::string::npos) << e.what();
    }
  }
  // The device is usable afterwards (a refused pool allocation leaves no error behind for the next launch).
  const auto a = KokkosSpGEMM::rmat<double, int, int>(9, 8, 4);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto c = KokkosSpGEMM::spgemm(exec, da, da);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok);
}

/// Whether the library's temporary cache serves exec: host spaces, and CUDA devices with stream-ordered memory
/// pools.
template <class Exec>
bool temporary_cache_serves(const Exec&) {
  return std::is_same<typename Exec::memory_space, Kokkos::HostSpace>::value;
}
#if defined(KOKKOS_ENABLE_CUDA)
inline bool temporary_cache_serves(const Kokkos::Cuda& exec) {
  int pools = 0;
  cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, exec.cuda_device());
  return pools == 1;
}
#endif

TEST(TEST_CATEGORY, temporary_cache_keeps_blocks_up_to_its_limit) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const bool cached = temporary_cache_serves(exec);
  // 2^12 rows: the symbolic phase's block (16 bytes a row and more) is the cache's.
  const auto a = KokkosSpGEMM::rmat<double, int, int>(12, 8, 6);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  auto c = KokkosSpGEMM::spgemm(exec, da, da);
  ASSERT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok);
  Kokkos::fence();
  const std::size_t held = KokkosSpGEMM::temporary_cache_bytes();
  if (cached) {
    EXPECT_GE(held, std::size_t(16) << 12) << "the freed block went back to the device";
  } else {
    EXPECT_EQ(held, 0u);
  }
  // Released on request, and the products stay right with nothing kept between calls.
  KokkosSpGEMM::set_temporary_cache_limit(0);
  KokkosSpGEMM::release_temporary_cache();
  EXPECT_EQ(KokkosSpGEMM::temporary_cache_bytes(), 0u);
  const auto first = c;
  for (int run = 0; run < 2; ++run) {
    c = KokkosSpGEMM::spgemm(exec, da, da);
    EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok) << "run " << run;
  }
  KokkosSpGEMM::set_temporary_cache_limit(KokkosSpGEMM::Impl::default_temporary_cache_bytes);
  // C's arrays are its own even where the kernels wrote it into the cache first (CUDA): released blocks and
  // another product written through the cache leave the first C as it was.
  const auto other = KokkosSpGEMM::rmat<double, int, int>(12, 8, 7);
  const auto d_other = KokkosSpGEMM::copy_to(exec, other);
  const auto c_other = KokkosSpGEMM::spgemm(exec, d_other, d_other);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c_other, other, other).ok);
  KokkosSpGEMM::release_temporary_cache();
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(first, a, a).ok);
}

TEST(TEST_CATEGORY, host_temporary_cache_hands_out_kept_blocks_and_frees_the_oldest_past_its_limit) {
  auto& blocks = KokkosSpGEMM::Impl::HostBlocks::instance();
  KokkosSpGEMM::release_temporary_cache();
  const std::size_t before = blocks.reserved();  // blocks in use elsewhere (none between calls)
  constexpr std::size_t mib = std::size_t(1) << 20;
  KokkosSpGEMM::set_temporary_cache_limit(3 * mib);
  char* a = static_cast<char*>(blocks.take(mib, "a"));
  char* b = static_cast<char*>(blocks.take(2 * mib, "b"));
  a[mib - 1] = b[2 * mib - 1] = 1;  // every byte asked for is there (ASan checks)
  blocks.give(a, "a");
  blocks.give(b, "b");
  EXPECT_EQ(blocks.reserved(), before + 3 * mib) << "both fit the limit: kept";
  // The best fit of at most twice the size: a for a smaller request, a fresh block for one past twice a's size.
  EXPECT_EQ(blocks.take(mib / 2 + 1, "c"), static_cast<void*>(a));
  blocks.give(a, "c");
  // A lower limit frees the oldest kept block first (b; a was handed back since).
  KokkosSpGEMM::set_temporary_cache_limit(mib);
  EXPECT_EQ(blocks.reserved(), before + mib);
  void* d = blocks.take(4 * mib, "d");
  EXPECT_NE(d, static_cast<void*>(a));
  blocks.give(d, "d");
  EXPECT_EQ(blocks.reserved(), before) << "a block past the limit is freed, and the older one before it";
  KokkosSpGEMM::set_temporary_cache_limit(KokkosSpGEMM::Impl::default_temporary_cache_bytes);
}

TEST(TEST_CATEGORY, large_host_arrays_start_on_huge_pages) {
  using Exec = TEST_EXECSPACE;
  using Kokkos::HostSpace;
  namespace Impl = KokkosSpGEMM::Impl;
  constexpr std::size_t huge = Impl::huge_page_bytes;
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % huge == 0; };
  const Kokkos::DefaultHostExecutionSpace host;
  // Past the threshold: n elements (every one there: ASan checks the writes), on a huge-page boundary where Linux
  // offers huge pages; the label is the allocation's.
  const std::size_t n = Impl::huge_page_min_bytes / sizeof(double) + 3;
  const auto big = Impl::fresh_view<Kokkos::View<double*, HostSpace>>(host, "big", n);
  ASSERT_EQ(big.extent(0), n);
  EXPECT_EQ(big.label(), "big");
  EXPECT_EQ(aligned(big.data()), Impl::huge_pages_on_request);
  for (std::size_t i = 0; i < n; ++i) big(i) = static_cast<double>(i);
  EXPECT_EQ(big(n - 1), static_cast<double>(n - 1));
  // Below it, and elements whose size does not divide a huge page: a plain allocation of n.
  const auto small = Impl::fresh_view<Kokkos::View<int*, HostSpace>>(host, "small", 1000);
  EXPECT_EQ(small.extent(0), 1000u);
  EXPECT_EQ(small.span(), 1000u);
  struct Triple {
    double x, y, z;
  };
  const std::size_t m = Impl::huge_page_min_bytes / sizeof(Triple) + 1;
  const auto odd = Impl::fresh_view<Kokkos::View<Triple*, HostSpace>>(host, "odd", m);
  ASSERT_EQ(odd.extent(0), m);
  odd(m - 1).z = 1.0;
  EXPECT_EQ(odd(m - 1).z, 1.0);
  // The temporary cache's large host blocks: whole huge pages, on their boundaries.
  auto& blocks = Impl::HostBlocks::instance();
  KokkosSpGEMM::release_temporary_cache();
  const std::size_t before = blocks.reserved();
  void* block = blocks.take(Impl::huge_page_min_bytes + 1, "block");
  EXPECT_EQ(aligned(block), Impl::huge_pages_on_request);
  if (Impl::huge_pages_on_request) EXPECT_EQ(blocks.reserved(), before + Impl::huge_page_min_bytes + huge);
  static_cast<char*>(block)[Impl::huge_page_min_bytes] = 1;
  blocks.give(block, "block");
  KokkosSpGEMM::release_temporary_cache();
  // C's arrays and row map (562,501 64-bit offsets) past the threshold on a host space: on huge-page boundaries,
  // and C right.
  const Exec exec;
  const auto a = KokkosSpGEMM::poisson_2d_5pt<double, int, std::int64_t>(750);
  const auto d_a = KokkosSpGEMM::copy_to(exec, a);
  const auto c = KokkosSpGEMM::spgemm(exec, d_a, d_a);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok);
  if constexpr (std::is_same<typename Exec::memory_space, HostSpace>::value) {
    EXPECT_EQ(aligned(c.values().data()), Impl::huge_pages_on_request);
    EXPECT_EQ(aligned(c.entries().data()), Impl::huge_pages_on_request);
    EXPECT_EQ(aligned(c.row_map().data()), Impl::huge_pages_on_request);
  }
}

TEST(TEST_CATEGORY, single_use_analysis_takes_its_permutations_from_the_cache) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const bool cached = temporary_cache_serves(exec);
  // R-MAT rows fall in many bins: both phases bin them on GPUs (the CPU dense accumulator takes rows in order).
  const auto a = KokkosSpGEMM::rmat<double, int, int>(12, 8, 7);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  TestOptions o;
  o.check_structure = true;
  for (const bool single_use : {true, false}) {
    KokkosSpGEMM::Handle<Exec, double, int, int> h(o);
    KokkosSpGEMM::Impl::state(h).single_use = single_use;  // what spgemm's one-shot sets
    KokkosSpGEMM::CsrMatrix<double, int, int, typename Exec::memory_space> c;
    KokkosSpGEMM::spgemm_symbolic(exec, h, da, da, c);
    const bool binned = KokkosSpGEMM::Impl::state(h).numeric_bins.perm.extent(0) > 0;
    EXPECT_EQ(KokkosSpGEMM::Impl::state(h).numeric_bins.perm_block != nullptr, single_use && cached && binned)
        << "single use " << single_use;
    // Structure hashes only for an analysis that later calls are compared with.
    EXPECT_EQ(KokkosSpGEMM::Impl::state(h).signature.a_hash != 0 && KokkosSpGEMM::Impl::state(h).signature.b_hash != 0,
              !single_use)
        << "single use " << single_use;
    KokkosSpGEMM::spgemm_numeric(exec, h, da, da, c);
    EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok) << "single use " << single_use;
  }
  // Blocks handed back in order on the stream are handed out again at once: one-shots in a row, each right.
  for (int run = 0; run < 3; ++run) {
    const auto c = KokkosSpGEMM::spgemm(exec, da, da, o);
    EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok) << "run " << run;
  }
}

TEST(TEST_CATEGORY, cpu_results_are_identical_run_to_run) {
  using Exec = TEST_EXECSPACE;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "on GPUs only deterministic mode promises this";
  Exec exec;
  // CPU kernels give each row to one thread, which sums in A's then B's order whatever the thread count (the
  // OpenMP tests run at 1, 2 and 4 threads): the reference's bits, every run.
  const auto a = KokkosSpGEMM::rmat<double, int, int>(11, 16, 9);
  const auto reference = KokkosSpGEMM::reference_spgemm(a, a);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  for (const auto& o : all_paths()) {
    if (!o.sorted) continue;
    for (int run = 0; run < 3; ++run) {
      const auto c = KokkosSpGEMM::spgemm(exec, da, da, o);
      ASSERT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok);
      EXPECT_TRUE(bitwise_equal_values(c, reference)) << KokkosSpGEMM::algorithm_name(o.algorithm) << " run " << run;
    }
  }
}

}  // namespace KokkosSpGEMMTest
