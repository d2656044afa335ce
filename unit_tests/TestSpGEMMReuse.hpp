// The symbolic-once / numeric-many contract of the handle.
#include <SpGEMMTestHelpers.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace KokkosSpGEMMTest {

TEST(TEST_CATEGORY, reuse_numeric_with_new_values) {
  const auto a = KokkosSpGEMM::rmat<double, int, int>(8, 6, 11);
  const auto b = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(16);
  for (const auto& o : all_paths()) check_reuse_rounds<TEST_EXECSPACE>(a, b, o, "rmat(8,6) * p2d5(16)", 2);
}

// Reuse refreshes values in C's existing column order (Options::reuse_columns): rows reversed by hand stay
// reversed with the right values; with the option off, or after C's entries were spoiled, the full phase rewrites
// them; a fresh C gets its columns written. Every hash path and the one-long-row case (level-2 tables).
TEST(TEST_CATEGORY, reuse_refreshes_values_in_the_columns_of_c) {
  using Exec = TEST_EXECSPACE;
  using DeviceCsr = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto [long_a, long_b] = one_long_row_case();
  const std::vector<std::pair<HostCsr<double>, HostCsr<double>>> cases = {
      {KokkosSpGEMM::rmat<double, int, int>(8, 6, 11), KokkosSpGEMM::poisson_2d_5pt<double, int, int>(16)},
      {long_a, long_b}};
  auto paths = all_paths();
  paths.push_back(TestOptions());
  paths.back().deterministic = true;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    for (std::size_t m = 0; m < cases.size(); ++m) {
      const auto& [a, b] = cases[m];
      const std::string what = "path " + std::to_string(p) + ", case " + std::to_string(m);
      TestOptions o = paths[p];
      o.synchronous_checks = true;  // each call reads its own checks and redoes itself (on GPUs too)
      KokkosSpGEMM::Handle<Exec, double> handle(o);
      DeviceCsr c;
      const auto da = KokkosSpGEMM::copy_to(exec, a);
      const auto db = KokkosSpGEMM::copy_to(exec, b);
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
      const int* written = c.entries().data();

      // Reverse every row's columns by hand: a values-only refresh keeps that order.
      auto hc = reverse_rows_by_hand(c);
      const auto a2 = with_new_values(a, -1.5, 1.0);
      const auto b2 = with_new_values(b, 0.25, 2.0);
      const auto da2 = KokkosSpGEMM::copy_to(exec, a2);
      const auto db2 = KokkosSpGEMM::copy_to(exec, b2);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da2, db2, c);
      EXPECT_EQ(c.entries().data(), written) << what;
      auto cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, false);
      EXPECT_TRUE(cmp.ok) << what << ": " << cmp.message;
      auto h2 = KokkosSpGEMM::to_host(c);
      bool kept = true;
      for (std::size_t e = 0; e < h2.nnz(); ++e) kept = kept && h2.entries()(e) == hc.entries()(e);
      EXPECT_TRUE(kept) << what << ": the columns were rewritten";

      // Spoiled entries (-1 is never a column): the call notices and redoes the full phase.
      Kokkos::deep_copy(c.entries(), -1);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
      cmp = KokkosSpGEMM::compare_to_reference(c, a, b, paths[p].sorted);
      EXPECT_TRUE(cmp.ok) << what << " after spoiled entries: " << cmp.message;

      // A fresh C of the same row map gets its columns written (its entries are not the handle's).
      DeviceCsr fresh(c.num_rows(), c.num_cols(), c.row_map(),
                      typename DeviceCsr::entries_type("fresh entries", c.nnz()),
                      typename DeviceCsr::values_type("fresh values", c.nnz()));
      KokkosSpGEMM::spgemm_numeric(exec, handle, da2, db2, fresh);
      cmp = KokkosSpGEMM::compare_to_reference(fresh, a2, b2, paths[p].sorted);
      EXPECT_TRUE(cmp.ok) << what << " into a fresh C: " << cmp.message;

      // With reuse_columns off the full phase runs every time: reversed rows come back sorted.
      if (paths[p].sorted) {
        Kokkos::deep_copy(c.entries(), hc.entries());
        handle.tuning().reuse_columns = false;
        KokkosSpGEMM::spgemm_numeric(exec, handle, da2, db2, c);
        cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, true);
        EXPECT_TRUE(cmp.ok) << what << " with reuse_columns off: " << cmp.message;
      }
    }
  }
}

TEST(TEST_CATEGORY, reuse_with_other_structure_throws) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(10);
  const auto a_bigger = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(11);
  KokkosSpGEMM::Handle<Exec, double> handle;
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  EXPECT_THROW(KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c), KokkosSpGEMM::HandleMismatch);
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
  const auto db = KokkosSpGEMM::copy_to(exec, a_bigger);
  EXPECT_THROW(KokkosSpGEMM::spgemm_numeric(exec, handle, db, db, c), KokkosSpGEMM::HandleMismatch);
  // The handle still works for the analysed structure afterwards.
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
  EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, a).ok);
}

TEST(TEST_CATEGORY, reuse_with_same_counts_other_pattern_throws_when_checking) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  // Same shape and nnz, one column moved.
  const auto a = csr_from_rows<double>(3, 3, {{{0, 1.0}}, {{1, 1.0}}, {{2, 1.0}}});
  const auto a_moved = csr_from_rows<double>(3, 3, {{{0, 1.0}}, {{2, 1.0}}, {{2, 1.0}}});
  TestOptions o;
  o.check_structure = true;
  KokkosSpGEMM::Handle<Exec, double> handle(o);
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
  KokkosSpGEMM::spgemm_symbolic(exec, handle, KokkosSpGEMM::copy_to(exec, a), KokkosSpGEMM::copy_to(exec, a), c);
  EXPECT_THROW(KokkosSpGEMM::spgemm_numeric(exec, handle, KokkosSpGEMM::copy_to(exec, a_moved),
                                            KokkosSpGEMM::copy_to(exec, a), c),
               KokkosSpGEMM::HandleMismatch);
}

TEST(TEST_CATEGORY, describe_lists_bins_and_pool) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(9, 8, 3);
  TestOptions o;
  o.algorithm = KokkosSpGEMM::Algorithm::Hash;
  o.scratch_bytes = 512;
  KokkosSpGEMM::Handle<Exec, double> handle(o);
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
  const std::string d = handle.describe();
  EXPECT_NE(d.find("numeric bins"), std::string::npos) << d;
  EXPECT_NE(d.find("team-row"), std::string::npos) << d;
  EXPECT_NE(d.find(" l2 "), std::string::npos) << d;
  EXPECT_GT(handle.peak_extra_bytes(), 0u);
  EXPECT_LE(handle.kept_bytes(), c.nnz() * (sizeof(int) + sizeof(double)));
}

}  // namespace KokkosSpGEMMTest
