// The row sorts on TEST_EXECSPACE: sequential (one thread per row) and team (bitonic), on rows of many lengths,
// with duplicate keys; values must follow their keys. And the keys of a thread's vector lanes sorted across them.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

inline void check_row_sort(bool team_sort) {
  using Exec = TEST_EXECSPACE;
  using Space = Exec::memory_space;
  const std::vector<int> lengths = {0, 1, 2, 3, 17, 24, 25, 31, 64, 100, 257, 1000, 4099};
  std::vector<int> offsets(1, 0);
  for (int n : lengths) offsets.push_back(offsets.back() + n);
  Kokkos::View<int*, Kokkos::HostSpace> keys("keys", offsets.back());
  Kokkos::View<double*, Kokkos::HostSpace> values("values", offsets.back());
  std::uint64_t x = 99;
  for (int e = 0; e < offsets.back(); ++e) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    keys(e) = static_cast<int>((x >> 33) % 97);  // many duplicates
    values(e) = 1000.0 * keys(e) + e % 7;        // ties broken by the value: recoverable after the sort
  }
  auto d_keys = Kokkos::create_mirror_view_and_copy(Space(), keys);
  auto d_values = Kokkos::create_mirror_view_and_copy(Space(), values);
  auto d_offsets = Kokkos::create_mirror_view_and_copy(
      Space(), Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(offsets.data(), offsets.size()));
  const int rows = static_cast<int>(lengths.size());
  if (team_sort) {
    using Policy = Kokkos::TeamPolicy<Exec>;
    const int team = KokkosSpGEMM::BackendTraits<Exec>::is_gpu ? 4 : 1;
    const int vector = KokkosSpGEMM::BackendTraits<Exec>::max_vector_length;
    Kokkos::parallel_for(
        "test_sort_team", Policy(Exec(), rows, team, vector), KOKKOS_LAMBDA(const typename Policy::member_type& m) {
          const int r = m.league_rank();
          KokkosSpGEMM::Impl::sort_row_team(m, d_keys.data() + d_offsets(r), d_values.data() + d_offsets(r),
                                            d_offsets(r + 1) - d_offsets(r));
        });
  } else {
    Kokkos::parallel_for(
        "test_sort_sequential", Kokkos::RangePolicy<Exec>(Exec(), 0, rows), KOKKOS_LAMBDA(const int r) {
          KokkosSpGEMM::Impl::sort_row_sequential(d_keys.data() + d_offsets(r), d_values.data() + d_offsets(r),
                                                  std::int64_t(d_offsets(r + 1) - d_offsets(r)));
        });
  }
  auto sorted_keys = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_keys);
  auto sorted_values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_values);
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    std::vector<double> before(values.data() + offsets[r], values.data() + offsets[r + 1]);
    std::vector<double> after(sorted_values.data() + offsets[r], sorted_values.data() + offsets[r + 1]);
    for (int e = offsets[r]; e < offsets[r + 1]; ++e) {
      if (e > offsets[r]) ASSERT_LE(sorted_keys(e - 1), sorted_keys(e)) << "row length " << lengths[r];
      ASSERT_EQ(static_cast<int>(sorted_values(e) / 1000.0), sorted_keys(e)) << "value left its key";
    }
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    EXPECT_EQ(before, after) << "row length " << lengths[r];
  }
}

TEST(TEST_CATEGORY, row_sort_sequential) { check_row_sort(false); }
TEST(TEST_CATEGORY, row_sort_team) { check_row_sort(true); }

/// Keys sort_across_lanes sorts: every thread of a team (so that on GPUs several threads' lanes share a warp) sorts
/// its own lanes * E keys, with duplicates and empty slots (-1, the largest as unsigned) among them.
template <int E>
void check_sort_across_lanes(int lanes) {
  using Exec = TEST_EXECSPACE;
  using Space = Exec::memory_space;
  using Policy = Kokkos::TeamPolicy<Exec>;
  const int team = KokkosSpGEMM::BackendTraits<Exec>::is_gpu ? 4 : 1, league = 3, n = lanes * E;
  const int total = league * team * n;
  Kokkos::View<int*, Kokkos::HostSpace> keys("keys", total);
  std::uint64_t x = 7 + 31 * lanes + E;
  for (int e = 0; e < total; ++e) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const int r = static_cast<int>((x >> 33) % 41);
    keys(e) = r < 6 ? -1 : r * 1000003 % 5000;  // empties and repeated keys
  }
  auto d_keys = Kokkos::create_mirror_view_and_copy(Space(), keys);
  Kokkos::parallel_for(
      "test_sort_across_lanes", Policy(Exec(), league, team, lanes),
      KOKKOS_LAMBDA(const typename Policy::member_type& m) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, team), [&](const int t) {
          int* row = d_keys.data() + (m.league_rank() * team + t) * n;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, lanes), [&](const int lane) {
            unsigned k[E];
            for (int e = 0; e < E; ++e) k[e] = static_cast<unsigned>(row[e * lanes + lane]);
            KokkosSpGEMM::Impl::sort_across_lanes<E>(k, lane, lanes);
            for (int e = 0; e < E; ++e) row[e * lanes + lane] = static_cast<int>(k[e]);
          });
        });
      });
  auto sorted = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_keys);
  for (int r = 0; r < league * team; ++r) {
    std::vector<unsigned> want(keys.data() + r * n, keys.data() + (r + 1) * n);
    std::sort(want.begin(), want.end());
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(static_cast<unsigned>(sorted(r * n + i)), want[i])
          << "lanes " << lanes << ", " << E << " keys a lane, thread " << r << ", key " << i;
    }
  }
}

TEST(TEST_CATEGORY, row_sort_across_lanes) {
  // A CPU thread has one lane; GPUs take every vector length up to a warp's.
  const int most = KokkosSpGEMM::BackendTraits<TEST_EXECSPACE>::is_gpu ? 32 : 1;
  for (int lanes = 1; lanes <= most; lanes *= 2) {
    check_sort_across_lanes<1>(lanes);
    check_sort_across_lanes<2>(lanes);
    check_sort_across_lanes<4>(lanes);
  }
}

}  // namespace KokkosSpGEMMTest
