// The CPU row kernels' scaffolding: rows cut into ranges of equal work (balanced_ranges), with the running sum in
// closed form for rows in their own order and a scan for permuted rows, and the memory pool's zeroed chunk prefixes.
#include <SpGEMMTestHelpers.hpp>

#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/pipeline/KokkosSpGEMM_WorkRanges.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace KokkosSpGEMMTest {

namespace WorkRangesTest {

/// The ranges' first rows on the host, after checking that every row of [0, rows) falls in exactly one range.
template <class Exec, class Weight>
std::vector<std::int64_t> cut(std::int64_t rows, std::int64_t ranges, const Weight& weight) {
  const auto first = KokkosSpGEMM::Impl::balanced_ranges(Exec(), rows, ranges, weight);
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first);
  std::vector<std::int64_t> out(host.data(), host.data() + host.extent(0));
  EXPECT_EQ(out.size(), static_cast<std::size_t>(ranges + 1));
  EXPECT_EQ(out.front(), 0);
  EXPECT_EQ(out.back(), rows);
  for (std::size_t w = 1; w < out.size(); ++w) EXPECT_LE(out[w - 1], out[w]) << "range " << w;
  return out;
}

template <class Exec>
using RowMap = Kokkos::View<int*, typename Exec::memory_space>;

template <class Exec>
RowMap<Exec> row_map_of(const std::vector<int>& offsets) {
  RowMap<Exec> d("row_map", offsets.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < offsets.size(); ++i) h(i) = offsets[i];
  Kokkos::deep_copy(d, h);
  return d;
}

template <class Exec>
using Perm = Kokkos::View<int*, typename Exec::memory_space>;

/// The identity as a permutation view: the binned rows' path (a scan of the weights) over rows in order.
template <class Exec>
Perm<Exec> identity_perm(int rows) {
  Perm<Exec> identity("identity", rows);
  Kokkos::parallel_for(
      "test_identity_perm", Kokkos::RangePolicy<Exec>(0, rows), KOKKOS_LAMBDA(const int i) { identity(i) = i; });
  return identity;
}

/// Row lengths: mostly short, a few long (power-law-like), some empty.
inline std::vector<int> skewed_offsets(int rows, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int> offsets(rows + 1, 0);
  for (int i = 0; i < rows; ++i) {
    const std::uint32_t r = gen() % 100;
    const int len = r < 10 ? 0 : r < 95 ? static_cast<int>(gen() % 5) : static_cast<int>(gen() % 400);
    offsets[i + 1] = offsets[i] + len;
  }
  return offsets;
}

}  // namespace WorkRangesTest

/// Rows in their own order (closed-form running sum) cut as the scan over the same rows through a view of the
/// identity permutation cuts them, and each range's work within one row's weight of an equal share.
TEST(TEST_CATEGORY, work_ranges_in_order_match_the_scanned_cut) {
  using Exec = TEST_EXECSPACE;
  using namespace WorkRangesTest;
  using KokkosSpGEMM::Impl::EntryWeight;
  using KokkosSpGEMM::Impl::RowsInOrder;
  static_assert(KokkosSpGEMM::Impl::HasRunningSum<EntryWeight<RowMap<Exec>, RowsInOrder<int>>>::value,
                "rows in order take the closed form");
  static_assert(!KokkosSpGEMM::Impl::HasRunningSum<EntryWeight<RowMap<Exec>, Perm<Exec>>>::value,
                "permuted rows take the scan");
  for (const int rows : {1, 7, 1000, 20011}) {
    const std::vector<int> offsets = skewed_offsets(rows, 17u + static_cast<std::uint32_t>(rows));
    const auto row_map = row_map_of<Exec>(offsets);
    const auto identity = identity_perm<Exec>(rows);
    for (const std::int64_t per_entry : {1, 4}) {
      for (const std::int64_t ranges : {1, 3, 32, 64}) {
        const auto closed = cut<Exec>(
            rows, ranges, EntryWeight<RowMap<Exec>, RowsInOrder<int>>{row_map, RowsInOrder<int>{}, 0, per_entry});
        const auto scanned =
            cut<Exec>(rows, ranges, EntryWeight<RowMap<Exec>, Perm<Exec>>{row_map, identity, 0, per_entry});
        EXPECT_EQ(closed, scanned) << rows << " rows, " << ranges << " ranges, " << per_entry << " a product";
        if (Exec().concurrency() == 1) continue;  // one thread: equal row counts, not equal work
        const std::int64_t total = rows + static_cast<std::int64_t>(offsets.back()) * per_entry;
        std::int64_t heaviest = 0;
        for (int i = 0; i < rows; ++i) {
          heaviest = std::max<std::int64_t>(heaviest, 1 + (offsets[i + 1] - offsets[i]) * per_entry);
        }
        for (std::int64_t w = 0; w < ranges; ++w) {
          std::int64_t work = 0;
          for (std::int64_t i = closed[w]; i < closed[w + 1]; ++i)
            work += 1 + (offsets[i + 1] - offsets[i]) * per_entry;
          EXPECT_LE(work, total / ranges + 2 * heaviest) << "range " << w << " of " << ranges;
        }
      }
    }
  }
}

/// A row map not yet checked (the dense rows' count checks A as it reads it): descending, or ending below its start,
/// its ranges must still hand every row to exactly one range, or the count would skip the rows that hold the flaw.
TEST(TEST_CATEGORY, work_ranges_cover_every_row_of_a_malformed_row_map) {
  using Exec = TEST_EXECSPACE;
  using namespace WorkRangesTest;
  using KokkosSpGEMM::Impl::EntryWeight;
  using KokkosSpGEMM::Impl::RowsInOrder;
  const int rows = 500;
  std::vector<std::vector<int>> maps;
  std::vector<int> descending(rows + 1);
  for (int i = 0; i <= rows; ++i) descending[i] = 3 * (rows - i);  // every row's length -3, the total below zero
  maps.push_back(descending);
  std::vector<int> spike = skewed_offsets(rows, 5u);
  spike[rows / 3] = 1 << 28;  // one offset far out of range: a row of huge length, the next of huge negative length
  maps.push_back(spike);
  std::vector<int> dips = skewed_offsets(rows, 9u);
  for (int i = 1; i < rows; i += 7) dips[i] = -1000 * i;
  maps.push_back(dips);
  for (const auto& offsets : maps) {
    const auto row_map = row_map_of<Exec>(offsets);
    const auto identity = identity_perm<Exec>(rows);
    for (const std::int64_t ranges : {2, 16, 64}) {
      cut<Exec>(rows, ranges, EntryWeight<RowMap<Exec>, RowsInOrder<int>>{row_map, RowsInOrder<int>{}, 0, 3});
      cut<Exec>(rows, ranges, EntryWeight<RowMap<Exec>, Perm<Exec>>{row_map, identity, 0, 3});
    }
  }
}

/// zero_chunk_prefixes clears exactly the first `bytes` of every chunk, whatever the chunk count and the prefix's
/// size against the host's page-sized work items (a prefix of less than one, of several and a part).
TEST(TEST_CATEGORY, memory_pool_zeroes_exactly_the_chunk_prefixes) {
  using Exec = TEST_EXECSPACE;
  using Pool = KokkosSpGEMM::Impl::MemoryPool<typename Exec::memory_space>;
  Exec exec;
  for (const std::size_t chunk_bytes : {std::size_t(256), std::size_t(5000), std::size_t(70000)}) {
    for (const std::int64_t chunks : {1, 3, 5}) {
      for (const std::size_t prefix : {std::size_t(0), std::size_t(16), std::size_t(4096), chunk_bytes / 32 * 16}) {
        if (prefix > chunk_bytes) continue;
        KokkosSpGEMM::Impl::Workspace<Exec> workspace(exec, 0);
        Pool pool(exec, workspace, chunks, chunk_bytes, false);
        const std::size_t total = pool.total_bytes();
        Kokkos::View<char*, typename Exec::memory_space, Kokkos::MemoryUnmanaged> bytes(pool.chunk(0), total);
        Kokkos::deep_copy(exec, bytes, char(0x5a));
        pool.zero_chunk_prefixes(exec, prefix);
        exec.fence();
        const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bytes);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < total; ++i) {
          const bool in_prefix = i % pool.chunk_bytes() < prefix;
          wrong += host(i) != (in_prefix ? char(0) : char(0x5a)) ? 1 : 0;
        }
        EXPECT_EQ(wrong, 0u) << chunks << " chunks of " << chunk_bytes << " bytes, prefix " << prefix;
      }
    }
  }
}

}  // namespace KokkosSpGEMMTest
