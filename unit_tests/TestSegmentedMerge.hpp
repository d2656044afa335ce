// The segmented merge primitive and the two transposes (SpTRANS by segmented merge, row sort) on TEST_EXECSPACE:
// random segment and sub-segment layouts (empty ones, one huge segment, many tiny ones), stability, keys only,
// pointer and order errors; transposes against a host counting-sort transpose on generated and shared matrices.
#include <SpGEMMTestHelpers.hpp>

#include <algorithm>
#include <random>

namespace KokkosSpGEMMTest {

/// Runs segmented_merge on a random layout and checks every segment against std::stable_sort of its elements.
inline void check_segmented_merge(std::uint64_t seed, int segments, int max_subsegments, int max_length,
                                  bool with_values) {
  using Exec = TEST_EXECSPACE;
  using Space = Exec::memory_space;
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> seg{0}, sub{0};
  std::vector<int> keys;
  std::vector<double> vals;
  for (int s = 0; s < segments; ++s) {
    const int q = static_cast<int>(rng() % (max_subsegments + 1));  // may be 0: an empty segment
    for (int j = 0; j < q; ++j) {
      const int len = static_cast<int>(rng() % (max_length + 1));  // may be 0: an empty sub-segment
      std::vector<int> run(len);
      for (int& k : run) k = static_cast<int>(rng() % 50);  // few distinct keys: many ties
      std::sort(run.begin(), run.end());
      for (int k : run) {
        keys.push_back(k);
        vals.push_back(static_cast<double>(vals.size()));  // the original position: shows stability
      }
      sub.push_back(static_cast<std::int64_t>(keys.size()));
    }
    seg.push_back(static_cast<std::int64_t>(sub.size()) - 1);
  }
  auto to_device = [](const auto& v, const char* label) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    Kokkos::View<T*, Space> d(std::string(label), v.size());
    auto h = Kokkos::create_mirror_view(d);
    for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
    Kokkos::deep_copy(d, h);
    return d;
  };
  auto d_keys = to_device(keys, "keys");
  auto d_vals = to_device(with_values ? vals : std::vector<double>{}, "vals");
  KokkosSpGEMM::segmented_merge(Exec(), d_keys, d_vals, to_device(seg, "seg"), to_device(sub, "sub"));
  auto h_keys = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_keys);
  auto h_vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_vals);
  for (int s = 0; s < segments; ++s) {
    const std::int64_t lo = sub[seg[s]], hi = sub[seg[s + 1]];
    std::vector<std::pair<int, double>> want;
    for (std::int64_t i = lo; i < hi; ++i) want.push_back({keys[i], vals[i]});
    std::stable_sort(want.begin(), want.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::int64_t i = lo; i < hi; ++i) {
      ASSERT_EQ(h_keys(i), want[i - lo].first) << "seed " << seed << " segment " << s << " position " << i;
      if (with_values) ASSERT_EQ(h_vals(i), want[i - lo].second) << "tie order, seed " << seed << " position " << i;
    }
  }
}

TEST(TEST_CATEGORY, segmented_merge_layouts) {
  check_segmented_merge(1, 0, 4, 10, true);      // no segment at all
  check_segmented_merge(2, 1, 1, 10, true);      // nothing to merge
  check_segmented_merge(3, 50, 5, 12, true);     // small mixed, empty segments and sub-segments
  check_segmented_merge(4, 3, 300, 40, true);    // few segments with many sub-segments (odd counts per round)
  check_segmented_merge(5, 2000, 3, 4, false);   // many tiny segments, keys only
  check_segmented_merge(6, 1, 1000, 100, true);  // one huge segment: work split across threads inside a pair
}

TEST(TEST_CATEGORY, segmented_merge_rejects_bad_input) {
  using Exec = TEST_EXECSPACE;
  using Space = Exec::memory_space;
  Kokkos::View<int*, Space> keys("keys", 4);
  Kokkos::View<double*, Space> none("none", 0);
  auto h = Kokkos::create_mirror(keys);    // a copy even on host spaces: the merge overwrites keys
  h(0) = 1, h(1) = 5, h(2) = 3, h(3) = 4;  // sub-segments [0,2) [2,4) sorted; [0,3) would not be
  Kokkos::deep_copy(keys, h);
  auto ptr = [](std::vector<std::int64_t> v) {
    Kokkos::View<std::int64_t*, Space> d("ptr", v.size());
    auto hv = Kokkos::create_mirror_view(d);
    for (std::size_t i = 0; i < v.size(); ++i) hv(i) = v[i];
    Kokkos::deep_copy(d, hv);
    return d;
  };
  EXPECT_NO_THROW(KokkosSpGEMM::segmented_merge(Exec(), keys, none, ptr({0, 2}), ptr({0, 2, 4})));
  Kokkos::deep_copy(keys, h);
  EXPECT_THROW(KokkosSpGEMM::segmented_merge(Exec(), keys, none, ptr({0, 2}), ptr({0, 3, 4})),
               KokkosSpGEMM::InvalidInput);  // sub-segment [0,3) unsorted
  EXPECT_THROW(KokkosSpGEMM::segmented_merge(Exec(), keys, none, ptr({0, 2}), ptr({0, 2, 3})),
               KokkosSpGEMM::InvalidInput);  // does not end at n
  EXPECT_THROW(KokkosSpGEMM::segmented_merge(Exec(), keys, none, ptr({0, 3}), ptr({0, 2, 4})),
               KokkosSpGEMM::InvalidInput);  // segments end past q
  EXPECT_THROW(KokkosSpGEMM::segmented_merge(Exec(), keys, none, ptr({0, 2}), ptr({0, 3, 2, 4})),
               KokkosSpGEMM::InvalidInput);  // decreasing
  Kokkos::View<double*, Space> three("three", 3);
  EXPECT_THROW(KokkosSpGEMM::segmented_merge(Exec(), keys, three, ptr({0, 2}), ptr({0, 2, 4})),
               KokkosSpGEMM::InvalidInput);  // values of another length
}

/// Both transpose methods against the host transpose (rows sorted; values follow).
template <class S, class O, class F>
void check_transposes(const HostCsr<S, O, F>& a, const std::string& what) {
  using Exec = TEST_EXECSPACE;
  const auto want = transpose_host(a);
  const auto da = KokkosSpGEMM::copy_to(Exec(), a);
  using M = KokkosSpGEMM::TransposeMethod;
  for (M method : {M::Auto, M::SegmentedMerge, M::RowSort}) {
    const auto t = KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(Exec(), da, method));
    ASSERT_EQ(t.num_rows(), want.num_rows()) << what;
    ASSERT_EQ(t.num_cols(), want.num_cols()) << what;
    ASSERT_EQ(t.nnz(), want.nnz()) << what;
    std::size_t bad = 0;
    for (O i = 0; i <= want.num_rows(); ++i) bad += t.row_map()(i) != want.row_map()(i);
    for (std::size_t e = 0; e < want.nnz(); ++e) {
      // Equal columns (a row of A repeating a column) may come in either order: compare (column, value) as sorted.
      bad += t.entries()(e) != want.entries()(e);
    }
    std::size_t bad_values = 0;
    for (O i = 0; i < want.num_rows(); ++i) {
      std::vector<std::pair<O, double>> x, y;
      for (F e = want.row_map()(i); e < want.row_map()(i + 1); ++e) {
        x.push_back({t.entries()(e), static_cast<double>(t.values()(e))});
        y.push_back({want.entries()(e), static_cast<double>(want.values()(e))});
      }
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      bad_values += x != y;
    }
    EXPECT_EQ(bad, 0u) << what << " method " << static_cast<int>(method);
    EXPECT_EQ(bad_values, 0u) << what << " method " << static_cast<int>(method);
  }
}

TEST(TEST_CATEGORY, transpose_methods) {
  check_transposes(KokkosSpGEMM::rmat<double, int, int>(10, 16, 5), "rmat(10,16): power-law columns");
  check_transposes(KokkosSpGEMM::uniform_random<double, int, int>(500, 90, 40, 3), "500x90 uniform: long rows of A^T");
  check_transposes(KokkosSpGEMM::poisson_3d_7pt<double, std::int64_t, std::int64_t>(7), "poisson_3d_7pt(7), int64");
  check_transposes(KokkosSpGEMM::aggregation_prolongator<float, int, int>(8, 2, true), "smoothed prolongator");
  check_transposes(csr_from_rows<double>(4, 6, {{}, {{5, 1.0}, {5, 2.0}, {0, 3.0}}, {}, {{2, 4.0}}}),
                   "empty rows, repeated column");
  check_transposes(csr_from_rows<double>(0, 3, {}), "0 x 3");
  check_transposes(csr_from_rows<double>(3, 0, {{}, {}, {}}), "3 x 0");
}

TEST(TEST_CATEGORY, transpose_methods_shared_matrices) {
  KOKKOSSPGEMM_NEED_TEST_MATRICES();
  check_transposes(KokkosSpGEMM::read_matrix_market<double, int, int>(test_matrices_dir() + "/PGPgiantcompo.mtx.gz"),
                   "PGPgiantcompo");
  check_transposes(KokkosSpGEMM::read_matrix_market<double, int, int>(test_matrices_dir() + "/lp_e226.mtx.gz"),
                   "lp_e226 (rectangular)");
}

}  // namespace KokkosSpGEMMTest
