// The CPU + GPU split: the test space as the device and the default host space as the host (the same space in host
// builds, where the two parts run one after the other); every share of the products gives the reference's C.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

TEST(TEST_CATEGORY, host_device_split_matches_reference) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  std::vector<std::pair<HostCsr<double>, HostCsr<double>>> cases;
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(10, 8, 5);  // hub rows: the host gets them
  cases.push_back({rmat, rmat});
  for (const auto& [a, b] : random_shapes()) {
    cases.push_back({KokkosSpGEMM::random_csr<double>(a, 11), KokkosSpGEMM::random_csr<double>(b, 12)});
  }
  int index = 0;
  for (const auto& [a, b] : cases) {
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto db = KokkosSpGEMM::copy_to(exec, b);
    for (double fraction : {0.0, 0.05, 0.3, 0.7, 1.0}) {
      KokkosSpGEMM::SplitOptions o;
      o.host_fraction = fraction;
      KokkosSpGEMM::SplitReport report;
      const auto c = KokkosSpGEMM::spgemm_split(exec, host, da, db, o, {}, &report);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, b);
      EXPECT_TRUE(cmp.ok) << "case " << index << ", fraction " << fraction << ": " << cmp.message;
      EXPECT_LE(report.host_products, report.products);
      if (fraction == 1.0) EXPECT_EQ(report.host_products, report.products) << index;
      if (fraction == 0.0) EXPECT_EQ(report.host_products, 0) << index;
    }
    ++index;
  }
  // On R-MAT a quarter of the products moves its hub rows to the host, near that share.
  KokkosSpGEMM::SplitOptions o;
  o.host_fraction = 0.25;
  KokkosSpGEMM::SplitReport report;
  KokkosSpGEMM::spgemm_split(exec, host, KokkosSpGEMM::copy_to(exec, rmat), KokkosSpGEMM::copy_to(exec, rmat), o, {},
                             &report);
  EXPECT_GT(report.host_products, 0);
  EXPECT_LT(report.host_products, 0.6 * report.products);
  EXPECT_GT(report.threshold, 1);
  EXPECT_EQ(report.concurrent, (!std::is_same<Exec, Kokkos::DefaultHostExecutionSpace>::value));
}

TEST(TEST_CATEGORY, host_device_split_errors) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  Kokkos::DefaultHostExecutionSpace host;
  const auto a = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::uniform_random<double>(20, 10, 3, 1));
  KokkosSpGEMM::SplitOptions o;
  o.host_fraction = 1.5;
  EXPECT_THROW(KokkosSpGEMM::spgemm_split(exec, host, a, KokkosSpGEMM::transpose(exec, a), o),
               KokkosSpGEMM::InvalidInput);
  o.host_fraction = 0.5;
  EXPECT_THROW(KokkosSpGEMM::spgemm_split(exec, host, a, a, o), KokkosSpGEMM::DimensionMismatch);
}

}  // namespace KokkosSpGEMMTest
