// The seed algorithms as paths of the pipeline on TEST_EXECSPACE: bhSPARSE's heap, ESC and merge row methods,
// the segmented-merge long-row method, their bhSPARSE combination and RMerge, against the reference (sorted output)
// on the generator families, special shapes, shared matrices, overflowing rows and reuse; B-row order errors.
#include <SpGEMMTestHelpers.hpp>

#include <KokkosSpGEMM_Methods.hpp>

#include <algorithm>
#include <tuple>

namespace KokkosSpGEMMTest {

/// A host copy of m with every row sorted by column (what the merging methods need of B).
template <class S, class O, class F>
HostCsr<S, O, F> sorted_copy(const HostCsr<S, O, F>& m) {
  HostCsr<S, O, F> out("sorted", m.num_rows(), m.num_cols(), m.nnz());
  Kokkos::deep_copy(out.row_map(), m.row_map());
  Kokkos::deep_copy(out.entries(), m.entries());
  Kokkos::deep_copy(out.values(), m.values());
  KokkosSpGEMM::sort_rows(Kokkos::DefaultHostExecutionSpace(), out);
  Kokkos::fence();
  return out;
}

inline std::vector<KokkosSpGEMM::Algorithm> seed_methods() {
  using A = KokkosSpGEMM::Algorithm;
  return {A::Heap, A::Esc, A::Merge, A::SegMerge, A::BhSparse, A::RMerge};
}

/// Every seed method, with the default scratch and with 512 bytes (ESC and merge rows then take pool chunks).
inline std::vector<TestOptions> seed_paths() {
  std::vector<TestOptions> paths;
  for (auto m : seed_methods()) {
    TestOptions o;
    o.algorithm = m;
    paths.push_back(o);
    o.scratch_bytes = 512;
    paths.push_back(o);
  }
  // A pool of one chunk: ESC/merge rows that overflow scratch wait for each other.
  TestOptions one_chunk;
  one_chunk.algorithm = KokkosSpGEMM::Algorithm::Merge;
  one_chunk.scratch_bytes = 512;
  one_chunk.pool_bytes_limit = 1;
  paths.push_back(one_chunk);
  one_chunk.algorithm = KokkosSpGEMM::Algorithm::SegMerge;  // groups of one row
  paths.push_back(one_chunk);
  return paths;
}

template <class T>
class SeedMethodsTyped : public ::testing::Test {};

using SeedMethodTypes = ::testing::Types<std::tuple<double, int, int>, std::tuple<Kokkos::complex<double>, int, int>,
                                         std::tuple<float, std::int64_t, std::int64_t>>;
TYPED_TEST_SUITE(SeedMethodsTyped, SeedMethodTypes);

TYPED_TEST(SeedMethodsTyped, stencils_rmat_rectangular) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  const auto p2 = KokkosSpGEMM::poisson_2d_5pt<S, O, F>(12);
  const auto p3 = KokkosSpGEMM::poisson_3d_27pt<S, O, F>(6);
  const auto r = sorted_copy(KokkosSpGEMM::rmat<S, O, F>(9, 8, 7));
  const auto a = sorted_copy(KokkosSpGEMM::uniform_random<S, O, F>(300, 170, 9, 1));
  const auto b = sorted_copy(KokkosSpGEMM::uniform_random<S, O, F>(170, 520, 14, 2));
  for (const auto& o : seed_paths()) {
    expect_matches_reference<TEST_EXECSPACE, KokkosSpGEMM::ResearchMethods>(p2, p2, o, "poisson_2d_5pt(12)^2");
    expect_matches_reference<TEST_EXECSPACE, KokkosSpGEMM::ResearchMethods>(p3, p3, o, "poisson_3d_27pt(6)^2");
    expect_matches_reference<TEST_EXECSPACE, KokkosSpGEMM::ResearchMethods>(r, r, o, "rmat(9,8)^2");
    expect_matches_reference<TEST_EXECSPACE, KokkosSpGEMM::ResearchMethods>(a, b, o, "300x170 * 170x520");
  }
}

TEST(TEST_CATEGORY, seed_methods_random_shapes) {
  // Empty matrices, empty rows, rectangular, power-law rows, one long row, duplicate-heavy columns.
  std::uint64_t seed = 41;
  for (const auto& [ao, bo] : random_shapes()) {
    const auto a = KokkosSpGEMM::random_csr<double, int, int>(ao, ++seed);
    const auto b = KokkosSpGEMM::random_csr<double, int, int>(bo, ++seed);
    for (const auto& o : seed_paths()) {
      expect_matches_reference<TEST_EXECSPACE, KokkosSpGEMM::ResearchMethods>(
          a, b, o, std::to_string(ao.rows) + "x" + std::to_string(ao.cols));
    }
  }
}

TEST(TEST_CATEGORY, seed_methods_long_row_and_duplicates_in_b) {
  // One row of C with 1e5 products from 1000 rows of B (longer than the heap's scratch and than one RMerge round),
  // rows of B repeating columns (sorted, so repeats are neighbours), and B with a single column.
  const auto [a, b_unsorted] = one_long_row_case();
  const auto b = sorted_copy(b_unsorted);
  std::vector<std::vector<std::pair<int, double>>> one_col(1000);
  for (int k = 0; k < 1000; k += 3) one_col[k].push_back({0, 1.0 + k});
  const auto b1 = csr_from_rows<double>(1000, 1, one_col);
  for (const auto& o : seed_paths()) {
    expect_matches_reference<TEST_EXECSPACE, KokkosSpGEMM::ResearchMethods>(a, b, o, "one row with 1e5 products");
    expect_matches_reference<TEST_EXECSPACE, KokkosSpGEMM::ResearchMethods>(a, b1, o, "B with one column");
  }
  // RMerge's handle takes its product totals from the bins' count pass, as the binned paths do.
  TEST_EXECSPACE exec;
  TestOptions rmerge;
  rmerge.algorithm = KokkosSpGEMM::Algorithm::RMerge;
  KokkosSpGEMM::MethodsHandle<TEST_EXECSPACE, double> handle(rmerge);
  KokkosSpGEMM::CsrMatrix<double, int, int, TEST_EXECSPACE::memory_space> c;
  KokkosSpGEMM::spgemm_symbolic(exec, handle, KokkosSpGEMM::copy_to(exec, a), KokkosSpGEMM::copy_to(exec, b), c);
  const auto [products, longest] = product_totals(a, b);
  EXPECT_EQ(products, 100100);  // row 1's 1e5 and row 2's 100
  EXPECT_EQ(longest, 100000);
  EXPECT_EQ(handle.products(), products);
  EXPECT_EQ(handle.max_row_products(), longest);
}

TEST(TEST_CATEGORY, seed_methods_reuse_with_new_values) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = sorted_copy(KokkosSpGEMM::rmat<double, int, int>(8, 8, 3));
  const auto p = KokkosSpGEMM::aggregation_prolongator<double, int, int>(8, 2, true);
  const auto a3 = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(8);
  for (auto m : seed_methods()) {
    TestOptions o;
    o.algorithm = m;
    for (int which = 0; which < 2; ++which) {
      const auto& left = which == 0 ? a : a3;
      const auto& right = which == 0 ? a : p;
      KokkosSpGEMM::MethodsHandle<Exec, double> handle(o);
      KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
      auto da = KokkosSpGEMM::copy_to(exec, left);
      auto db = KokkosSpGEMM::copy_to(exec, right);
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
      for (int round = 0; round < 2; ++round) {
        const auto l2 = with_new_values(left, 1.5 + round, 0.25);
        const auto r2 = with_new_values(right, 0.5, 1.0 + round);
        da = KokkosSpGEMM::copy_to(exec, l2);
        db = KokkosSpGEMM::copy_to(exec, r2);
        KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
        const auto cmp = KokkosSpGEMM::compare_to_reference(c, l2, r2);
        EXPECT_TRUE(cmp.ok) << KokkosSpGEMM::algorithm_name(m) << " case " << which << " round " << round << ": "
                            << cmp.message;
      }
      EXPECT_NE(handle.describe().find(KokkosSpGEMM::algorithm_name(m)), std::string::npos);
    }
  }
}

TEST(TEST_CATEGORY, seed_methods_shared_matrices) {
  using Exec = TEST_EXECSPACE;
  KOKKOSSPGEMM_NEED_TEST_MATRICES();
  Exec exec;
  for (const std::string name : {"ca-CondMat", "cage11", "bcsstk13", "lp_e226"}) {
    const auto a =
        sorted_copy(KokkosSpGEMM::read_matrix_market<double, int, int>(test_matrices_dir() + "/" + name + ".mtx.gz"));
    const auto b = a.num_rows() == a.num_cols() ? a : transpose_host(a);
    const auto reference = KokkosSpGEMM::reference_spgemm_with_bounds(a, b);
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto db = KokkosSpGEMM::copy_to(exec, b);
    for (auto m : seed_methods()) {
      TestOptions o;
      o.algorithm = m;
      const auto cmp = KokkosSpGEMM::compare_to_reference(KokkosSpGEMM::spgemm_methods(exec, da, db, o), reference);
      EXPECT_TRUE(cmp.ok) << name << " " << KokkosSpGEMM::algorithm_name(m) << ": " << cmp.message;
    }
  }
}

TEST(TEST_CATEGORY, seed_methods_merge_in_a_order) {
  // Heap, merge, segmented merge and RMerge fix the order of every sum: bitwise identical run to run. Merge and
  // segmented merge sum stored products in A's then B's order: bitwise the reference's sums. (The heap sums in
  // that order too, but fuses a*b into the sum, which GPU compilers turn into FMAs: equal within rounding.)
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = sorted_copy(KokkosSpGEMM::rmat<double, int, int>(9, 8, 11));
  const auto reference = KokkosSpGEMM::reference_spgemm(a, a);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  using A = KokkosSpGEMM::Algorithm;
  for (auto m : {A::Heap, A::Merge, A::SegMerge, A::RMerge}) {
    TestOptions o;
    o.algorithm = m;
    const auto c = KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm_methods(exec, da, da, o));
    const auto again = KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm_methods(exec, da, da, o));
    ASSERT_EQ(c.nnz(), reference.nnz()) << KokkosSpGEMM::algorithm_name(m);
    ASSERT_EQ(again.nnz(), reference.nnz()) << KokkosSpGEMM::algorithm_name(m);
    std::size_t differ = 0, differ_runs = 0;
    for (std::size_t e = 0; e < c.nnz(); ++e) {
      differ += c.entries()(e) != reference.entries()(e) || c.values()(e) != reference.values()(e);
      differ_runs += again.values()(e) != c.values()(e);
    }
    EXPECT_EQ(differ_runs, 0u) << KokkosSpGEMM::algorithm_name(m);
    if (m == A::Merge || m == A::SegMerge) EXPECT_EQ(differ, 0u) << KokkosSpGEMM::algorithm_name(m);
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
    EXPECT_TRUE(cmp.ok) << KokkosSpGEMM::algorithm_name(m) << ": " << cmp.message;
  }
}

TEST(TEST_CATEGORY, seed_methods_unsorted_b) {
  // Merging methods reject a B whose rows are not sorted, naming the row; ESC sorts its products and accepts it.
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = csr_from_rows<double>(2, 3, {{{0, 1.0}, {2, 2.0}}, {{1, 3.0}}});
  const auto b = csr_from_rows<double>(3, 4, {{{0, 1.0}, {3, 1.0}}, {{2, 1.0}}, {{3, 2.0}, {1, 5.0}}});
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  using A = KokkosSpGEMM::Algorithm;
  for (auto m : {A::Heap, A::Merge, A::SegMerge, A::BhSparse, A::RMerge}) {
    TestOptions o;
    o.algorithm = m;
    try {
      KokkosSpGEMM::spgemm_methods(exec, da, db, o);
      ADD_FAILURE() << KokkosSpGEMM::algorithm_name(m) << " accepted an unsorted B";
    } catch (const KokkosSpGEMM::InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("row 2 of B"), std::string::npos) << e.what();
    }
  }
  TestOptions esc;
  esc.algorithm = A::Esc;
  expect_matches_reference<Exec, KokkosSpGEMM::ResearchMethods>(a, b, esc, "ESC with unsorted B");
}

TEST(TEST_CATEGORY, auto_merges_long_incompressible_bins) {
  // Rows of C with ~1600 products and hardly a repeated column: on GPUs (sorted output) Auto's numeric phase
  // merges those bins; with a B whose rows are not sorted, or rows of A longer than 48 on average, it keeps
  // hashing. All match the reference.
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = sorted_copy(KokkosSpGEMM::uniform_random<double, int, int>(300, 2000, 40, 5));
  const auto b = sorted_copy(KokkosSpGEMM::uniform_random<double, int, int>(2000, 200000, 40, 6));
  auto b_reversed = sorted_copy(b);  // every row descending: not sorted
  for (int i = 0; i < b_reversed.num_rows(); ++i) {
    std::reverse(b_reversed.entries().data() + b_reversed.row_map()(i),
                 b_reversed.entries().data() + b_reversed.row_map()(i + 1));
    std::reverse(b_reversed.values().data() + b_reversed.row_map()(i),
                 b_reversed.values().data() + b_reversed.row_map()(i + 1));
  }
  // Auto merges only where wide rows keep hash tables (where the bitmap accumulator serves, it skips merging:
  // B's 200,000 columns fit a team's scratch as a bitmap; TestWideRows covers that choice).
  TestOptions hashed_wide_rows;
  hashed_wide_rows.wide_rows = KokkosSpGEMM::WideRows::Hash;
  for (int sorted_b = 0; sorted_b < 2; ++sorted_b) {
    const auto& right = sorted_b ? b : b_reversed;
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto db = KokkosSpGEMM::copy_to(exec, right);
    KokkosSpGEMM::Handle<Exec, double> handle(hashed_wide_rows);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, right);
    EXPECT_TRUE(cmp.ok) << "sorted B " << sorted_b << ": " << cmp.message;
    const bool merged = handle.describe().find("merge-path") != std::string::npos;
    EXPECT_EQ(merged, KokkosSpGEMM::BackendTraits<Exec>::is_gpu && sorted_b == 1) << handle.describe();
    if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
      // The merge bins' pool (a chunk per concurrent team would be ~10x C here) is held to the size of C; beside
      // it, a fresh C within the temporary cache's limit is written there first (staged) on CUDA.
      const std::size_t c_bytes = c.nnz() * (sizeof(int) + sizeof(double));
      EXPECT_LE(handle.peak_extra_bytes(), 2 * c_bytes + 1024) << handle.describe();
    }
  }
  // As many products from rows of A of 64 entries (more merge rounds): Auto keeps hashing.
  const auto a_long = sorted_copy(KokkosSpGEMM::uniform_random<double, int, int>(300, 2000, 64, 7));
  const auto b_short = sorted_copy(KokkosSpGEMM::uniform_random<double, int, int>(2000, 200000, 25, 8));
  KokkosSpGEMM::Handle<Exec, double> handle(hashed_wide_rows);
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
  const auto da = KokkosSpGEMM::copy_to(exec, a_long);
  const auto db = KokkosSpGEMM::copy_to(exec, b_short);
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
  const auto cmp = KokkosSpGEMM::compare_to_reference(c, a_long, b_short);
  EXPECT_TRUE(cmp.ok) << "long rows of A: " << cmp.message;
  EXPECT_EQ(handle.describe().find("merge-path"), std::string::npos) << handle.describe();
}

TEST(TEST_CATEGORY, seed_methods_names) {
  for (const auto& name : KokkosSpGEMM::algorithm_names()) {
    KokkosSpGEMM::Algorithm a;
    ASSERT_TRUE(KokkosSpGEMM::parse_algorithm(name, a)) << name;
    EXPECT_EQ(name, KokkosSpGEMM::algorithm_name(a));
  }
  KokkosSpGEMM::Algorithm a;
  EXPECT_FALSE(KokkosSpGEMM::parse_algorithm("quicksort", a));
}

}  // namespace KokkosSpGEMMTest
