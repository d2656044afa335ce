// The symbolic-once / numeric-many contract of the handle.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

TEST(TEST_CATEGORY, reuse_numeric_with_new_values) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(8, 6, 11);
  const auto b = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(16);
  for (const auto& o : all_paths()) {
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto db = KokkosSpGEMM::copy_to(exec, b);
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    EXPECT_EQ(static_cast<std::int64_t>(c.nnz()), handle.nnz());
    EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(c, a, b, o.sorted).ok);
    // New values, same structure: the result must follow them.
    for (int round = 1; round <= 2; ++round) {
      const auto a2 = with_new_values(a, -1.5 * round, 1.0);
      const auto b2 = with_new_values(b, 0.25, round);
      KokkosSpGEMM::spgemm_numeric(exec, handle, KokkosSpGEMM::copy_to(exec, a2), KokkosSpGEMM::copy_to(exec, b2), c);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, o.sorted);
      EXPECT_TRUE(cmp.ok) << "round " << round << ": " << cmp.message;
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
  KokkosSpGEMM::Options o;
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
  KokkosSpGEMM::Options o;
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
