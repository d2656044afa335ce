// Kokkos Kernels interop (built only when Kokkos Kernels is found): CrsMatrix conversions both ways, then a
// multiplication of the converted matrices.
#include <SpGEMMTestHelpers.hpp>
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>

namespace KokkosSpGEMMTest {

TEST(TEST_CATEGORY, interop_kokkoskernels_round_trip_and_multiply) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(8, 6, 2);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto kk = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(da);
  EXPECT_EQ(kk.numRows(), a.num_rows());
  EXPECT_EQ(kk.numCols(), a.num_cols());
  EXPECT_EQ(static_cast<std::size_t>(kk.nnz()), a.nnz());
  EXPECT_EQ(kk.values.data(), da.values().data());  // shared, not copied
  const auto back = KokkosSpGEMM::Interop::from_kokkoskernels(kk);
  static_assert(std::is_same<typename decltype(back)::memory_space, Exec::memory_space>::value, "");
  const auto c = KokkosSpGEMM::spgemm(exec, back, back);
  const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
  EXPECT_TRUE(cmp.ok) << cmp.message;
}

// The switch from KokkosSparse::spgemm_symbolic/numeric: same CrsMatrix-level calls, our handle and namespace; every
// transpose mode, reuse with new values, and the one-shot form.
TEST(TEST_CATEGORY, interop_crsmatrix_entry_points) {
  using Exec = TEST_EXECSPACE;
  using KK = KokkosSpGEMM::Interop::KokkosKernelsMatrix<Exec, double, int, int>;
  Exec exec;
  const auto a = KokkosSpGEMM::uniform_random<double>(60, 45, 4, 1);
  const auto b = KokkosSpGEMM::uniform_random<double>(60, 45, 5, 2);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  const auto at = transpose_host(a);
  const auto bt = transpose_host(b);
  struct Mode {
    bool ta, tb;
    HostCsr<double> left, right;
  };
  // A and B are both 60 x 45: the shapes that agree are A^T*B, A*B^T, and A times B^T given as a matrix.
  const std::vector<Mode> modes = {{true, false, at, b}, {false, true, a, bt}, {false, false, a, bt}};
  for (const auto& m : modes) {
    const KK ka = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(da);
    const KK kb = m.ta || m.tb ? KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(db)
                               : KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(KokkosSpGEMM::copy_to(exec, bt));
    KokkosSpGEMM::Interop::SpGEMMHandleFor<KK> kh;
    KK kc;
    KokkosSpGEMM::Interop::spgemm_symbolic(kh, ka, m.ta, kb, m.tb, kc);
    EXPECT_EQ(static_cast<std::int64_t>(kc.nnz()), kh.nnz());
    KokkosSpGEMM::Interop::spgemm_numeric(kh, ka, m.ta, kb, m.tb, kc);
    auto cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::Interop::from_kokkoskernels(kc), m.left, m.right);
    EXPECT_TRUE(cmp.ok) << m.ta << m.tb << ": " << cmp.message;
    // New values of A (same structure) reach C, through the kept transpose when A is transposed.
    const auto a2 = with_new_values(a, 2.0, -0.5);
    const KK ka2 = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(KokkosSpGEMM::copy_to(exec, a2));
    KokkosSpGEMM::Interop::spgemm_numeric(kh, ka2, m.ta, kb, m.tb, kc);
    const auto left2 = m.ta ? transpose_host(a2) : a2;
    cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::Interop::from_kokkoskernels(kc), left2, m.right);
    EXPECT_TRUE(cmp.ok) << m.ta << m.tb << " new values: " << cmp.message;
    EXPECT_THROW(KokkosSpGEMM::Interop::spgemm_numeric(kh, ka, !m.ta, kb, m.tb, kc), KokkosSpGEMM::HandleMismatch);
    const KK one_shot = KokkosSpGEMM::Interop::spgemm<KK>(ka, m.ta, kb, m.tb);
    cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::Interop::from_kokkoskernels(one_shot), m.left, m.right);
    EXPECT_TRUE(cmp.ok) << m.ta << m.tb << " one-shot: " << cmp.message;
  }
  // Both transposed: A^T * (A^T)^T = A^T*A.
  {
    const KK ka = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(da);
    const KK kat = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(KokkosSpGEMM::copy_to(exec, at));
    const KK c = KokkosSpGEMM::Interop::spgemm<KK>(ka, true, kat, true);  // A^T * A
    const auto cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::Interop::from_kokkoskernels(c), at, a);
    EXPECT_TRUE(cmp.ok) << "both transposed: " << cmp.message;
  }
  // Mismatched shapes are refused with our typed error.
  const KK ka = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(da);
  KokkosSpGEMM::Interop::SpGEMMHandleFor<KK> kh;
  KK kc;
  EXPECT_THROW(KokkosSpGEMM::Interop::spgemm_symbolic(kh, ka, false, ka, false, kc), KokkosSpGEMM::DimensionMismatch);
}

#if defined(KOKKOSSPGEMM_HAVE_KOKKOSKERNELS_BSR)
TEST(TEST_CATEGORY, interop_bsr_round_trip_and_block_product_against_kokkos_kernels) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  const auto a = KokkosSpGEMM::to_bsr(exec, KokkosSpGEMM::block_stencil_3d_27pt<double>(4, 3), 3);
  const auto kk = KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(a);
  EXPECT_EQ(kk.numRows(), a.num_block_rows());
  EXPECT_EQ(kk.blockDim(), 3);
  const auto back = KokkosSpGEMM::to_host(KokkosSpGEMM::Interop::from_kokkoskernels_bsr(kk));
  const auto orig = KokkosSpGEMM::to_host(a);
  ASSERT_EQ(back.values().extent(0), orig.values().extent(0));
  for (std::size_t x = 0; x < orig.values().extent(0); ++x) ASSERT_EQ(back.values()(x), orig.values()(x));
  // Kokkos Kernels' block product of the same matrices against ours (its rows may be unsorted).
  using KH =
      KokkosKernels::Experimental::KokkosKernelsHandle<int, int, double, Exec, Exec::memory_space, Exec::memory_space>;
  KH kh;
  kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
  decltype(KokkosSpGEMM::Interop::to_kokkoskernels<Exec>(a)) kc;
  KokkosSparse::block_spgemm_symbolic(kh, kk, false, kk, false, kc);
  KokkosSparse::block_spgemm_numeric(kh, kk, false, kk, false, kc);
  const auto theirs =
      KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(KokkosSpGEMM::Interop::from_kokkoskernels_bsr(kc)));
  const auto ours = KokkosSpGEMM::to_csr(host, KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm(exec, a, a)));
  const auto ref =
      KokkosSpGEMM::reference_spgemm_with_bounds(KokkosSpGEMM::to_csr(host, orig), KokkosSpGEMM::to_csr(host, orig));
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(ours, ref, true).ok);
  const auto cmp = KokkosSpGEMM::compare_to_reference(theirs, ref, false);
  EXPECT_TRUE(cmp.ok) << cmp.message;
}
#endif

}  // namespace KokkosSpGEMMTest
