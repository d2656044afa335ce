// The block (BSR) product: CSR <-> BSR conversion, C = A*B on b x b blocks for b = 1..8 against the reference of
// the point forms (random block patterns with empty block rows and repeated block columns, rectangular shapes, the
// elasticity-like stencil by its block prolongator), b = 1 against the CSR product, reuse with new values, the
// deterministic path, the block transpose, the block Galerkin product, 64-bit offsets, and the errors.
#include <SpGEMMTestHelpers.hpp>

#include <random>

namespace KokkosSpGEMMTest {

using HostBsr = KokkosSpGEMM::BsrMatrix<double, int, int, Kokkos::HostSpace>;

/// A random host BSR matrix: block rows of 0 to max_len blocks (empty_every-th row empty), columns drawn with
/// repeats when repeat is set, values in [-1, 1).
template <class O = int, class F = int>
KokkosSpGEMM::BsrMatrix<double, O, F, Kokkos::HostSpace> random_bsr(O rows, O cols, int b, int max_len, unsigned seed,
                                                                    int empty_every = 5, bool repeat = false) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> len_of(0, max_len);
  std::uniform_int_distribution<O> col_of(0, cols > 0 ? cols - 1 : 0);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<F> row_map(1, 0);
  std::vector<O> entries;
  for (O i = 0; i < rows; ++i) {
    const int len = (empty_every > 0 && i % empty_every == 1) || cols == 0 ? 0 : len_of(gen);
    std::vector<O> row;
    for (int t = 0; t < len; ++t) row.push_back(col_of(gen));
    if (!repeat) {
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
    }
    entries.insert(entries.end(), row.begin(), row.end());
    row_map.push_back(static_cast<F>(entries.size()));
  }
  KokkosSpGEMM::BsrMatrix<double, O, F, Kokkos::HostSpace> m("random_bsr", rows, cols, b, entries.size());
  for (std::size_t i = 0; i < row_map.size(); ++i) m.row_map()(i) = row_map[i];
  for (std::size_t e = 0; e < entries.size(); ++e) m.entries()(e) = entries[e];
  for (std::size_t x = 0; x < m.values().extent(0); ++x) m.values()(x) = val(gen);
  return m;
}

/// C (a BSR matrix in any space) against the reference product of A's and B's point forms.
template <class CM, class AM, class BM>
void expect_block_product(const CM& c, const AM& a, const BM& b, const std::string& what) {
  Kokkos::DefaultHostExecutionSpace host;
  const auto ref =
      KokkosSpGEMM::reference_spgemm_with_bounds(KokkosSpGEMM::to_csr(host, a), KokkosSpGEMM::to_csr(host, b));
  const auto cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(c)), ref, true);
  EXPECT_TRUE(cmp.ok) << what << ": " << cmp.message;
}

template <class M>
M bsr_with_new_values(const M& m, double scale, double shift) {
  M out("new values", m.num_block_rows(), m.num_block_cols(), m.block_size(), m.nnz_blocks());
  Kokkos::deep_copy(out.row_map(), m.row_map());
  Kokkos::deep_copy(out.entries(), m.entries());
  for (std::size_t x = 0; x < m.values().extent(0); ++x)
    out.values()(x) = scale * m.values()(x) + shift * ((x * 7919) % 13);
  return out;
}

TEST(TEST_CATEGORY, bsr_conversion_round_trip_sums_duplicates_and_fills_blocks) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  // Repeated entries (summed), an empty block row, a block with one entry.
  const auto a = csr_from_rows<double>(
      6, 4, {{{1, 1.0}, {1, 2.0}, {3, -1.0}}, {{0, 4.0}}, {}, {}, {{2, 5.0}}, {{3, 6.0}, {0, 7.0}}});
  const auto bsr = KokkosSpGEMM::to_bsr(exec, a, 2);
  EXPECT_EQ(bsr.num_block_rows(), 3);
  EXPECT_EQ(bsr.num_block_cols(), 2);
  EXPECT_EQ(bsr.nnz_blocks(), 4u);  // row 0: blocks 0 and 1; row 1: none; row 2: blocks 0 and 1
  const auto h = KokkosSpGEMM::to_host(bsr);
  EXPECT_EQ(h.row_map()(1), 2);
  EXPECT_EQ(h.row_map()(2), 2);
  EXPECT_EQ(h.values()(0 * 4 + 0 * 2 + 1), 3.0);   // (0, 1): 1 + 2
  EXPECT_EQ(h.values()(0 * 4 + 1 * 2 + 0), 4.0);   // (1, 0)
  EXPECT_EQ(h.values()(1 * 4 + 0 * 2 + 1), -1.0);  // (0, 3)
  EXPECT_EQ(h.values()(1 * 4 + 1 * 2 + 1), 0.0);   // (1, 3): filled
  // Back to points: every block in full, the entries of A among them.
  const auto back = KokkosSpGEMM::to_host(KokkosSpGEMM::to_csr(exec, bsr));
  EXPECT_EQ(back.num_rows(), 6);
  EXPECT_EQ(back.nnz(), 16u);
  const auto again = KokkosSpGEMM::to_host(KokkosSpGEMM::to_bsr(host, back, 2));
  ASSERT_EQ(again.values().extent(0), h.values().extent(0));
  for (std::size_t x = 0; x < h.values().extent(0); ++x) EXPECT_EQ(again.values()(x), h.values()(x));
  // Block size 1 is the CSR matrix with duplicates summed.
  const auto one = KokkosSpGEMM::to_host(KokkosSpGEMM::to_bsr(exec, a, 1));
  EXPECT_EQ(one.nnz_blocks(), 6u);
  EXPECT_THROW(KokkosSpGEMM::to_bsr(exec, a, 4), KokkosSpGEMM::InvalidInput);  // 6 rows are not 4 x 4 blocks
  EXPECT_THROW(KokkosSpGEMM::to_bsr(exec, a, 0), KokkosSpGEMM::InvalidInput);
}

/// The block kernels' paths: the default, a team a row with its blocks in scratch, a team a row adding into C
/// (scratch too small for the blocks), a thread a row (with a map of C's columns on CPUs), deterministic, a thread a
/// row finding columns by binary search.
inline std::vector<TestOptions> block_paths() {
  std::vector<TestOptions> paths(6);
  paths[1].block_rows = KokkosSpGEMM::BlockRows::Teams;
  paths[2].block_rows = KokkosSpGEMM::BlockRows::Teams;
  paths[2].scratch_bytes = 512;
  paths[3].block_rows = KokkosSpGEMM::BlockRows::Threads;
  paths[4].deterministic = true;
  paths[5].block_rows = KokkosSpGEMM::BlockRows::Threads;
  paths[5].dense_max_columns = 0;
  return paths;
}

TEST(TEST_CATEGORY, bsr_spgemm_matches_reference_for_block_sizes_1_to_10) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto paths = block_paths();
  for (int b : {1, 2, 3, 4, 5, 8, 10}) {  // 10: past the unrolled sizes
    // Square, rectangular (A 37 x 23 blocks, B 23 x 11), long rows of B, repeated block columns.
    const auto a1 = random_bsr(40, 40, b, 9, 100 + b);
    const auto a2 = random_bsr(37, 23, b, 6, 200 + b);
    const auto b2 = random_bsr(23, 11, b, 8, 300 + b);
    const auto a3 = random_bsr(12, 100, b, 80, 400 + b, 4);  // A's rows past one chunk of 32 blocks
    const auto b3 = random_bsr(100, 200, b, 120, 500 + b, 0);
    const auto a4 = random_bsr(25, 25, b, 8, 600 + b, 3, true);
    const std::vector<std::pair<HostBsr, HostBsr>> cases = {{a1, a1}, {a2, b2}, {a3, b3}, {a4, a4}};
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const auto& [ha, hb] = cases[k];
      const auto da = KokkosSpGEMM::copy_to(exec, ha);
      const auto db = KokkosSpGEMM::copy_to(exec, hb);
      for (std::size_t path = 0; path < paths.size(); ++path) {
        const auto c = KokkosSpGEMM::spgemm(exec, da, db, paths[path], paths[path]);
        EXPECT_EQ(c.block_size(), b);
        expect_block_product(
            c, ha, hb, "b = " + std::to_string(b) + ", case " + std::to_string(k) + ", path " + std::to_string(path));
      }
    }
  }
}

TEST(TEST_CATEGORY, bsr_spgemm_block_stencil_by_block_prolongator_and_galerkin) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  for (int b : {2, 3, 6}) {
    const auto a = KokkosSpGEMM::block_stencil_3d_27pt<double>(5, b);
    const auto p = KokkosSpGEMM::tentative_prolongator<double>(5, 3, 2, b);
    const auto ha = KokkosSpGEMM::to_bsr(host, a, b);
    const auto hp = KokkosSpGEMM::to_bsr(host, p, b);
    const auto da = KokkosSpGEMM::copy_to(exec, ha);
    const auto dp = KokkosSpGEMM::copy_to(exec, hp);
    for (const auto& o : block_paths()) {
      const auto ap = KokkosSpGEMM::spgemm(exec, da, dp, o, o);
      expect_block_product(ap, ha, hp, "A P, b = " + std::to_string(b));
      const auto aa = KokkosSpGEMM::spgemm(exec, da, da, o, o);
      expect_block_product(aa, ha, ha, "A A, b = " + std::to_string(b));
    }
    // The block transpose, and R A P with R = P^T through the Galerkin handle, twice (new values of A).
    const auto pt = KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(exec, dp));
    const auto pt_ref = transpose_host(KokkosSpGEMM::to_csr(host, hp));
    const auto pt_points = KokkosSpGEMM::to_csr(host, pt);
    ASSERT_EQ(pt_points.nnz(), pt_ref.nnz());
    for (int i = 0; i <= pt_ref.num_rows(); ++i) ASSERT_EQ(pt_points.row_map()(i), pt_ref.row_map()(i));
    for (std::size_t e = 0; e < pt_ref.nnz(); ++e) {
      ASSERT_EQ(pt_points.entries()(e), pt_ref.entries()(e));
      ASSERT_EQ(pt_points.values()(e), pt_ref.values()(e));
    }
    KokkosSpGEMM::BsrGalerkinHandle<Exec, double> gh;
    KokkosSpGEMM::BsrMatrix<double, int, int, Exec::memory_space> ac;
    for (int round = 0; round < 2; ++round) {
      const auto ha_now = round == 0 ? ha : bsr_with_new_values(ha, 0.5, 1.0);
      KokkosSpGEMM::galerkin_product(exec, gh, KokkosSpGEMM::copy_to(exec, ha_now), dp, ac);
      const auto ref_ap =
          KokkosSpGEMM::reference_spgemm(KokkosSpGEMM::to_csr(host, ha_now), KokkosSpGEMM::to_csr(host, hp));
      const auto ref = KokkosSpGEMM::reference_spgemm_with_bounds(pt_ref, ref_ap);
      const auto rap =
          KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(ac)), ref, true);
      EXPECT_TRUE(rap.ok) << "P^T A P, b = " << b << ", round " << round << ": " << rap.message;
    }
  }
}

TEST(TEST_CATEGORY, bsr_spgemm_block_size_1_equals_csr_product) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = 300, o.cols = 300, o.mean_per_row = 6, o.power_law = true, o.empty_row_fraction = 0.1;
  const auto a = KokkosSpGEMM::random_csr<double>(o, 21);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto csr = KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm(exec, da, da));
  const auto bsr = KokkosSpGEMM::to_bsr(exec, a, 1);
  const auto c = KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm(exec, bsr, bsr));
  ASSERT_EQ(c.nnz_blocks(), csr.nnz());
  for (int i = 0; i <= csr.num_rows(); ++i) ASSERT_EQ(c.row_map()(i), csr.row_map()(i));
  for (std::size_t e = 0; e < csr.nnz(); ++e) {
    ASSERT_EQ(c.entries()(e), csr.entries()(e));
    EXPECT_NEAR(c.values()(e), csr.values()(e), 1e-12 * (1.0 + std::abs(csr.values()(e))));
  }
}

TEST(TEST_CATEGORY, bsr_spgemm_reuses_and_detects_structure_changes) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::BsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  for (const auto& options : block_paths()) {
    const bool deterministic = options.deterministic;
    const auto ha = random_bsr(60, 50, 3, 7, 31);
    const auto hb = random_bsr(50, 40, 3, 7, 32);
    KokkosSpGEMM::BsrHandle<Exec, double> h(options, options);
    M c;
    KokkosSpGEMM::spgemm_symbolic(exec, h, KokkosSpGEMM::copy_to(exec, ha), KokkosSpGEMM::copy_to(exec, hb), c);
    EXPECT_EQ(h.nnz_blocks(), static_cast<std::int64_t>(c.nnz_blocks()));
    const std::string text = h.describe();
    EXPECT_NE(text.find("blocks of C"), std::string::npos);
    const bool teams =
        options.block_rows == KokkosSpGEMM::BlockRows::Teams ||
        (KokkosSpGEMM::BackendTraits<Exec>::is_gpu && options.block_rows == KokkosSpGEMM::BlockRows::Auto);
    if (deterministic || !teams) {
      EXPECT_NE(text.find("a thread a row"), std::string::npos) << text;
    } else {
      EXPECT_NE(text.find(options.scratch_bytes > 0 ? "in C" : "scratch hash"), std::string::npos) << text;
    }
    M first;
    for (int round = 0; round < 3; ++round) {
      const auto na = bsr_with_new_values(ha, 1.0 + round, 0.25 * round);
      const auto nb = bsr_with_new_values(hb, 1.0 - 0.5 * round, 0.5);
      KokkosSpGEMM::spgemm_numeric(exec, h, KokkosSpGEMM::copy_to(exec, na), KokkosSpGEMM::copy_to(exec, nb), c);
      expect_block_product(c, na, nb, "round " + std::to_string(round));
      if (round == 0) first = KokkosSpGEMM::copy_to(exec, c);
    }
    if (deterministic) {  // the same values again: bitwise the same C
      KokkosSpGEMM::spgemm_numeric(exec, h, KokkosSpGEMM::copy_to(exec, bsr_with_new_values(ha, 1.0, 0.0)),
                                   KokkosSpGEMM::copy_to(exec, bsr_with_new_values(hb, 1.0, 0.5)), c);
      const auto x = KokkosSpGEMM::to_host(first);
      const auto y = KokkosSpGEMM::to_host(c);
      for (std::size_t v = 0; v < x.values().extent(0); ++v) ASSERT_EQ(x.values()(v), y.values()(v));
    }
    // The same counts, other columns: products fall outside C.
    auto moved = bsr_with_new_values(ha, 1.0, 0.0);
    for (std::size_t e = 0; e < moved.nnz_blocks(); ++e) moved.entries()(e) = (moved.entries()(e) + 17) % 50;
    EXPECT_THROW(
        KokkosSpGEMM::spgemm_numeric(exec, h, KokkosSpGEMM::copy_to(exec, moved), KokkosSpGEMM::copy_to(exec, hb), c),
        KokkosSpGEMM::HandleMismatch);
    EXPECT_THROW(KokkosSpGEMM::spgemm_numeric(exec, h, KokkosSpGEMM::copy_to(exec, random_bsr(60, 50, 3, 7, 99)),
                                              KokkosSpGEMM::copy_to(exec, hb), c),
                 KokkosSpGEMM::HandleMismatch);
  }
}

TEST(TEST_CATEGORY, bsr_spgemm_empty_shapes_and_64_bit_offsets) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  // 0 block rows, no blocks at all, an inner dimension of 0.
  const std::vector<std::pair<HostBsr, HostBsr>> cases = {{random_bsr(0, 10, 3, 4, 1), random_bsr(10, 7, 3, 4, 2)},
                                                          {random_bsr(20, 10, 2, 0, 3), random_bsr(10, 7, 2, 4, 4)},
                                                          {random_bsr(20, 0, 4, 4, 5), random_bsr(0, 7, 4, 4, 6)}};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto& [ha, hb] = cases[k];
    const auto c = KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, ha), KokkosSpGEMM::copy_to(exec, hb));
    EXPECT_EQ(c.nnz_blocks(), 0u) << k;
    EXPECT_EQ(c.num_block_rows(), ha.num_block_rows());
    EXPECT_EQ(c.num_block_cols(), hb.num_block_cols());
  }
  const auto ha = random_bsr<std::int64_t, std::int64_t>(30, 30, 3, 6, 7);
  const auto da = KokkosSpGEMM::copy_to(exec, ha);
  const auto c = KokkosSpGEMM::spgemm(exec, da, da);
  expect_block_product(c, ha, ha, "64-bit");
}

TEST(TEST_CATEGORY, bsr_spgemm_errors) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::BsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a2 = KokkosSpGEMM::copy_to(exec, random_bsr(10, 10, 2, 4, 1));
  const auto a3 = KokkosSpGEMM::copy_to(exec, random_bsr(10, 10, 3, 4, 2));
  const auto b3 = KokkosSpGEMM::copy_to(exec, random_bsr(9, 10, 3, 4, 3));
  EXPECT_THROW(KokkosSpGEMM::spgemm(exec, a2, a3), KokkosSpGEMM::DimensionMismatch);  // block sizes
  EXPECT_THROW(KokkosSpGEMM::spgemm(exec, a3, b3), KokkosSpGEMM::DimensionMismatch);  // 10 block columns, 9 rows
  M short_values(a3.num_block_rows(), a3.num_block_cols(), 3, a3.row_map(), a3.entries(),
                 Kokkos::subview(a3.values(), std::make_pair(std::size_t(0), a3.values().extent(0) - 1)));
  EXPECT_THROW(KokkosSpGEMM::spgemm(exec, short_values, a3), KokkosSpGEMM::InvalidInput);
  auto bad = random_bsr(10, 10, 3, 4, 4);
  bad.entries()(0) = 10;  // out of range
  EXPECT_THROW(KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, bad), a3), KokkosSpGEMM::InvalidInput);
  KokkosSpGEMM::BsrHandle<Exec, double> h;
  M c;
  EXPECT_THROW(KokkosSpGEMM::spgemm_numeric(exec, h, a3, a3, c), KokkosSpGEMM::HandleMismatch);
  KokkosSpGEMM::spgemm_symbolic(exec, h, a3, a3, c);
  EXPECT_THROW(KokkosSpGEMM::spgemm_numeric(exec, h, a2, a2, c), KokkosSpGEMM::DimensionMismatch);
}

}  // namespace KokkosSpGEMMTest
