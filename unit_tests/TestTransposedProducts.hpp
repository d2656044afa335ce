// The transpose with its source map, and A^T*A / A*A^T with reuse.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

inline std::vector<HostCsr<double>> transpose_cases() {
  std::vector<HostCsr<double>> cases;
  for (const auto& [a, b] : random_shapes()) {
    cases.push_back(KokkosSpGEMM::random_csr<double>(a, 7));
    cases.push_back(KokkosSpGEMM::random_csr<double>(b, 8));
  }
  cases.push_back(KokkosSpGEMM::rmat<double, int, int>(9, 8, 1));  // hub columns: long rows of A^T
  // Unsorted rows with a repeated column: the transpose keeps both entries.
  cases.push_back(csr_from_rows<double>(3, 4, {{{3, 1.0}, {0, 2.0}, {3, 3.0}}, {}, {{1, 4.0}, {0, 5.0}}}));
  return cases;
}

TEST(TEST_CATEGORY, transpose_with_source_matches_host_transpose) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  for (const auto& a : transpose_cases()) {
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto at = KokkosSpGEMM::transpose_with_source(exec, da);
    const auto expected = transpose_host(a);  // stable: equal columns keep A's row order
    const auto got = KokkosSpGEMM::to_host(at.t);
    ASSERT_EQ(got.num_rows(), a.num_cols());
    ASSERT_EQ(got.num_cols(), a.num_rows());
    ASSERT_EQ(got.nnz(), a.nnz());
    const auto source = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), at.source);
    for (int j = 0; j <= got.num_rows(); ++j) ASSERT_EQ(got.row_map()(j), expected.row_map()(j)) << j;
    std::vector<int> used(a.nnz(), 0);
    for (int j = 0; j < got.num_rows(); ++j) {
      for (int e = got.row_map()(j); e < got.row_map()(j + 1); ++e) {
        ASSERT_EQ(got.entries()(e), expected.entries()(e)) << e;
        // Each entry of A^T points back at its entry of A (row i = its column, column j), with its value.
        const int src = source(e);
        ASSERT_GE(src, 0);
        ASSERT_LT(static_cast<std::size_t>(src), a.nnz());
        EXPECT_EQ(a.entries()(src), j);
        const int i = got.entries()(e);
        EXPECT_TRUE(a.row_map()(i) <= src && src < a.row_map()(i + 1)) << "entry " << e << " source " << src;
        EXPECT_EQ(got.values()(e), a.values()(src));
        ++used[src];
      }
    }
    for (std::size_t e = 0; e < a.nnz(); ++e) EXPECT_EQ(used[e], 1) << "entry " << e << " of A";
    // New values arrive by the gather.
    const auto a2 = with_new_values(a, -1.0, 2.0);
    KokkosSpGEMM::refresh_transpose_values(exec, at, KokkosSpGEMM::copy_to(exec, a2));
    const auto got2 = KokkosSpGEMM::to_host(at.t);
    for (std::size_t e = 0; e < got2.nnz(); ++e) EXPECT_EQ(got2.values()(e), a2.values()(source(e)));
    // The plain transpose is the same matrix.
    EXPECT_TRUE(KokkosSpGEMM::is_valid_csr(KokkosSpGEMM::transpose(exec, da), false).ok);
  }
}

TEST(TEST_CATEGORY, transpose_rejects_broken_input) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  auto a = KokkosSpGEMM::uniform_random<double>(20, 10, 3, 4);
  a.entries()(5) = 10;
  EXPECT_THROW(KokkosSpGEMM::transpose(exec, KokkosSpGEMM::copy_to(exec, a)), KokkosSpGEMM::InvalidInput);
  auto b = KokkosSpGEMM::uniform_random<double>(20, 10, 3, 4);
  const auto at = KokkosSpGEMM::transpose_with_source(exec, KokkosSpGEMM::copy_to(exec, b));
  const auto other = KokkosSpGEMM::uniform_random<double>(20, 10, 4, 4);
  EXPECT_THROW(KokkosSpGEMM::refresh_transpose_values(exec, at, KokkosSpGEMM::copy_to(exec, other)),
               KokkosSpGEMM::HandleMismatch);
}

TEST(TEST_CATEGORY, ata_and_aat_match_reference_and_reuse) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  for (const auto& a : transpose_cases()) {
    const auto at = transpose_host(a);
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    auto cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::spgemm_ata(exec, da), at, a);
    EXPECT_TRUE(cmp.ok) << "A^T A: " << cmp.message;
    cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::spgemm_aat<std::int64_t>(exec, da), a, at);
    EXPECT_TRUE(cmp.ok) << "A A^T: " << cmp.message;
    for (auto kind : {KokkosSpGEMM::TransposedProduct::AtA, KokkosSpGEMM::TransposedProduct::AAt}) {
      KokkosSpGEMM::TransposedProductHandle<Exec, double> h(kind);
      M c;
      EXPECT_THROW(KokkosSpGEMM::transposed_product_numeric(exec, h, da, c), KokkosSpGEMM::HandleMismatch);
      KokkosSpGEMM::transposed_product_symbolic(exec, h, da, c);
      for (int round = 0; round < 2; ++round) {
        const auto a2 = round == 0 ? a : with_new_values(a, 0.5, -1.0);
        KokkosSpGEMM::transposed_product_numeric(exec, h, KokkosSpGEMM::copy_to(exec, a2), c);
        const auto a2t = transpose_host(a2);
        cmp = kind == KokkosSpGEMM::TransposedProduct::AtA ? KokkosSpGEMM::compare_to_reference(c, a2t, a2)
                                                           : KokkosSpGEMM::compare_to_reference(c, a2, a2t);
        EXPECT_TRUE(cmp.ok) << h.describe() << " round " << round << ": " << cmp.message;
      }
    }
  }
}

}  // namespace KokkosSpGEMMTest
