// C = A*B on TEST_EXECSPACE against the reference: generator families, special shapes, every accumulator path,
// scalar/ordinal/offset types.
#include <SpGEMMTestHelpers.hpp>

#include <tuple>

namespace KokkosSpGEMMTest {

template <class T>
class SpGEMMTyped : public ::testing::Test {};

TYPED_TEST_SUITE(SpGEMMTyped, ScalarOrdinalOffsetTypes);

TYPED_TEST(SpGEMMTyped, poisson_2d_every_path) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  const auto a = KokkosSpGEMM::poisson_2d_5pt<S, O, F>(12);
  for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(a, a, o, "poisson_2d_5pt(12)^2");
}

TYPED_TEST(SpGEMMTyped, rmat_every_path) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  const auto a = KokkosSpGEMM::rmat<S, O, F>(9, 8, 7);
  for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(a, a, o, "rmat(9,8)^2");
}

TYPED_TEST(SpGEMMTyped, rectangular_uniform_random) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  const auto a = KokkosSpGEMM::uniform_random<S, O, F>(300, 170, 9, 1);
  const auto b = KokkosSpGEMM::uniform_random<S, O, F>(170, 520, 14, 2);
  for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(a, b, o, "300x170 * 170x520");
}

TEST(TEST_CATEGORY, spgemm_stencils_3d) {
  const auto a7 = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(9);
  expect_matches_reference<TEST_EXECSPACE>(a7, a7, {}, "poisson_3d_7pt(9)^2");
  const auto a27 = KokkosSpGEMM::poisson_3d_27pt<double, int, int>(8);
  expect_matches_reference<TEST_EXECSPACE>(a27, a27, {}, "poisson_3d_27pt(8)^2");
  const auto a9 = KokkosSpGEMM::poisson_2d_9pt<double, int, int>(20);
  expect_matches_reference<TEST_EXECSPACE>(a9, a9, {}, "poisson_2d_9pt(20)^2");
}

/// Stencil products with bins of rows of 65-128 (3D 27-point: rows of C of 125 entries in the numeric phase; 2D
/// 9-point: rows of 81 products in the symbolic phase) large enough to fill an H100's threads a warp a row, so that
/// GPUs give those bins thread rows instead of team rows (thread_rows_wave_bound): sorted, unsorted and reuse
/// against the reference, and on a GPU these bins fill, thread rows named in the handle's description.
TEST(TEST_CATEGORY, spgemm_stencil_bins_that_fill_the_device) {
  using Exec = TEST_EXECSPACE;
  using Traits = KokkosSpGEMM::BackendTraits<Exec>;
  Exec exec;
  const auto a27 = KokkosSpGEMM::poisson_3d_27pt<double, int, int>(24);
  const auto a9 = KokkosSpGEMM::poisson_2d_9pt<double, int, int>(100);
  // Rows of the bin of bound 128: interior rows (125 entries of C; 81 products).
  const std::int64_t rows_of_bin[] = {22 * 22 * 22, 98 * 98};
  TestOptions unsorted;
  unsorted.sorted = false;
  int i = 0;
  for (const auto* a : {&a27, &a9}) {
    const std::string what = i == 0 ? "poisson_3d_27pt(24)^2" : "poisson_2d_9pt(100)^2";
    expect_matches_reference<Exec>(*a, *a, {}, what);
    expect_matches_reference<Exec>(*a, *a, unsorted, what);
    check_reuse_rounds<Exec>(*a, *a, TestOptions(), what + " reuse", 1);
    if (Traits::is_gpu && rows_of_bin[i] * Traits::max_vector_length >= KokkosSpGEMM::Impl::concurrency(exec)) {
      KokkosSpGEMM::Handle<Exec, double> handle{TestOptions()};
      KokkosSpGEMM::CsrMatrix<double, int, int, typename Exec::memory_space> c;
      const auto da = KokkosSpGEMM::copy_to(exec, *a);
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      const std::string d = handle.describe();
      bool thread_rows = false;
      std::size_t at = 0;
      while ((at = d.find("bound <= 128 ", at)) != std::string::npos) {
        const std::size_t end = d.find('\n', at);
        thread_rows = thread_rows || d.substr(at, end - at).find("thread-rows") != std::string::npos;
        at = end;
      }
      EXPECT_TRUE(thread_rows) << what << "\n" << d;
    }
    ++i;
  }
}

/// m with every entry twice in its place (values 1/4 and 3/4 of it), and m with its rows reversed.
inline std::pair<HostCsr<double>, HostCsr<double>> repeated_and_reversed(const HostCsr<double>& m) {
  std::vector<std::vector<std::pair<int, double>>> twice(m.num_rows()), reversed(m.num_rows());
  for (int i = 0; i < m.num_rows(); ++i) {
    for (int e = m.row_map()(i); e < m.row_map()(i + 1); ++e) {
      twice[i].push_back({m.entries()(e), 0.25 * m.values()(e)});
      twice[i].push_back({m.entries()(e), 0.75 * m.values()(e)});
      reversed[i].insert(reversed[i].begin(), {m.entries()(e), m.values()(e)});
    }
  }
  return {csr_from_rows<double>(m.num_rows(), m.num_cols(), twice),
          csr_from_rows<double>(m.num_rows(), m.num_cols(), reversed)};
}

// Rows of A of at most register_merge_ways entries over sorted rows of B: on GPUs, bins of them whose rows fill the
// device merge them from registers in both phases. Stencils, A*P with a tentative P, random short rows with empty
// rows of A and B (rectangular), rows of B that repeat a column, and B unsorted (hashed instead); sorted, unsorted
// and deterministic output and reuse, against the reference on every backend. On a GPU whose concurrency the bins
// fill, the description must name the merge, and must not where B is unsorted.
TEST(TEST_CATEGORY, spgemm_short_rows_merged_from_registers) {
  using Exec = TEST_EXECSPACE;
  using Traits = KokkosSpGEMM::BackendTraits<Exec>;
  using M = HostCsr<double>;
  Exec exec;
  const M p2d5 = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(100);
  const M p3d7 = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(23);
  const M p_tent = KokkosSpGEMM::tentative_prolongator<double, int, int>(23, 3, 2);
  KokkosSpGEMM::RandomCsrOptions<int> ao, bo;
  ao.rows = 100000, ao.cols = 70000, ao.mean_per_row = 3, ao.empty_row_fraction = 0.1;
  bo.rows = 70000, bo.cols = 50000, bo.mean_per_row = 3, bo.empty_row_fraction = 0.2;
  const M ra = KokkosSpGEMM::random_csr<double>(ao, 11), rb = KokkosSpGEMM::random_csr<double>(bo, 12);
  const auto [repeats, unsorted_b] = repeated_and_reversed(p2d5);
  struct Case {
    std::string what;
    const M* a;
    const M* b;
    std::int64_t rows_in_one_bin;  // a lower bound of the rows of the largest bin; 0: B unsorted
  };
  const Case cases[] = {{"poisson_2d_5pt(100)^2", &p2d5, &p2d5, 96 * 96},
                        {"poisson_3d_7pt(23)^2", &p3d7, &p3d7, 21 * 21 * 21},
                        {"poisson_3d_7pt(23) * P_tent", &p3d7, &p_tent, 21 * 21 * 21},
                        {"random short rows", &ra, &rb, 10000},
                        {"poisson_2d_5pt(100) * B repeating columns", &p2d5, &repeats, 96 * 96},
                        {"poisson_2d_5pt(100) * B unsorted", &p2d5, &unsorted_b, 0}};
  TestOptions unsorted, deterministic;
  unsorted.sorted = false;
  deterministic.deterministic = true;
  for (const Case& c : cases) {
    for (const TestOptions& o : {TestOptions(), unsorted, deterministic}) {
      expect_matches_reference<Exec>(*c.a, *c.b, o, c.what);
    }
    const std::string d = check_reuse_rounds<Exec>(*c.a, *c.b, TestOptions(), c.what + " reuse", 2);
    const bool merged = d.find("merge-registers") != std::string::npos;
    if (!Traits::is_gpu || c.rows_in_one_bin == 0) {
      EXPECT_FALSE(merged) << c.what << "\n" << d;
    } else if (c.rows_in_one_bin * Traits::max_vector_length >= KokkosSpGEMM::Impl::concurrency(exec)) {
      EXPECT_TRUE(merged) << c.what << "\n" << d;
    }
  }
}

// Rows of C of at most register_accumulate_slots entries, in bins with rows enough to fill the device a thread a
// row: on GPUs the numeric phase accumulates them in registers. 2D 5-point squared (rows of 13 from 25 products),
// 3D 27-point and 7-point times P_tent (rows of 8 from 27, of 4 from 7), B unsorted and B repeating columns (the
// accumulator needs no order); sorted, unsorted and deterministic output, and reuse both through the position map
// and by gathering into C's known columns (no map), against the reference on every backend. The description must
// name the accumulator on GPUs, and nowhere else.
TEST(TEST_CATEGORY, spgemm_short_rows_of_c_accumulated_in_registers) {
  using Exec = TEST_EXECSPACE;
  using Traits = KokkosSpGEMM::BackendTraits<Exec>;
  using M = HostCsr<double>;
  Exec exec;
  const auto [n2, n3] = grid_sides_for_rows(KokkosSpGEMM::Impl::concurrency(exec) * 5 / 4);
  const M p2d5 = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(n2);
  const M p3d27 = KokkosSpGEMM::poisson_3d_27pt<double, int, int>(n3);
  const M p3d7 = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(n3);
  const M p_tent = KokkosSpGEMM::tentative_prolongator<double, int, int>(n3, 3, 2);
  const auto [repeats, unsorted_b] = repeated_and_reversed(p2d5);
  const std::string side2 = std::to_string(n2), side3 = std::to_string(n3);
  const std::pair<std::string, std::pair<const M*, const M*>> cases[] = {
      {"poisson_2d_5pt(" + side2 + ")^2", {&p2d5, &p2d5}},
      {"poisson_3d_27pt(" + side3 + ") * P_tent", {&p3d27, &p_tent}},
      {"poisson_3d_7pt(" + side3 + ") * P_tent", {&p3d7, &p_tent}},
      {"poisson_2d_5pt(" + side2 + ") * B unsorted", {&p2d5, &unsorted_b}},
      {"poisson_2d_5pt(" + side2 + ") * B repeating columns", {&p2d5, &repeats}}};
  TestOptions unsorted, deterministic, no_map;
  unsorted.sorted = false;
  deterministic.deterministic = true;
  no_map.reuse_positions = false;
  for (const auto& [what, ab] : cases) {
    const M& a = *ab.first;
    const M& b = *ab.second;
    for (const TestOptions& o : {TestOptions(), unsorted, deterministic}) expect_matches_reference<Exec>(a, b, o, what);
    for (const TestOptions& o : {TestOptions(), no_map}) {
      const std::string d = check_reuse_rounds<Exec>(a, b, o, what + (o.reuse_positions ? " reuse" : " reuse, no map"));
      EXPECT_EQ(d.find("accumulate-registers") != std::string::npos, Traits::is_gpu) << what << "\n" << d;
    }
  }
}

// B of one entry a row (a tentative prolongator, its values varied) takes the CPU dense rows' loop that reads B's
// entry at A's column (rows_of_one_entry); B with as many entries as rows but a row of two and one of none must not.
// Sorted, unsorted, deterministic and reuse against the reference on every backend, and a column of A past B's rows
// is still an error on that loop.
TEST(TEST_CATEGORY, spgemm_b_of_one_entry_a_row) {
  using Exec = TEST_EXECSPACE;
  using M = HostCsr<double>;
  Exec exec;
  const Kokkos::DefaultHostExecutionSpace host;
  const M a = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(12);
  const M p = with_new_values(KokkosSpGEMM::tentative_prolongator<double, int, int>(12, 3, 2), 1.0, 0.25);
  ASSERT_EQ(p.nnz(), static_cast<std::size_t>(p.num_rows()));
  EXPECT_TRUE(KokkosSpGEMM::Impl::rows_of_one_entry(host, p.row_map(), p.nnz()));
  // Row 0 takes row 1's entry (columns kept in order), row 1 none: as many entries as rows, not one in each.
  M uneven = with_new_values(p, 1.0, 0.0);
  if (uneven.entries()(0) > uneven.entries()(1)) {
    std::swap(uneven.entries()(0), uneven.entries()(1));
    std::swap(uneven.values()(0), uneven.values()(1));
  }
  uneven.row_map()(1) = 2;
  EXPECT_FALSE(KokkosSpGEMM::Impl::rows_of_one_entry(host, uneven.row_map(), uneven.nnz()));
  TestOptions unsorted, deterministic;
  unsorted.sorted = false;
  deterministic.deterministic = true;
  const std::pair<std::string, const M*> cases[] = {{"A * P_tent", &p}, {"A * B uneven", &uneven}};
  for (const auto& [what, b] : cases) {
    for (const TestOptions& o : {TestOptions(), unsorted, deterministic})
      expect_matches_reference<Exec>(a, *b, o, what);
    check_reuse_rounds<Exec>(a, *b, TestOptions(), what + " reuse", 2);
  }
  M bad = with_new_values(a, 1.0, 0.0);
  bad.entries()(bad.row_map()(5)) = p.num_rows();  // row 5's first column names no row of B
  const std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
      [&] { KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, bad), KokkosSpGEMM::copy_to(exec, p)); });
  EXPECT_NE(msg.find("row 5"), std::string::npos) << msg;
}

// The one-shot on host threads writes each row once into its range's part of a buffer of the temporary cache, then
// copies C out (OnePass.hpp): against the reference, sorted and unsorted, on the random shapes (empty rows and
// matrices, power-law and duplicate-heavy rows, rectangular), B of one entry a row, the long row, and an arrow matrix
// squared (nnz(C) = n^2 from 3n entries: its products, not B's mean row, size the buffer), on as many ranges as the
// threads take, and R-MAT squared (a graph's rows: branch-free). Where the products outgrow the bytes allowed, or B
// fits a core's cache and the products barely compress, it leaves C to the count; a column of A naming no row of B
// is named as the count names it, and a row map whose rows overlap is left to the count, which names it, without
// writing past the buffer. GPUs never take it, nor more threads than Tuning::one_pass_max_threads.
TEST(TEST_CATEGORY, spgemm_one_pass_on_host_threads) {
  using Exec = TEST_EXECSPACE;
  using M = HostCsr<double>;
  using C = KokkosSpGEMM::CsrMatrix<double, int, int, typename Exec::memory_space>;
  Exec exec;
  const bool host = !KokkosSpGEMM::BackendTraits<Exec>::is_gpu;
  // These small operands fit a core's cache: the pass declines where their products barely compress, unless told not
  // to (checked below).
  TestOptions sorted;
  sorted.one_pass_cached_b_bytes = 0;
  sorted.one_pass_max_threads = 1 << 10;  // ranges on every thread the tests run
  TestOptions unsorted = sorted;
  unsorted.sorted = false;
  const auto expect_pass = [&](const M& a, const M& b, const TestOptions& o, bool taken, const std::string& what) {
    C c;
    const bool took = KokkosSpGEMM::Impl::one_pass_product<C>(exec, o, KokkosSpGEMM::copy_to(exec, a),
                                                              KokkosSpGEMM::copy_to(exec, b), c);
    EXPECT_EQ(took, taken) << what;
    if (!took) {
      EXPECT_EQ(c.num_rows(), 0) << what << ": C untouched where the pass gives up";
      return;
    }
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, b, o.sorted);
    EXPECT_TRUE(cmp.ok) << what << (o.sorted ? ", sorted: " : ", unsorted: ") << cmp.message;
  };
  for (std::uint64_t seed : {1, 2}) {
    for (const auto& shape : random_shapes()) {
      const auto a = KokkosSpGEMM::random_csr<double, int, int>(shape.first, seed);
      const auto b = KokkosSpGEMM::random_csr<double, int, int>(shape.second, seed + 100);
      // Empty operands are left to the counted path, which gives C its empty arrays.
      const bool taken = host && a.num_rows() > 0 && a.nnz() > 0 && b.nnz() > 0;
      for (const TestOptions& o : {sorted, unsorted}) expect_pass(a, b, o, taken, "random shape");
    }
  }
  const M stencil = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(10);
  const M p = with_new_values(KokkosSpGEMM::tentative_prolongator<double, int, int>(10, 3, 2), 1.0, 0.25);
  const auto [long_a, long_b] = one_long_row_case();
  const M graph = KokkosSpGEMM::rmat<double, int, int>(11, 8, 3);
  for (const TestOptions& o : {sorted, unsorted}) {
    expect_pass(stencil, p, o, host, "A * P_tent");
    expect_pass(stencil, stencil, o, host, "3D 7-point squared");
    expect_pass(long_a, long_b, o, host, "one long row");
    expect_pass(graph, graph, o, host, "R-MAT squared");
  }
  TestOptions counted;
  counted.one_pass_max_bytes = 0;
  expect_pass(stencil, stencil, counted, false, "one pass off");
  // A times the identity: one product an entry of C, B of 32 KB. 3D 7-point squared: 1.6 products an entry.
  std::vector<std::vector<std::pair<int, double>>> ones(stencil.num_rows());
  for (int i = 0; i < stencil.num_rows(); ++i) ones[i] = {{i, 1.5}};
  const M identity_1000 = csr_from_rows<double>(stencil.num_rows(), stencil.num_rows(), ones);
  expect_pass(stencil, identity_1000, TestOptions(), false, "B in cache, products that do not compress");
  expect_pass(stencil, identity_1000, sorted, host, "B in cache, the decline off");
  TestOptions compressing;
  compressing.one_pass_max_threads = 1 << 10;
  expect_pass(stencil, stencil, compressing, host, "B in cache, products that compress");
  TestOptions one_thread = sorted;
  one_thread.one_pass_max_threads = 1;
  expect_pass(stencil, stencil, one_thread, host && exec.concurrency() == 1, "one thread allowed");
  // The arrow: row 0 and column 0 full, and the diagonal.
  const int n = 300;
  std::vector<std::vector<std::pair<int, double>>> arrow_rows(n);
  for (int i = 0; i < n; ++i) {
    if (i == 0) {
      for (int j = 0; j < n; ++j) arrow_rows[0].push_back({j, 1.0 + j % 5});
    } else {
      arrow_rows[i] = {{0, 0.5}, {i, 2.0}};
    }
  }
  const M arrow = csr_from_rows<double>(n, n, arrow_rows);
  expect_pass(arrow, arrow, sorted, host, "arrow squared");
  TestOptions small = sorted;  // B's mean row predicts 32 KB of products; there are 1.1 MB
  small.one_pass_max_bytes = std::size_t(100) << 10;
  expect_pass(arrow, arrow, small, false, "arrow squared past the bytes allowed");
  expect_matches_reference<Exec>(arrow, arrow, small, "arrow squared, counted");
  M bad = with_new_values(stencil, 1.0, 0.0);
  bad.entries()(bad.row_map()(7) + 1) = stencil.num_rows() + 3;  // row 7's second column names no row of B
  const std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
      [&] { KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, bad), KokkosSpGEMM::copy_to(exec, stencil)); });
  EXPECT_NE(msg.find("row 7"), std::string::npos) << msg;
  // B of one entry a row in the cache: the sample reads A's columns before anything checked them.
  const std::string unit_msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
    KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, bad), KokkosSpGEMM::copy_to(exec, identity_1000));
  });
  EXPECT_NE(unit_msg.find("row 7"), std::string::npos) << unit_msg;
  // Rows 0 and 2 both cover A's 4,000 entries (row 1 runs backwards), B's rows hold one entry: followed as they come,
  // the rows would write twice nnz(A) entries.
  const int wide = 4000;
  M overlap("overlap", 3, wide, wide);
  overlap.row_map()(0) = 0;
  overlap.row_map()(1) = wide;
  overlap.row_map()(2) = 0;
  overlap.row_map()(3) = wide;
  for (int e = 0; e < wide; ++e) {
    overlap.entries()(e) = e;
    overlap.values()(e) = 1.0;
  }
  std::vector<std::vector<std::pair<int, double>>> diagonal(wide);
  for (int i = 0; i < wide; ++i) diagonal[i] = {{i, 2.0}};
  const M identity = csr_from_rows<double>(wide, wide, diagonal);
  expect_pass(overlap, identity, sorted, false, "rows overlapping");
  const std::string overlap_msg = expect_throws<KokkosSpGEMM::InvalidInput>(
      [&] { KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, overlap), KokkosSpGEMM::copy_to(exec, identity)); });
  EXPECT_NE(overlap_msg.find("row 1"), std::string::npos) << overlap_msg;
}

// The CPU dense count branches on new columns where A's and B's rows are of even length (a stencil's), and goes
// without the branch elsewhere (a graph's): both counts, with the one pass off so that one thread counts too, give
// the reference's C; a stencil with one long row is not even.
TEST(TEST_CATEGORY, spgemm_dense_count_with_and_without_branches) {
  using Exec = TEST_EXECSPACE;
  using M = HostCsr<double>;
  const Kokkos::DefaultHostExecutionSpace host;
  const M stencil = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(60);
  const M graph = KokkosSpGEMM::rmat<double, int, int>(11, 8, 3);
  std::vector<std::vector<std::pair<int, double>>> rows(stencil.num_rows());
  for (int i = 0; i < stencil.num_rows(); ++i) {
    for (int e = stencil.row_map()(i); e < stencil.row_map()(i + 1); ++e)
      rows[i].push_back({stencil.entries()(e), stencil.values()(e)});
  }
  for (int j = 0; j < stencil.num_cols(); j += 3) rows[0].push_back({j, 0.5});  // row 0: 1,200 entries
  std::sort(rows[0].begin(), rows[0].end());
  rows[0].erase(
      std::unique(rows[0].begin(), rows[0].end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
      rows[0].end());
  const M long_row = csr_from_rows<double>(stencil.num_rows(), stencil.num_cols(), rows);
  EXPECT_TRUE(KokkosSpGEMM::Impl::rows_of_even_length(host, stencil.row_map(), stencil.nnz()));
  EXPECT_FALSE(KokkosSpGEMM::Impl::rows_of_even_length(host, graph.row_map(), graph.nnz()));
  EXPECT_FALSE(KokkosSpGEMM::Impl::rows_of_even_length(host, long_row.row_map(), long_row.nnz()));
  TestOptions counted, unsorted;
  counted.one_pass_max_bytes = 0;
  unsorted = counted;
  unsorted.sorted = false;
  for (const TestOptions& o : {counted, unsorted}) {
    expect_matches_reference<Exec>(stencil, stencil, o, "stencil squared (branches)");
    expect_matches_reference<Exec>(graph, graph, o, "R-MAT squared (no branches)");
    expect_matches_reference<Exec>(long_row, stencil, o, "stencil with a long row times the stencil");
    expect_matches_reference<Exec>(stencil, long_row, o, "the stencil times the stencil with a long row");
  }
}

// Under Auto, CPU dense rows of graphs (rows of very unequal products that compress a little) add without a branch
// on new columns; each row must leave its slots zero for the next (thousands of rows, empty ones among them), and the
// repeated calls take the pools' blocks back from the temporary cache. Sorted and unsorted, rectangular B, B with
// repeated and unsorted columns, reuse with and without the position map; a stencil keeps the branch, and GPUs have
// no dense rows.
TEST(TEST_CATEGORY, spgemm_graph_rows_dense_without_branches) {
  using Exec = TEST_EXECSPACE;
  using Traits = KokkosSpGEMM::BackendTraits<Exec>;
  using M = HostCsr<double>;
  const M g = KokkosSpGEMM::rmat<double, int, int>(11, 8, 5);
  std::vector<std::vector<std::pair<int, double>>> left(g.num_rows());
  for (int i = 0; i < g.num_rows(); ++i) {
    for (int e = g.row_map()(i); e < g.row_map()(i + 1); ++e) {
      if (g.entries()(e) < 1000) left[i].push_back({g.entries()(e), g.values()(e)});
    }
  }
  const M b = csr_from_rows<double>(g.num_rows(), 1000, left);
  // Every entry twice in even rows (all rows twice would compress past the rule's bound).
  auto [twice, unsorted_b] = repeated_and_reversed(g);
  std::vector<std::vector<std::pair<int, double>>> some(g.num_rows());
  for (int i = 0; i < g.num_rows(); ++i) {
    const M& from = i % 2 == 0 ? twice : g;
    for (int e = from.row_map()(i); e < from.row_map()(i + 1); ++e)
      some[i].push_back({from.entries()(e), from.values()(e)});
  }
  const M repeats = csr_from_rows<double>(g.num_rows(), g.num_cols(), some);
  const M stencil = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(40);
  const std::pair<std::string, std::pair<const M*, const M*>> cases[] = {
      {"rmat(11, 8)^2", {&g, &g}},
      {"rmat(11, 8) * its first 1,000 columns", {&g, &b}},
      {"rmat(11, 8) * B repeating columns", {&g, &repeats}},
      {"rmat(11, 8) * B unsorted", {&g, &unsorted_b}}};
  TestOptions unsorted, no_map;
  unsorted.sorted = false;
  no_map.reuse_positions = false;
  for (const auto& [what, ab] : cases) {
    const M& a = *ab.first;
    const M& bb = *ab.second;
    const auto [products, most] = product_totals(a, bb);
    ASSERT_GE(most * a.num_rows(), KokkosSpGEMM::Impl::dense_branch_free_spread * products) << what;
    for (int call = 0; call < 3; ++call) {
      for (const TestOptions& o : {TestOptions(), unsorted}) expect_matches_reference<Exec>(a, bb, o, what);
    }
    for (const TestOptions& o : {TestOptions(), unsorted, no_map}) {
      const std::string d =
          check_reuse_rounds<Exec>(a, bb, o, what + (o.reuse_positions ? " reuse" : " reuse, no map"));
      EXPECT_EQ(d.find("branch-free") != std::string::npos, !Traits::is_gpu) << what << "\n" << d;
    }
  }
  const std::string d = check_reuse_rounds<Exec>(stencil, stencil, TestOptions(), "poisson_2d_5pt(40)^2");
  EXPECT_EQ(d.find("branch-free"), std::string::npos) << d;
}

TEST(TEST_CATEGORY, spgemm_galerkin_chain) {
  // R*(A*P) with R = P^T built on the host: a rectangular chain as multigrid forms it.
  const auto a = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(8);
  const auto p = KokkosSpGEMM::aggregation_prolongator<double, int, int>(8, 2, true);
  expect_matches_reference<TEST_EXECSPACE>(a, p, {}, "A*P smoothed");
  const auto ap = KokkosSpGEMM::reference_spgemm(a, p);
  const auto r = transpose_host(p);
  for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(r, ap, o, "P^T*(A*P)");
}

// A block (elasticity-like) operator times its block tentative prolongator: rows of 81 products from rows of B of
// one entry. On GPUs the lanes then split A's rows ("over A" bins: thread rows whose tables leave too few rows a
// team, and team rows); every path, reuse included, against the reference.
TEST(TEST_CATEGORY, spgemm_block_stencil_times_block_prolongator) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::block_stencil_3d_27pt<double, int, int>(6, 3);
  const auto p = KokkosSpGEMM::tentative_prolongator<double, int, int>(6, 3, 2, 3);
  for (const auto& o : all_paths()) expect_matches_reference<Exec>(a, p, o, "elasticity-like A*P");
  const std::string described = check_reuse_rounds<Exec>(a, p, TestOptions(), "elasticity-like A*P reuse");
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) EXPECT_NE(described.find("over A"), std::string::npos) << described;
}

TEST(TEST_CATEGORY, spgemm_empty_shapes) {
  using M = HostCsr<double>;
  const M e00 = csr_from_rows<double>(0, 0, {});
  const M e05 = csr_from_rows<double>(0, 5, {});
  const M e53 = csr_from_rows<double>(5, 3, {});
  const M e40 = csr_from_rows<double>(4, 0, {});
  const M e03 = csr_from_rows<double>(0, 3, {});
  for (const auto& o : all_paths()) {
    expect_matches_reference<TEST_EXECSPACE>(e00, e00, o, "0x0 * 0x0");
    expect_matches_reference<TEST_EXECSPACE>(e05, e53, o, "0x5 * 5x3");
    expect_matches_reference<TEST_EXECSPACE>(e40, e03, o, "4x0 * 0x3");
    expect_matches_reference<TEST_EXECSPACE>(e53, csr_from_rows<double>(3, 2, {}), o, "5x3 (no entries) * 3x2");
  }
  TEST_EXECSPACE exec;
  const auto c = KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, e40), KokkosSpGEMM::copy_to(exec, e03));
  EXPECT_EQ(c.num_rows(), 4);
  EXPECT_EQ(c.num_cols(), 3);
  EXPECT_EQ(c.nnz(), 0u);
}

TEST(TEST_CATEGORY, spgemm_one_by_one_and_empty_rows) {
  const auto one = csr_from_rows<double>(1, 1, {{{0, 3.0}}});
  for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(one, one, o, "1x1");
  // Rows 1 and 3 of A are empty; row 2 of B is empty; unsorted columns in A and B.
  const auto a = csr_from_rows<double>(4, 3, {{{2, 1.0}, {0, 2.0}}, {}, {{1, -1.0}, {2, 4.0}}, {}});
  const auto b = csr_from_rows<double>(3, 4, {{{3, 1.0}, {1, 5.0}}, {{0, 2.0}}, {}});
  for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(a, b, o, "empty rows, unsorted input");
}

TEST(TEST_CATEGORY, spgemm_one_long_row) {
  // One row of C with 100,000 products over 4,000 columns: exercises the largest bins and the pool. Duplicate
  // columns inside a row of B are summed like any other products.
  const auto [a, b] = one_long_row_case();
  for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(a, b, o, "one row with 1e5 products");
}

/// A row's value from a view: the row size and the work measure of the binning test below; the work measure also
/// gives its row of A's length from `lengths`.
template <class View>
struct RowValue {
  static constexpr bool enabled = true;
  View values, lengths;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return values(i); }
  KOKKOS_INLINE_FUNCTION std::int64_t entries(std::int64_t i) const { return lengths(i); }
};

TEST(TEST_CATEGORY, row_bins_group_rows_and_find_each_bins_most_work) {
  using Exec = TEST_EXECSPACE;
  using View = Kokkos::View<std::int64_t*, Exec::memory_space>;
  Exec exec;
  // More rows than one binning team's block; one row of far more work than its bin's others, one far longer. Sizes
  // change every row, or in runs of 13 rows (a thread counts a run at once) that cross the threads' slices.
  for (const std::int64_t run : {1, 13}) {
    const std::int64_t rows = 5000;
    View sizes("sizes", rows), work("work", rows), lengths("lengths", rows);
    auto hs = Kokkos::create_mirror_view(sizes);
    auto hw = Kokkos::create_mirror_view(work);
    auto hl = Kokkos::create_mirror_view(lengths);
    std::vector<std::int64_t> count(KokkosSpGEMM::Impl::num_row_bins, 0), most(KokkosSpGEMM::Impl::num_row_bins, 0),
        longest(KokkosSpGEMM::Impl::num_row_bins, 0);
    for (std::int64_t i = 0; i < rows; ++i) {
      hs(i) = (i / run * 37) % 300;
      hw(i) = hs(i) * (i % 7 + 1) + (i == 4321 ? 100000 : 0);
      hl(i) = (i * 13) % 50 + (i == 1234 ? 999 : 0);
      const int b = KokkosSpGEMM::Impl::row_bin_of(hs(i));
      ++count[b];
      most[b] = std::max(most[b], hw(i));
      longest[b] = std::max(longest[b], hl(i));
    }
    Kokkos::deep_copy(sizes, hs);
    Kokkos::deep_copy(work, hw);
    Kokkos::deep_copy(lengths, hl);
    KokkosSpGEMM::Impl::Workspace<Exec> workspace(exec, 1 << 16);
    const auto bins = KokkosSpGEMM::Impl::bin_rows(exec, workspace, static_cast<int>(rows), RowValue<View>{sizes},
                                                   RowValue<View>{work, lengths});
    const auto without = KokkosSpGEMM::Impl::bin_rows(exec, workspace, static_cast<int>(rows), RowValue<View>{sizes});
    EXPECT_TRUE(without.most_work.empty());
    EXPECT_TRUE(without.most_entries.empty());
    auto perm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bins.perm);
    std::vector<int> seen(rows, 0);
    for (int b = 0; b < KokkosSpGEMM::Impl::num_row_bins; ++b) {
      EXPECT_EQ(bins.count(b), count[b]) << "bin " << b;
      EXPECT_EQ(without.count(b), count[b]) << "bin " << b;
      EXPECT_EQ(bins.most(b), most[b]) << "bin " << b;
      EXPECT_EQ(bins.longest_a_row(b), longest[b]) << "bin " << b;
      for (std::int64_t q = bins.offsets[b]; q < bins.offsets[b + 1]; ++q) {
        ASSERT_EQ(KokkosSpGEMM::Impl::row_bin_of(hs(perm(q))), b);
        ++seen[perm(q)];
      }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), rows);  // every row once
  }
}

/// Products of each row of A*B (the row bounds the phases bin by) against a host count, on rows a thread's lanes
/// sum and rows past their steps that the whole team sums: short rows with long ones among them and empty rows,
/// over more rows than a GPU's threads hold a warp each (the lanes then follow the mean row) and over few rows.
TEST(TEST_CATEGORY, row_bounds_count_every_rows_products) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  for (const int rows : {40000, 300}) {
    std::vector<std::vector<std::pair<int, double>>> a_rows(rows), b_rows(rows);
    std::uint64_t x = 7;
    const auto next = [&x]() {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<int>(x >> 33);
    };
    for (int i = 0; i < rows; ++i) {
      const int len = i % 997 == 3 ? 3000 : i % 101 == 5 ? 150 : i % 7 == 0 ? 0 : (rows < 1000 ? 40 : 1 + i % 5);
      for (int k = 0; k < len; ++k) a_rows[i].push_back({next() % rows, 1.0});
      const int b_len = i % 11 == 0 ? 0 : 1 + i % 9;
      for (int k = 0; k < b_len; ++k) b_rows[i].push_back({next() % rows, 1.0});
    }
    const auto ha = csr_from_rows<double>(rows, rows, a_rows);
    const auto hb = csr_from_rows<double>(rows, rows, b_rows);
    std::vector<std::int64_t> expected(rows, 0);
    std::int64_t total = 0, longest = 0;
    for (int i = 0; i < rows; ++i) {
      for (const auto& [k, v] : a_rows[i]) expected[i] += static_cast<std::int64_t>(b_rows[k].size());
      total += expected[i];
      longest = std::max(longest, expected[i]);
    }
    const auto a = KokkosSpGEMM::copy_to(exec, ha);
    const auto b = KokkosSpGEMM::copy_to(exec, hb);
    Kokkos::View<std::int64_t*, Exec::memory_space> products("products", rows);
    const auto totals = KokkosSpGEMM::Impl::compute_row_bounds(exec, a, b, products);
    EXPECT_EQ(totals.products, total);
    EXPECT_EQ(totals.max_products, longest);
    const auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products);
    int wrong = 0;
    for (int i = 0; i < rows; ++i) wrong += hp(i) != expected[i];
    EXPECT_EQ(wrong, 0) << rows << " rows";
  }
}

TEST(TEST_CATEGORY, spgemm_duplicate_heavy) {
  // B has 6 columns: every row of C collapses hundreds of products into at most 6 entries; bin 1 (one column).
  const auto a = KokkosSpGEMM::uniform_random<double, int, int>(200, 400, 60, 3);
  const auto b = KokkosSpGEMM::uniform_random<double, int, int>(400, 6, 4, 4);
  const auto b1 = KokkosSpGEMM::uniform_random<double, int, int>(400, 1, 1, 5);
  for (const auto& o : all_paths()) {
    expect_matches_reference<TEST_EXECSPACE>(a, b, o, "200x400 * 400x6");
    expect_matches_reference<TEST_EXECSPACE>(a, b1, o, "200x400 * 400x1");
  }
}

/// Rows of C of every size the sorted writers treat apart: rows 0..80 (thread rows, sizes not a multiple of 4),
/// then team rows around 256, 512 and 513 (the GPU rank path's limits), up to 3,000 (sorted after extraction), in
/// shuffled columns. dup: each row of B has 3 entries from a pool of its row's columns, so rows of C fill half their
/// bound's table or less. On GPUs the team-row bins of a row or three each share launches (team_row_launches), each
/// bin with its own table and compact array in the largest one's scratch.
inline std::pair<HostCsr<double>, HostCsr<double>> rows_of_every_size_case(bool dup) {
  std::vector<int> sizes;
  for (int s = 0; s <= 80; ++s) sizes.push_back(s);
  for (int s : {100, 127, 128, 129, 200, 255, 256, 257, 300, 509, 511, 512, 513, 700, 1024, 1025, 2000, 3000}) {
    sizes.push_back(s);
  }
  const int width = 20000;
  std::uint64_t x = 777;
  const auto next = [&x](int n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((x >> 33) % static_cast<std::uint64_t>(n));
  };
  std::vector<std::vector<std::pair<int, double>>> a_rows(sizes.size()), b_rows;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    // The row's columns: a shuffled window of distinct columns, so that C's row has exactly sizes[i] entries.
    std::vector<int> cols(sizes[i]);
    const int start = next(width - sizes[i] + 1);
    for (int j = 0; j < sizes[i]; ++j) cols[j] = start + j;
    for (int j = sizes[i] - 1; j > 0; --j) std::swap(cols[j], cols[next(j + 1)]);
    for (int j = 0; j < sizes[i]; ++j) {
      a_rows[i].push_back({static_cast<int>(b_rows.size()), 1.0 + j % 5});
      std::vector<std::pair<int, double>> b_row{{cols[j], 0.5 + j % 3}};
      if (dup) {
        b_row.push_back({cols[next(sizes[i])], 2.0});
        b_row.push_back({cols[next(sizes[i])], -1.0});
      }
      b_rows.push_back(b_row);
    }
  }
  const int k = static_cast<int>(b_rows.size());
  return {csr_from_rows<double>(static_cast<int>(sizes.size()), k, a_rows), csr_from_rows<double>(k, width, b_rows)};
}

TEST(TEST_CATEGORY, spgemm_sorted_rows_of_every_size) {
  for (bool dup : {false, true}) {
    const auto [a, b] = rows_of_every_size_case(dup);
    const std::string what = dup ? "rows of every size, repeated columns" : "rows of every size";
    for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(a, b, o, what);
    TestOptions deterministic;
    deterministic.deterministic = true;
    expect_matches_reference<TEST_EXECSPACE>(a, b, deterministic, what + ", deterministic");
  }
}

TEST(TEST_CATEGORY, spgemm_random_family) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    for (const auto& shape : random_shapes()) {
      const auto a = KokkosSpGEMM::random_csr<double, int, int>(shape.first, seed);
      const auto b = KokkosSpGEMM::random_csr<double, int, int>(shape.second, seed + 100);
      for (const auto& o : all_paths()) expect_matches_reference<TEST_EXECSPACE>(a, b, o, "random family");
    }
  }
}

/// A (rows x cols) whose row i holds `per_row` distinct columns within `width` of its centre (i * stride, wrapped),
/// the widths spread from narrow to wide over the rows; columns sorted in each row.
inline HostCsr<double> banded_rows(int rows, int cols, int per_row, int stride, int min_width, int max_width,
                                   std::uint64_t seed) {
  std::vector<std::vector<std::pair<int, double>>> entries(rows);
  std::uint64_t x = seed;
  const auto next = [&]() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 33;
  };
  for (int i = 0; i < rows; ++i) {
    const int width = min_width + static_cast<int>(static_cast<std::int64_t>(max_width - min_width) * i / rows);
    const int centre = static_cast<int>((static_cast<std::int64_t>(i) * stride) % cols);
    std::vector<int> picked;
    while (static_cast<int>(picked.size()) < per_row) {
      const int col = centre - width + static_cast<int>(next() % (2 * width + 1));
      if (col < 0 || col >= cols || std::find(picked.begin(), picked.end(), col) != picked.end()) continue;
      picked.push_back(col);
    }
    std::sort(picked.begin(), picked.end());
    for (int col : picked) entries[i].push_back({col, 0.5 + static_cast<double>(next() % 7)});
  }
  return csr_from_rows<double>(rows, cols, entries);
}

// Symbolic team rows counted in a window of the row's column span (Tuning::column_windows, GPUs): rows of 729
// products whose spans run from a few hundred columns to past every table's bits (so that rows on both sides of
// the window's limit meet in one bin), the 3D 27-point stencil, B's rows reversed (a span read off their first and
// last columns is wrong: those rows must be counted in their tables instead) and B repeating each entry; with
// windows on and off, sorted and unsorted output, against the reference (the default options only on CPUs).
TEST(TEST_CATEGORY, spgemm_team_rows_counted_in_column_windows) {
  using M = HostCsr<double>;
  const M a = banded_rows(3000, 100000, 27, 33, 100, 50000, 21);
  const M b = banded_rows(100000, 300000, 27, 3, 50, 40000, 22);
  const auto [b_twice, b_reversed] = repeated_and_reversed(b);
  const M p27 = KokkosSpGEMM::poisson_3d_27pt<double, int, int>(14);
  const auto [p27_twice, p27_reversed] = repeated_and_reversed(p27);
  TestOptions unsorted, hash, no_windows;
  unsorted.sorted = false;
  hash.algorithm = KokkosSpGEMM::Algorithm::Hash;
  no_windows.column_windows = false;
  // The windows are a GPU path: CPUs, which never take it, check the default options only, sparing the sanitized
  // Serial build the other three.
  std::vector<TestOptions> paths{TestOptions()};
  if (KokkosSpGEMM::BackendTraits<TEST_EXECSPACE>::is_gpu) paths = {TestOptions(), unsorted, hash, no_windows};
  for (const TestOptions& o : paths) {
    expect_matches_reference<TEST_EXECSPACE>(a, b, o, "banded rows of every span");
    expect_matches_reference<TEST_EXECSPACE>(a, b_reversed, o, "banded rows, B's rows reversed");
    expect_matches_reference<TEST_EXECSPACE>(a, b_twice, o, "banded rows, B's entries twice");
    expect_matches_reference<TEST_EXECSPACE>(p27, p27, o, "poisson_3d_27pt(14)^2");
    expect_matches_reference<TEST_EXECSPACE>(p27, p27_reversed, o, "poisson_3d_27pt(14) * B reversed");
    expect_matches_reference<TEST_EXECSPACE>(p27, p27_twice, o, "poisson_3d_27pt(14) * B twice");
  }
}

}  // namespace KokkosSpGEMMTest
