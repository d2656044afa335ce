// The row accumulator's hash table on TEST_EXECSPACE: keys whose home slots coincide must still reach every slot
// (the collision stride is odd), find() must follow the insert's probe sequence, and a full window must say so. Then
// the table inside SpGEMM on rows whose columns come in runs that share home slots in every table of up to 2048
// slots, every path.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

/// The first `count` keys (from 0 up) whose home slot in a table of `capacity` slots is that of key 5.
inline std::vector<int> keys_of_one_home_slot(int capacity, int count) {
  using Table = KokkosSpGEMM::Impl::HashTable<int, double, false>;
  const Table shape(nullptr, nullptr, capacity - 1);
  std::vector<int> keys;
  for (int key = 0; static_cast<int>(keys.size()) < count; ++key) {
    if (shape.slot_of(key) == shape.slot_of(5)) keys.push_back(key);
  }
  return keys;
}

/// Inserts `count` keys of one home slot into a table of `capacity` slots with a window of the whole table, then
/// looks each up; returns (keys inserted, keys found at their own distinct slot, result of one more insert).
template <bool Atomic>
std::vector<int> fill_one_home_slot(int capacity, int count) {
  using Exec = TEST_EXECSPACE;
  using Table = KokkosSpGEMM::Impl::HashTable<int, double, Atomic>;
  const std::vector<int> same_home = keys_of_one_home_slot(capacity, count + 1);
  Kokkos::View<int*, Exec::memory_space> keys("keys", capacity);
  Kokkos::View<double*, Exec::memory_space> values("values", capacity);
  Kokkos::View<int*, Exec::memory_space> out("out", 3);
  Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host_keys(
      const_cast<int*>(same_home.data()), same_home.size());
  const auto inserted_keys = Kokkos::create_mirror_view_and_copy(Exec::memory_space(), host_keys);
  Kokkos::deep_copy(keys, Table::empty);
  Kokkos::parallel_for(
      "test_hash_fill", Kokkos::RangePolicy<Exec>(Exec(), 0, 1), KOKKOS_LAMBDA(const int) {
        const Table t(keys.data(), values.data(), capacity - 1);
        for (int i = 0; i < count; ++i) {
          if (t.slot_of(inserted_keys(i)) != t.slot_of(5)) out(2) = -1;  // the host's home slots are the device's
          if (t.insert_add(inserted_keys(i), 1.0 + i, capacity) == KokkosSpGEMM::Impl::InsertResult::Inserted) {
            ++out(0);
          }
        }
        for (int i = 0; i < count; ++i) {
          const int s = t.find(inserted_keys(i), capacity);
          if (s >= 0 && keys(s) == inserted_keys(i) && values(s) == 1.0 + i) ++out(1);
        }
        if (out(2) == 0) out(2) = static_cast<int>(t.insert_add(inserted_keys(count), 1.0, capacity));
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return {host(0), host(1), host(2)};
}

TEST(TEST_CATEGORY, hash_table_one_home_slot_reaches_every_slot) {
  const int full = static_cast<int>(KokkosSpGEMM::Impl::InsertResult::Full);
  const int inserted = static_cast<int>(KokkosSpGEMM::Impl::InsertResult::Inserted);
  for (int capacity : {1, 2, 8, 64, 1024}) {
    const auto plain = fill_one_home_slot<false>(capacity, capacity);
    EXPECT_EQ(plain, (std::vector<int>{capacity, capacity, full})) << "capacity " << capacity;
    const auto atomic = fill_one_home_slot<true>(capacity, capacity);
    EXPECT_EQ(atomic, (std::vector<int>{capacity, capacity, full})) << "capacity " << capacity;
    if (capacity > 1) {
      const auto half = fill_one_home_slot<true>(capacity, capacity / 2);
      EXPECT_EQ(half, (std::vector<int>{capacity / 2, capacity / 2, inserted})) << "capacity " << capacity;
    }
  }
}

/// Columns by run: run r's columns are the keys, in increasing order, whose home slot is r in every table of up to
/// 2048 slots (the top 11 bits of their hash are r), so a run's columns all collide wherever they meet.
inline std::vector<std::vector<int>> colliding_runs(int runs, int run_length) {
  using Table = KokkosSpGEMM::Impl::HashTable<int, double, false>;
  const Table widest(nullptr, nullptr, 2047);
  std::vector<std::vector<int>> by_run(runs);
  int filled = 0;
  for (int key = 0; filled < runs; ++key) {
    const int r = widest.slot_of(key);
    if (r < runs && static_cast<int>(by_run[r].size()) < run_length) {
      by_run[r].push_back(key);
      if (static_cast<int>(by_run[r].size()) == run_length) ++filled;
    }
  }
  return by_run;
}

/// Rows of C whose columns come in runs that share home slots in every table size up to 2048 (colliding_runs), from
/// rows of A of many short rows of B (the rajat01 shape) and from few long ones.
inline std::pair<HostCsr<double>, HostCsr<double>> wrapping_columns_case(int runs, int run_length, int a_len) {
  const auto columns = colliding_runs(runs, run_length);
  int b_cols = 0;
  for (const auto& run : columns) b_cols = std::max(b_cols, run.back() + 1);
  const int b_rows = 4 * a_len;
  std::vector<std::vector<std::pair<int, double>>> a(6), b(b_rows);
  std::uint64_t x = 777;
  auto next = [&x]() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 33;
  };
  for (int r = 0; r < 6; ++r) {
    for (int e = 0; e < a_len >> r; ++e) a[r].push_back({static_cast<int>(next() % b_rows), 1.0 + e % 5});
  }
  for (int k = 0; k < b_rows; ++k) {
    const int len = 1 + static_cast<int>(next() % (2 * run_length * runs / a_len + 1));
    for (int j = 0; j < len; ++j) {
      const int run = static_cast<int>(next() % runs), offset = static_cast<int>(next() % run_length);
      b[k].push_back({columns[run][offset], 0.5 + j % 3});
    }
  }
  return {csr_from_rows<double>(6, b_rows, a), csr_from_rows<double>(b_rows, b_cols, b)};
}

TEST(TEST_CATEGORY, spgemm_rows_with_wrapping_columns) {
  using Exec = TEST_EXECSPACE;
  for (const auto& [runs, run_length, a_len] :
       std::vector<std::tuple<int, int, int>>{{3, 300, 700}, {8, 120, 64}, {2, 1000, 20}}) {
    const auto [a, b] = wrapping_columns_case(runs, run_length, a_len);
    for (const TestOptions& o : all_paths()) {
      expect_matches_reference<Exec>(a, b, o, "wrapping columns, runs " + std::to_string(runs));
    }
    TestOptions det;
    det.deterministic = true;
    expect_matches_reference<Exec>(a, b, det, "wrapping columns, deterministic");
    check_reuse_rounds<Exec>(a, b, TestOptions(), "wrapping columns, reuse");
  }
}

}  // namespace KokkosSpGEMMTest
