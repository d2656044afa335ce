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

}  // namespace KokkosSpGEMMTest
