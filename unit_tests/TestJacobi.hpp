// The Jacobi-smoothed product C = P - w D^-1 A P: every accumulator path against the reference (stencils with
// aggregation prolongators, random A with missing and repeated diagonals, empty and rectangular shapes), reuse with
// new values of A, P, w and D^-1, row blocks under a memory budget, 64-bit offsets, inverse_diagonal, and the errors.
#include <SpGEMMTestHelpers.hpp>

#include <cmath>
#include <limits>

namespace KokkosSpGEMMTest {

/// (A, P) pairs: square A with as many rows as P.
inline std::vector<std::pair<HostCsr<double>, HostCsr<double>>> jacobi_cases() {
  std::vector<std::pair<HostCsr<double>, HostCsr<double>>> cases;
  cases.push_back(
      {KokkosSpGEMM::poisson_3d_7pt<double>(9), KokkosSpGEMM::aggregation_prolongator<double>(9, 2, false)});
  cases.push_back(
      {KokkosSpGEMM::poisson_3d_27pt<double>(7), KokkosSpGEMM::aggregation_prolongator<double>(7, 2, false)});
  // A smoothed P: longer rows of P, so wider rows of C.
  cases.push_back({KokkosSpGEMM::poisson_3d_7pt<double>(8), KokkosSpGEMM::aggregation_prolongator<double>(8, 2, true)});
  // An elasticity-like block operator and its block tentative prolongator (GPUs: lanes over A's rows).
  cases.push_back(
      {KokkosSpGEMM::block_stencil_3d_27pt<double>(5, 3), KokkosSpGEMM::tentative_prolongator<double>(5, 3, 2, 3)});
  // Random A: power-law rows, empty rows (no diagonal: those rows of C are P's), rectangular P with a long row.
  KokkosSpGEMM::RandomCsrOptions<int> ao, po;
  ao.rows = 400, ao.cols = 400, ao.mean_per_row = 7, ao.power_law = true, ao.empty_row_fraction = 0.1;
  po.rows = 400, po.cols = 90, po.mean_per_row = 3, po.long_row_length = 90, po.empty_row_fraction = 0.1;
  cases.push_back({KokkosSpGEMM::random_csr<double>(ao, 7), KokkosSpGEMM::random_csr<double>(po, 8)});
  // Repeated and unsorted entries, the diagonal among them twice (the identity is added once), a row whose only
  // entry is off the diagonal, and an empty row.
  cases.push_back(
      {csr_from_rows<double>(
           4, 4, {{{2, 1.0}, {0, 2.0}, {0, 0.5}, {2, -1.0}}, {{3, 1.5}}, {}, {{3, 4.0}, {1, -2.0}, {1, 1.0}}}),
       csr_from_rows<double>(4, 3, {{{0, 1.0}}, {{1, 2.0}, {2, -1.0}}, {{2, 3.0}}, {{0, 0.5}, {1, 1.0}}})});
  // A without entries (C = P), and 0 x 0 operands.
  KokkosSpGEMM::RandomCsrOptions<int> z;
  z.rows = 50, z.cols = 50, z.mean_per_row = 0;
  po.rows = 50, po.cols = 20, po.long_row_length = 0;
  cases.push_back({KokkosSpGEMM::random_csr<double>(z, 9), KokkosSpGEMM::random_csr<double>(po, 10)});
  z.rows = 0, z.cols = 0;
  po.rows = 0, po.cols = 5;
  cases.push_back({KokkosSpGEMM::random_csr<double>(z, 11), KokkosSpGEMM::random_csr<double>(po, 12)});
  return cases;
}

/// D^-1 with values that vary by row (not only 1 / a_ii: any vector is allowed).
inline std::vector<double> jacobi_scaling(int rows, double shift) {
  std::vector<double> d(rows);
  for (int i = 0; i < rows; ++i) d[i] = 0.25 + shift + 0.125 * (i % 5);
  return d;
}

template <class Exec>
Kokkos::View<double*, typename Exec::memory_space> to_device(const Exec& exec, const std::vector<double>& d) {
  Kokkos::View<double*, typename Exec::memory_space> out("dinv", d.size());
  Kokkos::deep_copy(exec, out, Kokkos::View<const double*, Kokkos::HostSpace>(d.data(), d.size()));
  exec.fence();
  return out;
}

template <class M>
void expect_jacobi_matches(const M& c, double omega, const std::vector<double>& dinv, const HostCsr<double>& a,
                           const HostCsr<double>& p, bool sorted, const std::string& what) {
  const auto ref = KokkosSpGEMM::reference_jacobi_with_bounds(omega, dinv, a, p);
  const auto cmp = KokkosSpGEMM::compare_to_reference(c, ref, sorted);
  EXPECT_TRUE(cmp.ok) << what << ": " << cmp.message;
}

TEST(TEST_CATEGORY, jacobi_matches_reference_on_every_path_and_reuses) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  auto paths = all_paths();
  paths.push_back(TestOptions());
  paths.back().deterministic = true;
  paths.push_back(TestOptions());
  paths.back().algorithm = KokkosSpGEMM::Algorithm::Merge;
  int index = 0;
  for (const auto& [a, p] : jacobi_cases()) {
    for (std::size_t path = 0; path < paths.size(); ++path) {
      const auto& o = paths[path];
      const std::string what = "case " + std::to_string(index) + ", path " + std::to_string(path);
      const auto da = KokkosSpGEMM::copy_to(exec, a);
      const auto dp = KokkosSpGEMM::copy_to(exec, p);
      const auto d1 = jacobi_scaling(a.num_rows(), 0.0);
      // One-shot.
      const M c1 = KokkosSpGEMM::jacobi_spgemm(exec, 2.0 / 3.0, to_device(exec, d1), da, dp, o, o);
      expect_jacobi_matches(c1, 2.0 / 3.0, d1, a, p, o.sorted, what + ", one-shot");
      // Through a handle, then new values of everything (the first reuse call makes the position map, the next
      // ones replay it).
      KokkosSpGEMM::JacobiHandle<Exec, double> h(o, o);
      M c;
      KokkosSpGEMM::jacobi_spgemm(exec, h, 0.5, to_device(exec, d1), da, dp, c);
      EXPECT_EQ(h.nnz(), static_cast<std::int64_t>(c1.nnz())) << what;
      expect_jacobi_matches(c, 0.5, d1, a, p, o.sorted, what + ", handle");
      for (int round = 1; round <= 3; ++round) {
        const auto a2 = with_new_values(a, -1.5 * round, 1.0);
        const auto p2 = with_new_values(p, 0.25, round);
        const auto d2 = jacobi_scaling(a.num_rows(), round);
        const double omega = 0.8 / round;
        KokkosSpGEMM::jacobi_spgemm(exec, h, omega, to_device(exec, d2), KokkosSpGEMM::copy_to(exec, a2),
                                    KokkosSpGEMM::copy_to(exec, p2), c);
        expect_jacobi_matches(c, omega, d2, a2, p2, o.sorted, what + ", round " + std::to_string(round));
      }
    }
    ++index;
  }
}

// A 2D 5-point operator times its tentative prolongator: rows of the operand of 5 entries over rows of P of one, in
// a bin that fills a GPU, which then merges them from registers with the operand's values computed as read.
TEST(TEST_CATEGORY, jacobi_short_rows_merged_from_registers) {
  using Exec = TEST_EXECSPACE;
  using Traits = KokkosSpGEMM::BackendTraits<Exec>;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a = KokkosSpGEMM::poisson_2d_5pt<double>(100);
  const auto p = KokkosSpGEMM::tentative_prolongator<double>(100, 2, 2);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  const auto d1 = jacobi_scaling(a.num_rows(), 0.0);
  const M c1 = KokkosSpGEMM::jacobi_spgemm(exec, 2.0 / 3.0, to_device(exec, d1), da, dp);
  expect_jacobi_matches(c1, 2.0 / 3.0, d1, a, p, true, "one-shot");
  KokkosSpGEMM::JacobiHandle<Exec, double> h;
  M c;
  KokkosSpGEMM::jacobi_spgemm(exec, h, 0.5, to_device(exec, d1), da, dp, c);
  expect_jacobi_matches(c, 0.5, d1, a, p, true, "handle");
  const auto a2 = with_new_values(a, -1.5, 1.0);
  const auto d2 = jacobi_scaling(a.num_rows(), 1);
  KokkosSpGEMM::jacobi_spgemm(exec, h, 0.8, to_device(exec, d2), KokkosSpGEMM::copy_to(exec, a2), dp, c);
  expect_jacobi_matches(c, 0.8, d2, a2, p, true, "new values");
  // Interior rows: 96^2 of 5 products in one bin.
  if (Traits::is_gpu && 96 * 96 * Traits::max_vector_length >= KokkosSpGEMM::Impl::concurrency(exec)) {
    EXPECT_NE(h.describe().find("merge-registers"), std::string::npos) << h.describe();
  }
}

// A 3D 27-point operator times its tentative prolongator with rows enough to fill the device a thread a row: on GPUs
// the numeric phase accumulates the rows of C (8 entries from 27 products) in registers, the operand's values
// computed as read; one-shot and reuse (through the position map and into C's known columns) with new values.
TEST(TEST_CATEGORY, jacobi_short_rows_of_c_accumulated_in_registers) {
  using Exec = TEST_EXECSPACE;
  using Traits = KokkosSpGEMM::BackendTraits<Exec>;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const int n = grid_sides_for_rows(KokkosSpGEMM::Impl::concurrency(exec) * 5 / 4).second;
  const auto a = KokkosSpGEMM::poisson_3d_27pt<double>(n);
  const auto p = KokkosSpGEMM::tentative_prolongator<double>(n, 3, 2);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  const auto d1 = jacobi_scaling(a.num_rows(), 0.0);
  const M c1 = KokkosSpGEMM::jacobi_spgemm(exec, 2.0 / 3.0, to_device(exec, d1), da, dp);
  expect_jacobi_matches(c1, 2.0 / 3.0, d1, a, p, true, "one-shot");
  TestOptions no_map;
  no_map.reuse_positions = false;
  for (const TestOptions& o : {TestOptions(), no_map}) {
    const std::string what = o.reuse_positions ? "reuse" : "reuse, no map";
    KokkosSpGEMM::JacobiHandle<Exec, double> h(o, o);
    M c;
    KokkosSpGEMM::jacobi_spgemm(exec, h, 0.5, to_device(exec, d1), da, dp, c);
    expect_jacobi_matches(c, 0.5, d1, a, p, true, what + ", handle");
    for (int round = 1; round <= 2; ++round) {
      const auto a2 = with_new_values(a, -1.5 * round, 1.0);
      const auto p2 = with_new_values(p, 0.25, round);
      const auto d2 = jacobi_scaling(a.num_rows(), round);
      KokkosSpGEMM::jacobi_spgemm(exec, h, 0.8, to_device(exec, d2), KokkosSpGEMM::copy_to(exec, a2),
                                  KokkosSpGEMM::copy_to(exec, p2), c);
      expect_jacobi_matches(c, 0.8, d2, a2, p2, true, what + ", round " + std::to_string(round));
    }
    EXPECT_EQ(h.describe().find("accumulate-registers") != std::string::npos, Traits::is_gpu) << h.describe();
  }
}

// The operand kept when A lacks diagonals follows A's new values; 64-bit offsets for C (and the kept operand).
TEST(TEST_CATEGORY, jacobi_keeps_a_completed_operand_and_takes_64_bit_offsets) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto cases = jacobi_cases();
  const auto& [a, p] = cases[4];  // random A: empty rows have no diagonal
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  const auto d = jacobi_scaling(a.num_rows(), 0.5);
  KokkosSpGEMM::JacobiHandle<Exec, double, int, std::int64_t> h;
  KokkosSpGEMM::CsrMatrix<double, int, std::int64_t, Exec::memory_space> c;
  KokkosSpGEMM::jacobi_spgemm_symbolic(exec, h, da, dp, c);
  int without = 0;
  for (int i = 0; i < a.num_rows(); ++i) {
    bool found = false;
    for (int e = a.row_map()(i); e < a.row_map()(i + 1); ++e) found = found || a.entries()(e) == i;
    without += found ? 0 : 1;
  }
  ASSERT_GT(without, 0);
  EXPECT_EQ(h.inserted_diagonals(), without);
  EXPECT_NE(h.describe().find("diagonal entries inserted"), std::string::npos) << h.describe();
  KokkosSpGEMM::jacobi_spgemm_numeric(exec, h, 0.7, to_device(exec, d), da, dp, c);
  expect_jacobi_matches(c, 0.7, d, a, p, true, "64-bit offsets");
  const auto a2 = with_new_values(a, 3.0, -1.0);
  KokkosSpGEMM::jacobi_spgemm_numeric(exec, h, 0.7, to_device(exec, d), KokkosSpGEMM::copy_to(exec, a2), dp, c);
  expect_jacobi_matches(c, 0.7, d, a2, p, true, "64-bit offsets, new values of A");
  // A with every diagonal is used in place: nothing kept beyond the product's analysis and the diagonal positions.
  const auto& [s, sp] = cases[0];
  KokkosSpGEMM::JacobiHandle<Exec, double> hs;
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> cs;
  KokkosSpGEMM::jacobi_spgemm_symbolic(exec, hs, KokkosSpGEMM::copy_to(exec, s), KokkosSpGEMM::copy_to(exec, sp), cs);
  EXPECT_EQ(hs.inserted_diagonals(), 0);
  EXPECT_EQ(hs.kept_bytes(), hs.product().kept_bytes() + s.num_rows() * sizeof(int));
}

// Rows in blocks under a memory budget: each block's rows find their diagonal and D^-1 at their global index.
TEST(TEST_CATEGORY, jacobi_in_row_blocks_under_a_memory_budget) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a = KokkosSpGEMM::poisson_3d_7pt<double>(24);
  const auto p = KokkosSpGEMM::aggregation_prolongator<double>(24, 2, false);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  const auto d = jacobi_scaling(a.num_rows(), 0.0);
  KokkosSpGEMM::JacobiHandle<Exec, double> free_handle;
  M c0;
  KokkosSpGEMM::jacobi_spgemm_symbolic(exec, free_handle, da, dp, c0);
  const std::size_t c_bytes = static_cast<std::size_t>(free_handle.nnz()) * 12 + (a.num_rows() + 1) * sizeof(int);
  TestOptions o;
  o.memory_budget_bytes = c_bytes + free_handle.product().kept_bytes() + 200000;
  KokkosSpGEMM::JacobiHandle<Exec, double> h(o);
  M c;
  KokkosSpGEMM::jacobi_spgemm(exec, h, 0.6, to_device(exec, d), da, dp, c);
  EXPECT_GT(h.product().row_chunks(), 1u) << h.describe();
  expect_jacobi_matches(c, 0.6, d, a, p, true, "row blocks");
  for (int round = 1; round <= 2; ++round) {
    const auto a2 = with_new_values(a, 0.5 * round, 1.0);
    KokkosSpGEMM::jacobi_spgemm(exec, h, 0.6, to_device(exec, d), KokkosSpGEMM::copy_to(exec, a2), dp, c);
    expect_jacobi_matches(c, 0.6, d, a2, p, true, "row blocks, round " + std::to_string(round));
  }
}

TEST(TEST_CATEGORY, inverse_diagonal_inverts_the_summed_diagonal_and_names_a_zero_one) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = csr_from_rows<double>(3, 3, {{{0, 2.0}, {0, 2.0}, {1, 1.0}}, {{1, -0.5}}, {{0, 1.0}, {2, 8.0}}});
  const auto d = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), KokkosSpGEMM::inverse_diagonal(exec, KokkosSpGEMM::copy_to(exec, a)));
  EXPECT_EQ(d(0), 0.25);
  EXPECT_EQ(d(1), -2.0);
  EXPECT_EQ(d(2), 0.125);
  const auto missing = csr_from_rows<double>(3, 3, {{{0, 2.0}}, {{1, 1.0}}, {{0, 1.0}}});
  try {
    KokkosSpGEMM::inverse_diagonal(exec, KokkosSpGEMM::copy_to(exec, missing));
    ADD_FAILURE() << "no error for a missing diagonal";
  } catch (const KokkosSpGEMM::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
  const auto zero = csr_from_rows<double>(2, 2, {{{0, 1.0}, {0, -1.0}}, {{1, 1.0}}});
  EXPECT_THROW(KokkosSpGEMM::inverse_diagonal(exec, KokkosSpGEMM::copy_to(exec, zero)), KokkosSpGEMM::InvalidInput);
  const auto wide = csr_from_rows<double>(2, 3, {{{0, 1.0}}, {{1, 1.0}}});
  EXPECT_THROW(KokkosSpGEMM::inverse_diagonal(exec, KokkosSpGEMM::copy_to(exec, wide)),
               KokkosSpGEMM::DimensionMismatch);
}

TEST(TEST_CATEGORY, jacobi_rejects_bad_input_with_typed_errors) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a = KokkosSpGEMM::poisson_3d_7pt<double>(4);
  const auto p = KokkosSpGEMM::aggregation_prolongator<double>(4, 2, false);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  const auto d = to_device(exec, jacobi_scaling(a.num_rows(), 0.0));
  const auto d_short = to_device(exec, jacobi_scaling(a.num_rows() - 1, 0.0));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, 0.5, d_short, da, dp), KokkosSpGEMM::DimensionMismatch);
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, std::nan(""), d, da, dp), KokkosSpGEMM::InvalidInput);
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, inf, d, da, dp), KokkosSpGEMM::InvalidInput);
  // A not square, P with other rows than A.
  const auto wide = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(2, 3, {{{0, 1.0}}, {{1, 1.0}}}));
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, 0.5, to_device(exec, {1.0, 1.0}), wide, dp),
               KokkosSpGEMM::DimensionMismatch);
  const auto p_short = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::aggregation_prolongator<double>(3, 2, false));
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, 0.5, d, da, p_short), KokkosSpGEMM::DimensionMismatch);
  // Out-of-range columns in A.
  auto bad = KokkosSpGEMM::poisson_3d_7pt<double>(4);
  bad.entries()(3) = 1000;
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, 0.5, d, KokkosSpGEMM::copy_to(exec, bad), dp),
               KokkosSpGEMM::InvalidInput);
  // A negative column, and a row map that decreases: the pass that checks A also finds its diagonal, reading A's row
  // map at each entry's column.
  auto negative = KokkosSpGEMM::poisson_3d_7pt<double>(4);
  negative.entries()(5) = -2;
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, 0.5, d, KokkosSpGEMM::copy_to(exec, negative), dp),
               KokkosSpGEMM::InvalidInput);
  auto decreasing = KokkosSpGEMM::poisson_3d_7pt<double>(4);
  decreasing.row_map()(6) = decreasing.row_map()(7) + 2;
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm(exec, 0.5, d, KokkosSpGEMM::copy_to(exec, decreasing), dp),
               KokkosSpGEMM::InvalidInput);
  // A numeric call without analysis, then with another structure of A.
  KokkosSpGEMM::JacobiHandle<Exec, double> h;
  M c;
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm_numeric(exec, h, 0.5, d, da, dp, c), KokkosSpGEMM::HandleMismatch);
  KokkosSpGEMM::jacobi_spgemm(exec, h, 0.5, d, da, dp, c);
  // A symbolic call on a malformed A throws before it drops the analysis the handle holds.
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm_symbolic(exec, h, KokkosSpGEMM::copy_to(exec, bad), dp, c),
               KokkosSpGEMM::InvalidInput);
  EXPECT_TRUE(h.has_analysis());
  const auto other = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::poisson_3d_27pt<double>(4));
  EXPECT_THROW(KokkosSpGEMM::jacobi_spgemm_numeric(exec, h, 0.5, d, other, dp, c), KokkosSpGEMM::HandleMismatch);
  // The handle still serves its structure.
  KokkosSpGEMM::jacobi_spgemm_numeric(exec, h, 0.5, d, da, dp, c);
  expect_jacobi_matches(c, 0.5, jacobi_scaling(a.num_rows(), 0.0), a, p, true, "after the errors");
}

}  // namespace KokkosSpGEMMTest
