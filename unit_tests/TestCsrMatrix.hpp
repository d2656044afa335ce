// CSR type and host <-> device mirrors on TEST_EXECSPACE.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

TEST(TEST_CATEGORY, csr_round_trip_through_execution_space) {
  TEST_EXECSPACE exec;
  const auto a = KokkosSpGEMM::uniform_random<Kokkos::complex<double>, std::int64_t, std::int64_t>(40, 30, 5, 9);
  const auto d = KokkosSpGEMM::copy_to(exec, a);
  static_assert(std::is_same<typename decltype(d)::memory_space, TEST_EXECSPACE::memory_space>::value, "");
  EXPECT_EQ(d.num_rows(), 40);
  EXPECT_EQ(d.num_cols(), 30);
  EXPECT_EQ(d.nnz(), a.nnz());
  const auto back = KokkosSpGEMM::to_host(d);
  for (std::int64_t i = 0; i <= 40; ++i) EXPECT_EQ(back.row_map()(i), a.row_map()(i));
  for (std::size_t e = 0; e < a.nnz(); ++e) {
    EXPECT_EQ(back.entries()(e), a.entries()(e));
    EXPECT_EQ(back.values()(e), a.values()(e));
  }
}

TEST(TEST_CATEGORY, csr_allocating_constructor) {
  KokkosSpGEMM::CsrMatrix<float, int, std::size_t, TEST_EXECSPACE::memory_space> m("m", 7, 3, 11);
  EXPECT_EQ(m.row_map().extent(0), 8u);
  EXPECT_EQ(m.nnz(), 11u);
  EXPECT_EQ(m.values().extent(0), 11u);
  // Only the row map is initialised (zeros); entries and values are the caller's to write.
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.row_map());
  for (int i = 0; i <= 7; ++i) EXPECT_EQ(h(i), 0u);
}

}  // namespace KokkosSpGEMMTest
