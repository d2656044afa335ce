// Numeric reuse through the position map (Options::reuse_positions): every replay shape (entries; tiles; thread rows
// with and without vector lanes, team rows, sums in scratch and in C), every place width (1, 2 and 4 bytes), the byte
// limit, deterministic sums, the checks that notice C's columns changed since the map was made, and the replays'
// graphs.
#include <SpGEMMTestHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace KokkosSpGEMMTest {

/// A (2 x 50) times B (50 x 70000): row 0 of C has 70,000 entries (4-byte places, tables beyond scratch).
inline std::pair<HostCsr<double>, HostCsr<double>> very_long_row_case() {
  std::vector<std::vector<std::pair<int, double>>> a_rows(2), b_rows(50);
  for (int k = 0; k < 50; ++k) a_rows[0].push_back({k, 1.0 + k % 5});
  a_rows[1].push_back({7, -2.0});
  for (int k = 0; k < 50; ++k) {
    for (int j = 0; j < 1400; ++j) b_rows[k].push_back({(j * 50 + k * 37) % 70000, 0.5 + (j + k) % 4});
  }
  return {csr_from_rows<double>(2, 50, a_rows), csr_from_rows<double>(50, 70000, b_rows)};
}

/// B rows that repeat their columns: vector lanes of one entry of A meet in one place.
inline HostCsr<double> repeated_columns_b() {
  std::vector<std::vector<std::pair<int, double>>> rows(100);
  for (int k = 0; k < 100; ++k) {
    for (int j = 0; j < 30; ++j) rows[k].push_back({(j * 7 + k) % 12, 1.0 + j % 3});
  }
  return csr_from_rows<double>(100, 40, rows);
}

/// `rows` rows of 12 entries over 8 columns (each twice) or 16 (none twice), sorted by column: with 2D 5-point's A,
/// C's rows of 8 or 16 entries meet every column from five rows of B.
inline HostCsr<double> striped_b(int rows, bool repeats) {
  const int cols = repeats ? 8 : 16;
  std::vector<std::vector<std::pair<int, double>>> b_rows(rows);
  for (int k = 0; k < rows; ++k) {
    for (int j = 0; j < 12; ++j) b_rows[k].push_back({(k + j) % cols, 1.0 + (j + k) % 5});
    std::sort(b_rows[k].begin(), b_rows[k].end());
  }
  return csr_from_rows<double>(rows, cols, b_rows);
}

/// Every replay shape on every backend (Auto takes entries on CPUs where products barely compress, else rows; tiles
/// or rows on GPUs).
inline std::vector<TestOptions> position_map_paths() {
  std::vector<TestOptions> paths(11);
  paths[1].scratch_bytes = 512;  // GPUs: sums of long rows in C, tables of long rows from the pool
  paths[2].sorted = false;
  paths[3].deterministic = true;
  paths[4].algorithm = KokkosSpGEMM::Algorithm::Hash;
  paths[5].reuse_replay = KokkosSpGEMM::ReplayShape::Tiles;
  paths[6].reuse_replay = KokkosSpGEMM::ReplayShape::Tiles;
  paths[6].sorted = false;
  paths[7].reuse_replay = KokkosSpGEMM::ReplayShape::Rows;
  paths[7].scratch_bytes = 512;
  paths[8].reuse_replay = KokkosSpGEMM::ReplayShape::RowsInScratch;  // GPUs: rows of C < 16,384 take team rows
  paths[9].reuse_replay = KokkosSpGEMM::ReplayShape::Entries;
  paths[10].reuse_replay = KokkosSpGEMM::ReplayShape::Entries;  // unsorted rows of C: chosen as Auto
  paths[10].sorted = false;
  return paths;
}

inline std::string replay_name(const TestOptions& o) {
  return o.reuse_replay == KokkosSpGEMM::ReplayShape::Tiles           ? ", tiles"
         : o.reuse_replay == KokkosSpGEMM::ReplayShape::Rows          ? ", rows"
         : o.reuse_replay == KokkosSpGEMM::ReplayShape::RowsInScratch ? ", rows in scratch"
         : o.reuse_replay == KokkosSpGEMM::ReplayShape::Entries       ? ", entries"
                                                                      : "";
}

TEST(TEST_CATEGORY, position_map_replays_every_row_shape) {
  using Exec = TEST_EXECSPACE;
  const auto p3d27 = KokkosSpGEMM::poisson_3d_27pt<double, int, int>(6);  // rows of ~125: lanes over rows of B
  const auto p2d5 = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(20);   // short rows of B
  // More rows than the GPUs' team-per-row threshold for small matrices: a thread per row there too.
  const auto p2d5_large = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(130);
  const auto p3d7 = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(8);
  const auto prolong = KokkosSpGEMM::aggregation_prolongator<double, int, int>(8, 2, false);  // B rows of one
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(10, 16, 5);  // long rows: team rows, 2-byte places
  const auto uniform = KokkosSpGEMM::uniform_random<double, int, int>(400, 400, 32, 3);  // GPU Auto merge bins
  const auto [long_a, long_b] = one_long_row_case();
  const auto [wide_a, wide_b] = very_long_row_case();
  KokkosSpGEMM::RandomCsrOptions<int> shape;
  shape.rows = 100;
  shape.cols = 100;
  shape.mean_per_row = 20;
  const std::vector<std::tuple<std::string, HostCsr<double>, HostCsr<double>>> cases = {
      {"p3d27^2", p3d27, p3d27},
      {"p2d5^2", p2d5, p2d5},
      {"p2d5(130)^2", p2d5_large, p2d5_large},
      {"p3d7*P", p3d7, prolong},
      {"rmat^2", rmat, rmat},
      {"uniform^2", uniform, uniform},
      {"one long row", long_a, long_b},
      {"70000-entry row", wide_a, wide_b},
      {"repeated columns in B", KokkosSpGEMM::random_csr<double>(shape, 4), repeated_columns_b()}};
  for (const auto& o : position_map_paths()) {
    for (const auto& [name, a, b] : cases) {
      const std::string what = name + (o.sorted ? "" : ", unsorted") + (o.deterministic ? ", deterministic" : "") +
                               ", scratch " + std::to_string(o.scratch_bytes) + replay_name(o);
      // Products that compress 50 to 1 need more than the size of C, and so does A*P on GPUs (its 512 rows replay
      // with a team each, whose offsets per entry of A outweigh this C): those cases get a larger limit.
      TestOptions limited = o;
      if (name == "repeated columns in B" || name == "p3d7*P") limited.reuse_positions_bytes = std::size_t(1) << 24;
      const std::string d = check_reuse_rounds<Exec>(a, b, limited, what);
      EXPECT_NE(d.find("replayed from it"), std::string::npos) << what << "\n" << d;
    }
  }
  // The widths of the places: 1 byte for rows of up to 256 entries, then 2, then 4 (the bins' form: on GPUs Auto
  // gives the 70,000-entry row's products, one an entry of C, the entry form).
  TestOptions by_rows;
  by_rows.reuse_replay = KokkosSpGEMM::ReplayShape::Rows;
  const std::string d = check_reuse_rounds<Exec>(wide_a, wide_b, by_rows, "70000-entry row");
  EXPECT_NE(d.find("4 B a product"), std::string::npos) << d;
  EXPECT_NE(check_reuse_rounds<Exec>(uniform, uniform, {}, "uniform").find("2 B a product"), std::string::npos);
  // A row whose products (10^5 in 4,000 columns) need more than the size of C is gathered, the others replayed.
  const std::string long_d = check_reuse_rounds<Exec>(long_a, long_b, {}, "long row");
  EXPECT_NE(long_d.find("gathered from hash tables"), std::string::npos) << long_d;
  EXPECT_NE(check_reuse_rounds<Exec>(p3d27, p3d27, {}, "p3d27").find("1 B a product"), std::string::npos);
  {
    // GPUs: few long rows of C over short rows of B (a coarse level's A*P: 3D 27-point squared, 4,096 rows of up to
    // 125 entries, times a smoothed prolongator, rows of about 4: ~180 products a lane of 2) whose map cannot also
    // keep an offset an entry of A within the size of C: a thread a row would leave the device idle, so each row
    // keeps its team, each thread a run of A's entries (its lanes over the rows of B), its first product from the
    // team's scan of the runs.
    const auto p3d27_16 = KokkosSpGEMM::poisson_3d_27pt<double, int, int>(16);
    const auto coarse = KokkosSpGEMM::reference_spgemm(p3d27_16, p3d27_16);
    const auto smoothed = KokkosSpGEMM::aggregation_prolongator<double, int, int>(16, 2, true);
    const std::string d = check_reuse_rounds<Exec>(coarse, smoothed, {}, "(p3d27^2)*P smoothed");
    EXPECT_NE(d.find("replayed from it"), std::string::npos) << d;
    EXPECT_EQ(d.find("gathered from hash tables"), std::string::npos) << d;
    if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
      EXPECT_NE(d.find("team-row/position-map"), std::string::npos) << d;
      EXPECT_NE(d.find("runs of A's entries a thread"), std::string::npos) << d;
    }
  }
  TestOptions rows, tiles;
  rows.reuse_replay = KokkosSpGEMM::ReplayShape::Rows;
  tiles.reuse_replay = KokkosSpGEMM::ReplayShape::Tiles;
  const std::string large = check_reuse_rounds<Exec>(p2d5_large, p2d5_large, rows, "p2d5(130), rows");
  EXPECT_NE(large.find("thread-rows/position-map"), std::string::npos) << large;
  // A thread's sums in its slice of scratch (no atomics): rows of up to 16 entries (bins of 2D 5-point's 5 to 13),
  // rows of many entries of B (3D 27-point's 125) in C's row, as are deterministic sums.
  TestOptions in_scratch;
  in_scratch.reuse_replay = KokkosSpGEMM::ReplayShape::RowsInScratch;
  const std::string owned = check_reuse_rounds<Exec>(p2d5_large, p2d5_large, in_scratch, "p2d5(130), in scratch");
  EXPECT_NE(owned.find("thread-rows/position-map"), std::string::npos) << owned;
  EXPECT_NE(owned.find("sums in scratch"), std::string::npos) << owned;
  EXPECT_EQ(owned.find("sums in C"), std::string::npos) << owned;
  // GPUs: rows of C of 12.8 entries on average are written by the team together (adjacent threads on adjacent
  // entries of C), A*P's rows of at most 8 each by its thread (17,576 rows: thread rows on GPUs too).
  const auto p3d7_rows = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(26);
  const auto prolong_rows = KokkosSpGEMM::aggregation_prolongator<double, int, int>(26, 2, false);
  const std::string short_rows =
      check_reuse_rounds<Exec>(p3d7_rows, prolong_rows, in_scratch, "p3d7(26)*P, in scratch");
  EXPECT_NE(short_rows.find("thread-rows/position-map"), std::string::npos) << short_rows;
  EXPECT_NE(short_rows.find("sums in scratch"), std::string::npos) << short_rows;
  EXPECT_EQ(short_rows.find("written together"), std::string::npos) << short_rows;
  EXPECT_EQ(owned.find("rows written together") != std::string::npos, KokkosSpGEMM::BackendTraits<Exec>::is_gpu)
      << owned;
  {
    // Auto where C's rows reach half the device's threads (a 2D 5-point stencil of that size on GPUs, 4,225 rows on
    // CPUs): GPUs replay them by thread rows with sums in scratch, not by tiles.
    const double half = std::max(4096.0, static_cast<double>(Exec().concurrency()) / 2.0);
    const auto filling =
        KokkosSpGEMM::poisson_2d_5pt<double, int, int>(static_cast<int>(std::ceil(std::sqrt(half))) + 1);
    const std::string d = check_reuse_rounds<Exec>(filling, filling, {}, "p2d5 filling the device, auto");
    if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
      EXPECT_NE(d.find("sums in scratch"), std::string::npos) << d;
      EXPECT_EQ(d.find("tiles/position-map"), std::string::npos) << d;
      EXPECT_EQ(d.find("sums in C"), std::string::npos) << d;
    }
  }
  in_scratch.deterministic = true;
  const std::string fixed = check_reuse_rounds<Exec>(p2d5_large, p2d5_large, in_scratch, "p2d5(130), deterministic");
  EXPECT_EQ(fixed.find("sums in scratch"), std::string::npos) << fixed;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
    // Team rows (GPUs): R-MAT's rows meet rows of B of skewed lengths and replay by equal shares of products;
    // uniform rows meet rows of B of one length and keep entries of A to threads.
    const std::string skewed = check_reuse_rounds<Exec>(rmat, rmat, rows, "rmat, rows");
    EXPECT_NE(skewed.find("equal shares"), std::string::npos) << skewed;
    const std::string even = check_reuse_rounds<Exec>(uniform, uniform, rows, "uniform, rows");
    EXPECT_NE(even.find("team-row/position-map"), std::string::npos) << even;
    EXPECT_EQ(even.find("equal shares"), std::string::npos) << even;
  }
  // Tiles: every mapped bin in runs of one width; tiles over many rows, and rows over many tiles (70,000 products);
  // threads that start past their tile's first row or entry (groups of lanes over short rows of B).
  for (const auto& [name, a, b] : cases) {
    TestOptions limited = tiles;
    // Tiles keep the products before each entry of A: A*P's 4,096 entries outweigh its C of 1,664.
    if (name == "repeated columns in B" || name == "p3d7*P") limited.reuse_positions_bytes = std::size_t(1) << 24;
    const std::string d = check_reuse_rounds<Exec>(a, b, limited, name + ", tiles only");
    EXPECT_NE(d.find("tiles/position-map"), std::string::npos) << name << "\n" << d;
    EXPECT_EQ(d.find("thread-rows/position-map"), std::string::npos) << name << "\n" << d;
  }
}

/// Rows of C of every length around the host replay's stack rows (16 to 1,024 entries) and past them, at odd
/// offsets into C (no row starts on a 16-byte boundary by design), each from three products a column. A length
/// recurs every 14th row, so the rows of a length bin lie scattered over C (the stack's case, not sums in C).
inline std::pair<HostCsr<double>, HostCsr<double>> stack_row_lengths_case() {
  const std::vector<int> lengths = {0, 1, 3, 15, 16, 17, 31, 33, 255, 257, 1023, 1024, 1025, 2999};
  const int n = static_cast<int>(lengths.size()) * 3, cols = 3000;
  std::vector<std::vector<std::pair<int, double>>> a_rows(n), b_rows(n);
  for (int i = 0; i < n; ++i) {
    const int len = lengths[static_cast<std::size_t>(i) % lengths.size()];
    for (int j = 0; j < len; ++j) b_rows[i].push_back({(j * 7 + i) % cols, 0.5 + (i + j) % 5});
    for (int k = 0; k < 3; ++k) a_rows[i].push_back({(i + k * lengths.size()) % n, 1.0 + k});
  }
  return {csr_from_rows<double>(n, n, a_rows), csr_from_rows<double>(n, cols, b_rows)};
}

TEST(TEST_CATEGORY, position_map_lanes_sum_in_scratch) {
  using Exec = TEST_EXECSPACE;
  // 2D 5-point 130^2: 16,900 rows of C (a thread each on GPUs under Rows), rows of B of 5 (2 or 4 lanes).
  const auto p2d5_large = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(130);
  TestOptions rows;
  rows.reuse_replay = KokkosSpGEMM::ReplayShape::Rows;
  const std::string large = check_reuse_rounds<Exec>(p2d5_large, p2d5_large, rows, "p2d5(130), rows");
  // GPUs: a thread's vector lanes keep its row's sums in scratch without atomics where B's rows are sorted without
  // repeats (each entry of C here gathers up to 5 products from different rows of B, which the lanes must add in
  // turn); where a row of B repeats a column, or the tuning says so, they add in C's row atomically.
  TestOptions rows_in_c = rows;
  rows_in_c.replay_lanes_in_scratch = false;
  const std::string in_c = check_reuse_rounds<Exec>(p2d5_large, p2d5_large, rows_in_c, "p2d5(130), rows, in C");
  const std::string sorted_b =
      check_reuse_rounds<Exec>(p2d5_large, striped_b(p2d5_large.num_rows(), false), rows, "p2d5(130)*B, rows");
  const std::string repeats_b = check_reuse_rounds<Exec>(p2d5_large, striped_b(p2d5_large.num_rows(), true), rows,
                                                         "p2d5(130)*B repeating columns, rows");
  for (const std::string* d : {&in_c, &sorted_b, &repeats_b}) {
    EXPECT_NE(d->find("thread-rows/position-map"), std::string::npos) << *d;
  }
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
    EXPECT_NE(large.find("sums in scratch"), std::string::npos) << large;
    EXPECT_EQ(large.find("sums in C"), std::string::npos) << large;
    EXPECT_NE(sorted_b.find("sums in scratch"), std::string::npos) << sorted_b;
    EXPECT_EQ(sorted_b.find("sums in C"), std::string::npos) << sorted_b;
    EXPECT_NE(in_c.find("sums in C"), std::string::npos) << in_c;
    EXPECT_NE(repeats_b.find("sums in C"), std::string::npos) << repeats_b;
  }
}

/// Dense blocks of 40 columns (A: 600 x 600, every 37th row empty; B: 600 x 650, each block's columns shifted by a
/// row's index so that its rows differ): C's rows gather 40 products an entry, over rows of B sorted without repeats
/// (`repeats`: each row of B names one column twice).
inline std::pair<HostCsr<double>, HostCsr<double>> dense_blocks_case(bool repeats) {
  const int n = 600, cols = 650, block = 40;
  std::vector<std::vector<std::pair<int, double>>> a_rows(n), b_rows(n);
  for (int i = 0; i < n; ++i) {
    const int first = i / block * block;
    if (i % 37 != 5) {
      for (int j = 0; j < block; ++j) a_rows[i].push_back({first + j, 1.0 + (i + j) % 7 - 3.0});
    }
    for (int j = 0; j < block; ++j) b_rows[i].push_back({first + j + i % 3, 0.25 + (i * j) % 5});
    if (repeats) b_rows[i].push_back({first + i % 3, 1.5});
    std::sort(b_rows[i].begin(), b_rows[i].end());
  }
  return {csr_from_rows<double>(n, n, a_rows), csr_from_rows<double>(n, cols, b_rows)};
}

// GPUs: team rows whose entries of C gather many products (40 each, more than the team's threads) keep a slice of
// the row's sums a thread without atomics, added up when the row is written; not where a row of B repeats a column,
// nor where the tuning keeps lanes' sums out of scratch. Every backend checks the values against the reference.
TEST(TEST_CATEGORY, position_map_team_rows_sum_in_slices) {
  using Exec = TEST_EXECSPACE;
  const auto [a, b] = dense_blocks_case(false);
  const auto [a_r, b_r] = dense_blocks_case(true);
  // A byte limit past the size of C: 40 products an entry of C take 40 bytes of places.
  TestOptions large;
  large.reuse_positions_bytes = std::size_t(1) << 24;
  TestOptions atomics = large;
  atomics.replay_lanes_in_scratch = false;
  const std::string sliced = check_reuse_rounds<Exec>(a, b, large, "dense blocks");
  const std::string repeated = check_reuse_rounds<Exec>(a_r, b_r, large, "dense blocks, repeats in B");
  const std::string shared = check_reuse_rounds<Exec>(a, b, atomics, "dense blocks, lanes' sums not in scratch");
  TestOptions unsorted = large;
  unsorted.sorted = false;
  const std::string sliced_unsorted = check_reuse_rounds<Exec>(a, b, unsorted, "dense blocks, unsorted");
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
    EXPECT_NE(sliced.find("team-row/position-map"), std::string::npos) << sliced;
    EXPECT_NE(sliced.find("a slice a thread"), std::string::npos) << sliced;
    EXPECT_NE(sliced_unsorted.find("a slice a thread"), std::string::npos) << sliced_unsorted;
    EXPECT_NE(shared.find("team-row/position-map"), std::string::npos) << shared;
    EXPECT_EQ(shared.find("a slice a thread"), std::string::npos) << shared;
    EXPECT_NE(repeated.find("team-row/position-map"), std::string::npos) << repeated;
    EXPECT_EQ(repeated.find("a slice a thread"), std::string::npos) << repeated;
  } else {
    EXPECT_EQ(sliced.find("a slice a thread"), std::string::npos) << sliced;
  }
}

/// Long rows of C that gather about ten products an entry (A: 240 x 300, B: 300 x 2,000): their places would take
/// more than the size of C, so the map leaves them to the numeric kernels with C's columns known (on GPUs dense
/// rows in scratch), while it maps the short rows (every 8th row of A, from 1: one row of B). Rows of B of 150
/// distinct columns, ten of them of 1,500; every 8th row of A meets two of those long rows only (fewer entries of A
/// than a team's threads), every 31st is empty. `repeats`: each row of B names one column twice.
inline std::pair<HostCsr<double>, HostCsr<double>> gathered_dense_rows_case(bool repeats) {
  const int n = 240, inner = 300, cols = 2000;
  std::vector<std::vector<std::pair<int, double>>> a_rows(n), b_rows(inner);
  std::uint64_t x = 777;
  const auto next = [&](int m) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((x >> 33) % static_cast<std::uint64_t>(m));
  };
  for (int k = 0; k < inner; ++k) {
    std::vector<char> taken(cols, 0);
    const int len = k < 10 ? 1500 : 150;
    while (static_cast<int>(b_rows[k].size()) < len) {
      const int col = next(cols);
      if (taken[col]) continue;
      taken[col] = 1;
      b_rows[k].push_back({col, 0.25 + next(7)});
    }
    if (repeats) b_rows[k].push_back({b_rows[k][0].first, 1.5});
    std::sort(b_rows[k].begin(), b_rows[k].end());
  }
  for (int i = 0; i < n; ++i) {
    if (i % 31 == 3) continue;
    if (i % 8 == 0) {
      a_rows[i] = {{i % 5, 1.0}, {5 + i % 5, -2.0}};
      continue;
    }
    if (i % 8 == 1) {  // a short row of C, one product an entry: mapped
      a_rows[i] = {{10 + i % (inner - 10), 3.0}};
      continue;
    }
    for (int j = 0; j < 150; ++j) a_rows[i].push_back({10 + (i * 7 + j * 11) % (inner - 10), 1.0 + (i + j) % 5 - 2.0});
    std::sort(a_rows[i].begin(), a_rows[i].end());
    a_rows[i].erase(std::unique(a_rows[i].begin(), a_rows[i].end(),
                                [](const auto& p, const auto& q) { return p.first == q.first; }),
                    a_rows[i].end());
  }
  return {csr_from_rows<double>(n, inner, a_rows), csr_from_rows<double>(inner, cols, b_rows)};
}

// GPUs: the rows the map leaves to the numeric kernels (their values dense in scratch, no pool) run beside the
// replay of the mapped rows, on a side queue after the operands' check; on one queue (Tuning::launch_queues 1) after
// it. Every backend checks the values against the reference, sorted and unsorted, B's rows with and without a
// repeated column.
TEST(TEST_CATEGORY, position_map_gathered_rows_beside_the_replay) {
  using Exec = TEST_EXECSPACE;
  const auto [a, b] = gathered_dense_rows_case(false);
  const auto [a_r, b_r] = gathered_dense_rows_case(true);
  TestOptions one_queue;
  one_queue.launch_queues = 1;
  TestOptions unsorted;
  unsorted.sorted = false;
  const std::string beside = check_reuse_rounds<Exec>(a, b, {}, "gathered dense rows");
  const std::string beside_unsorted = check_reuse_rounds<Exec>(a, b, unsorted, "gathered dense rows, unsorted");
  const std::string repeated = check_reuse_rounds<Exec>(a_r, b_r, {}, "gathered dense rows, repeats in B");
  const std::string in_order = check_reuse_rounds<Exec>(a, b, one_queue, "gathered dense rows, one queue");
  for (const std::string* d : {&beside, &beside_unsorted, &repeated, &in_order}) {
    EXPECT_NE(d->find("replayed from it"), std::string::npos) << *d;
    EXPECT_NE(d->find("gathered from hash tables"), std::string::npos) << *d;
    const bool gpu = KokkosSpGEMM::BackendTraits<Exec>::is_gpu;
    EXPECT_EQ(d->find("beside the replay") != std::string::npos, gpu && d != &in_order) << *d;
    if (gpu) EXPECT_NE(d->find("(values in scratch)"), std::string::npos) << *d;
  }
}

TEST(TEST_CATEGORY, position_map_host_rows_sum_on_the_stack_and_stream) {
  using Exec = TEST_EXECSPACE;
  const auto [a, b] = stack_row_lengths_case();
  // Streaming stores past every C (1 byte), never (0) and by the default's size; sorted and unsorted rows.
  for (const std::size_t stream : {std::size_t(1), std::size_t(0), TestOptions().host_stream_bytes}) {
    for (const bool sorted : {true, false}) {
      TestOptions o;
      o.host_stream_bytes = stream;
      o.sorted = sorted;
      const std::string what = "stack rows, stream past " + std::to_string(stream) + (sorted ? "" : ", unsorted");
      const std::string d = check_reuse_rounds<Exec>(a, b, o, what);
      EXPECT_NE(d.find("replayed from it"), std::string::npos) << what << "\n" << d;
    }
  }
}

// The entry form: a word an entry of C names its product or its list of products (sorted into A's then B's order),
// on every backend when asked for, and by Auto where products barely compress (on GPUs, with short lists only). Entries
// of one product, of several (short lists and lists past the insertion sort), of none in a row of C; empty rows,
// rectangular shapes; the byte limit; sorted output only (unsorted takes the bins' form); the replay after C's rows
// were reordered by hand.
TEST(TEST_CATEGORY, position_map_entry_form_names_each_entrys_products) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  TestOptions entries;
  entries.reuse_replay = KokkosSpGEMM::ReplayShape::Entries;
  KokkosSpGEMM::RandomCsrOptions<int> sparse_a, sparse_b;
  sparse_a.rows = 700;
  sparse_a.cols = 500;
  sparse_a.mean_per_row = 2;
  sparse_a.empty_row_fraction = 0.2;
  sparse_b.rows = 500;
  sparse_b.cols = 900;
  sparse_b.mean_per_row = 8;  // rows of C of ~16 entries, few of them met twice
  const auto ga = KokkosSpGEMM::random_csr<double>(sparse_a, 5);
  const auto gb = KokkosSpGEMM::random_csr<double>(sparse_b, 6);
  const auto [long_a, long_b] = one_long_row_case();  // lists of up to ~25 products (heap sort)
  KokkosSpGEMM::RandomCsrOptions<int> heavy;
  heavy.rows = 200;
  heavy.cols = 200;
  heavy.mean_per_row = 12;
  heavy.column_pool = 8;  // duplicate-heavy: most entries of C listed
  const auto h = KokkosSpGEMM::random_csr<double>(heavy, 7);
  const auto p2d5 = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(30);
  const std::vector<std::tuple<std::string, HostCsr<double>, HostCsr<double>>> cases = {
      {"sparse graph 700x500 * 500x900", ga, gb},
      {"one long row", long_a, long_b},
      {"duplicate-heavy", h, h},
      {"p2d5^2", p2d5, p2d5}};
  for (const auto& [name, a, b] : cases) {
    TestOptions roomy = entries;
    roomy.reuse_positions_bytes = std::size_t(1) << 26;
    const std::string d = check_reuse_rounds<Exec>(a, b, roomy, name + ", entries");
    EXPECT_NE(d.find("entries/position-map"), std::string::npos) << name << "\n" << d;
    EXPECT_EQ(d.find("gathered from hash tables"), std::string::npos) << name << "\n" << d;
    if (name != "sparse graph 700x500 * 500x900") {
      EXPECT_EQ(d.find(" 0 products listed"), std::string::npos) << name << "\n" << d;
    }
    // Within the size of C by default: the words of an entry each and the listed products' fit where few entries
    // are listed; else the bins' form (check_reuse_rounds checks the bytes kept either way).
    const std::string within = check_reuse_rounds<Exec>(a, b, entries, name + ", entries within C");
    if (name == "sparse graph 700x500 * 500x900") {
      EXPECT_NE(within.find("entries/position-map"), std::string::npos) << within;
    }
    if (name == "duplicate-heavy") EXPECT_EQ(within.find("entries/position-map"), std::string::npos) << within;
    TestOptions unsorted = entries;
    unsorted.sorted = false;
    const std::string u = check_reuse_rounds<Exec>(a, b, unsorted, name + ", entries asked for, unsorted");
    EXPECT_EQ(u.find("entries/position-map"), std::string::npos) << name << "\n" << u;
  }
  // Auto takes the entry form where products barely compress, and the bins' form where they compress. Lists of
  // more than entry_auto_longest_list products keep GPUs to the bins' form: rows of C of four entries of one product
  // each, and one row where column 0 gathers 100 products (1.1 products an entry in all).
  const std::string automatic = check_reuse_rounds<Exec>(ga, gb, {}, "sparse graph, auto");
  EXPECT_NE(automatic.find("entries/position-map"), std::string::npos) << automatic;
  {
    std::vector<std::vector<std::pair<int, double>>> a_rows(300), b_rows(200);
    for (int k = 0; k < 100; ++k) a_rows[0].push_back({k, 1.0 + k % 5});
    for (int i = 1; i < 300; ++i) a_rows[i].push_back({i % 200, 0.5 + i % 3});
    for (int k = 0; k < 200; ++k) {
      if (k < 100) b_rows[k].push_back({0, 2.0});
      for (int j = 1; j <= 3; ++j) b_rows[k].push_back({1 + (7 * k + 131 * j) % 399, 1.0 + j});
    }
    const auto la = csr_from_rows<double>(300, 200, a_rows);
    const auto lb = csr_from_rows<double>(200, 400, b_rows);
    const std::string listed = check_reuse_rounds<Exec>(la, lb, {}, "an entry of 100 products, auto");
    const bool short_lists = KokkosSpGEMM::Impl::entry_auto_longest_list<Exec>() >= 100;
    EXPECT_EQ(listed.find("entries/position-map") != std::string::npos, short_lists) << listed;
    TestOptions asked = entries;
    asked.reuse_positions_bytes = std::size_t(1) << 26;
    EXPECT_NE(check_reuse_rounds<Exec>(la, lb, asked, "an entry of 100 products, entries asked for")
                  .find("entries/position-map"),
              std::string::npos);
  }
  const std::string compressing = check_reuse_rounds<Exec>(p2d5, p2d5, {}, "p2d5^2, auto");
  EXPECT_EQ(compressing.find("entries/position-map"), std::string::npos) << compressing;
  // Deterministic sums keep the bins' form.
  TestOptions fixed = entries;
  fixed.deterministic = true;
  EXPECT_EQ(check_reuse_rounds<Exec>(ga, gb, fixed, "deterministic").find("entries/position-map"), std::string::npos);
  // C's rows reversed by hand after the map was made: the search of a row misses, and the bins' form serves the
  // reversed rows (C stays right and keeps its order).
  {
    using DeviceCsr = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
    const auto da = KokkosSpGEMM::copy_to(exec, ga);
    const auto db = KokkosSpGEMM::copy_to(exec, gb);
    TestOptions o = entries;
    o.synchronous_checks = true;
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    DeviceCsr c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);  // makes the map
    ASSERT_NE(handle.describe().find("entries/position-map"), std::string::npos) << handle.describe();
    auto hc = reverse_rows_by_hand(c);
    const auto a2 = with_new_values(ga, -1.5, 1.0);
    const auto b2 = with_new_values(gb, 0.25, 2.0);
    for (int round = 0; round < 2; ++round) {
      KokkosSpGEMM::spgemm_numeric(exec, handle, KokkosSpGEMM::copy_to(exec, a2), KokkosSpGEMM::copy_to(exec, b2), c);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, false);
      EXPECT_TRUE(cmp.ok) << "reversed rows, round " << round << ": " << cmp.message;
    }
    const auto h2 = KokkosSpGEMM::to_host(c);
    bool kept = true;
    for (std::size_t e = 0; e < h2.nnz(); ++e) kept = kept && h2.entries()(e) == hc.entries()(e);
    EXPECT_TRUE(kept) << "the reversed columns were rewritten";
    EXPECT_EQ(handle.describe().find("entries/position-map"), std::string::npos) << handle.describe();
  }
}

TEST(TEST_CATEGORY, position_map_handles_empty_and_degenerate_shapes) {
  using Exec = TEST_EXECSPACE;
  int index = 0;
  for (const auto& [sa, sb] : random_shapes()) {
    const auto a = KokkosSpGEMM::random_csr<double>(sa, 31 + index);
    const auto b = KokkosSpGEMM::random_csr<double>(sb, 47 + index);
    for (const auto& o : position_map_paths()) check_reuse_rounds<Exec>(a, b, o, "shape " + std::to_string(index));
    ++index;
  }
}

TEST(TEST_CATEGORY, position_map_keeps_within_its_byte_limit) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(10, 16, 8);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  KokkosSpGEMM::Handle<Exec, double> full;
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
  KokkosSpGEMM::spgemm_symbolic(exec, full, da, da, c);
  KokkosSpGEMM::spgemm_numeric(exec, full, da, da, c);
  KokkosSpGEMM::spgemm_numeric(exec, full, da, da, c);
  const std::size_t whole = KokkosSpGEMM::Impl::state(full).positions.bytes();
  ASSERT_GT(whole, 0u);
  // Half the bytes: some bins replayed, the others gathered from hash tables.
  TestOptions half;
  half.reuse_positions_bytes = whole / 2;
  std::string d = check_reuse_rounds<Exec>(a, a, half, "half the map");
  EXPECT_NE(d.find("replayed from it"), std::string::npos) << d;
  EXPECT_NE(d.find("gathered from hash tables"), std::string::npos) << d;
  KokkosSpGEMM::Handle<Exec, double> limited(half);
  KokkosSpGEMM::spgemm_symbolic(exec, limited, da, da, c);
  KokkosSpGEMM::spgemm_numeric(exec, limited, da, da, c);
  KokkosSpGEMM::spgemm_numeric(exec, limited, da, da, c);
  EXPECT_LE(KokkosSpGEMM::Impl::state(limited).positions.bytes(), half.reuse_positions_bytes);
  // No bin fits: no map, the gathers serve every row.
  TestOptions none;
  none.reuse_positions_bytes = 1;
  d = check_reuse_rounds<Exec>(a, a, none, "no map");
  EXPECT_NE(d.find("no bin within"), std::string::npos) << d;
  // Off: no map at all.
  TestOptions off;
  off.reuse_positions = false;
  d = check_reuse_rounds<Exec>(a, a, off, "map off");
  EXPECT_EQ(d.find("position map"), std::string::npos) << d;
}

TEST(TEST_CATEGORY, position_map_tiles_keep_within_the_byte_limit) {
  // Tiles of few products (GPUs: four waves of threads over a small product) cost 12 bytes of record a tile; under a
  // tighter limit they grow back towards the 16 products the choice of bins budgeted, and bins that still do not
  // fit are gathered. The map never outgrows its limit, and C stays right.
  using Exec = TEST_EXECSPACE;
  Exec exec;
  // 4,900 rows of 2D 5-point: rows of B of 5 (4 lanes a tile), 122,500 products.
  const auto a = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(70);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  TestOptions tiles;
  tiles.reuse_replay = KokkosSpGEMM::ReplayShape::Tiles;
  auto made = [&](const TestOptions& o) {
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);  // makes the map
    return std::make_pair(KokkosSpGEMM::Impl::state(handle).positions.bytes(),
                          KokkosSpGEMM::Impl::state(handle).positions.tile_products);
  };
  TestOptions roomy = tiles;
  roomy.reuse_positions_bytes = std::size_t(1) << 28;
  const auto [whole, few] = made(roomy);
  ASSERT_GT(whole, 0u);
  // GPUs: a product this small spreads over four waves of the device's threads, tiles of 2 products a lane.
  const bool gpu = KokkosSpGEMM::BackendTraits<Exec>::is_gpu;
  if (gpu) EXPECT_LT(few, 16) << "tiles of " << few << " products";
  for (int percent : {100, 90, 80, 70, 60, 50, 30}) {
    TestOptions o = tiles;
    o.reuse_positions_bytes = whole * static_cast<std::size_t>(percent) / 100;
    const auto [bytes, tile] = made(o);
    EXPECT_LE(bytes, o.reuse_positions_bytes) << percent << "% of the map, tiles of " << tile << " products";
    // The whole map's bytes less what the analysis keeps: the small tiles' records no longer fit, 16-product ones do.
    if (gpu && percent == 100) EXPECT_GT(tile, few) << "tiles of " << tile << " products";
    check_reuse_rounds<Exec>(a, a, o, std::to_string(percent) + "% of the map, tiles", 2);
  }
}

TEST(TEST_CATEGORY, position_map_deterministic_reuse_gives_the_reference_bits) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto rmat = KokkosSpGEMM::rmat<double, int, int>(10, 16, 3);
  const auto [long_a, long_b] = one_long_row_case();
  KokkosSpGEMM::RandomCsrOptions<int> power;
  power.rows = 300;
  power.cols = 300;
  power.mean_per_row = 6;
  power.power_law = true;
  const auto random = KokkosSpGEMM::random_csr<double>(power, 5);
  const std::vector<std::pair<HostCsr<double>, HostCsr<double>>> cases = {
      {rmat, rmat}, {long_a, long_b}, {random, random}};
  for (int scratch : {0, 512}) {
    TestOptions o;
    o.deterministic = true;
    o.scratch_bytes = scratch;
    for (const auto& [a, b] : cases) {
      KokkosSpGEMM::Handle<Exec, double> handle(o);
      KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
      const auto da = KokkosSpGEMM::copy_to(exec, a);
      const auto db = KokkosSpGEMM::copy_to(exec, b);
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
      for (int round = 1; round <= 3; ++round) {
        const auto a2 = with_new_values(a, 1.0 / (3 + round), 0.1);
        const auto b2 = with_new_values(b, -0.7, 1.0 / round);
        KokkosSpGEMM::spgemm_numeric(exec, handle, KokkosSpGEMM::copy_to(exec, a2), KokkosSpGEMM::copy_to(exec, b2), c);
        ASSERT_TRUE(KokkosSpGEMM::compare_to_reference(c, a2, b2).ok);
        EXPECT_TRUE(bitwise_equal_values(c, KokkosSpGEMM::reference_spgemm(a2, b2)))
            << "scratch " << scratch << ", round " << round;
      }
    }
  }
}

/// The host replay's checksum loop (host_column_check_terms: an AVX2 copy where the build lacks AVX2 and the CPU has
/// it) against column_check_term an entry at a time: 32- and 64-bit columns, negative and past 2^31, runs of every
/// length to 67 (the vector loops' ends) and first entries past 2^32.
TEST(TEST_CATEGORY, position_map_host_checksum_loop_matches_the_terms) {
  std::vector<int> cols32;
  std::vector<std::int64_t> cols64;
  std::uint64_t x = 12345;
  for (int s = 0; s < 4000; ++s) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    cols32.push_back(s % 97 == 0 ? -1 - static_cast<int>(x >> 60) : static_cast<int>(x >> 33));
    cols64.push_back(s % 89 == 0 ? static_cast<std::int64_t>(x >> 1) : static_cast<std::int64_t>(x >> 40) - 7);
  }
  const auto terms = [](const auto& cols, std::int64_t offset, std::int64_t first, std::int64_t n) {
    std::uint64_t sum = 0;
    for (std::int64_t s = 0; s < n; ++s) {
      sum += KokkosSpGEMM::Impl::column_check_term(static_cast<std::int64_t>(cols[offset + s]), first + s);
    }
    return sum;
  };
  for (const std::int64_t first :
       {std::int64_t(0), std::int64_t(3), (std::int64_t(1) << 32) - 5, (std::int64_t(1) << 33) + 12345}) {
    for (std::int64_t n = 0; n <= 67; ++n) {
      for (const std::int64_t offset : {std::int64_t(0), std::int64_t(1), std::int64_t(2001)}) {
        const std::string what =
            "first " + std::to_string(first) + ", " + std::to_string(n) + " columns at " + std::to_string(offset);
        EXPECT_EQ(KokkosSpGEMM::Impl::host_column_check_terms(cols32.data() + offset, first, n),
                  terms(cols32, offset, first, n))
            << what << " (32-bit)";
        EXPECT_EQ(KokkosSpGEMM::Impl::host_column_check_terms(cols64.data() + offset, first, n),
                  terms(cols64, offset, first, n))
            << what << " (64-bit)";
      }
    }
    EXPECT_EQ(KokkosSpGEMM::Impl::host_column_check_terms(cols32.data(), first, 4000), terms(cols32, 0, first, 4000));
    EXPECT_EQ(KokkosSpGEMM::Impl::host_column_check_terms(cols64.data(), first, 4000), terms(cols64, 0, first, 4000));
  }
  // A changed column changes the sum.
  auto changed = cols32;
  changed[1234] ^= 1;
  EXPECT_NE(KokkosSpGEMM::Impl::host_column_check_terms(changed.data(), 0, 4000),
            KokkosSpGEMM::Impl::host_column_check_terms(cols32.data(), 0, 4000));
}

TEST(TEST_CATEGORY, position_map_notices_changed_columns_of_c) {
  using Exec = TEST_EXECSPACE;
  using DeviceCsr = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(8, 6, 11);
  const auto b = KokkosSpGEMM::poisson_2d_5pt<double, int, int>(16);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  const auto a2 = with_new_values(a, -1.5, 1.0);
  const auto b2 = with_new_values(b, 0.25, 2.0);
  const auto da2 = KokkosSpGEMM::copy_to(exec, a2);
  const auto db2 = KokkosSpGEMM::copy_to(exec, b2);
  for (auto o : position_map_paths()) {
    const std::string what =
        std::string(o.sorted ? "sorted" : "unsorted") + (o.deterministic ? ", deterministic" : "") + replay_name(o);
    o.synchronous_checks = true;  // each call reads its own checks and recovers (on GPUs too)
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    DeviceCsr c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);  // makes the map
    ASSERT_TRUE(KokkosSpGEMM::Impl::state(handle).positions.made() &&
                !KokkosSpGEMM::Impl::state(handle).positions.mapped.empty())
        << what;

    // Rows reversed by hand (still this product's columns): the map is made again for them and they stay reversed.
    auto hc = reverse_rows_by_hand(c);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da2, db2, c);
    auto cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, false);
    EXPECT_TRUE(cmp.ok) << what << ", reversed rows: " << cmp.message;
    auto h2 = KokkosSpGEMM::to_host(c);
    bool kept = true;
    for (std::size_t e = 0; e < h2.nnz(); ++e) kept = kept && h2.entries()(e) == hc.entries()(e);
    EXPECT_TRUE(kept) << what << ": the reversed columns were rewritten";
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);  // replays the new map
    cmp = KokkosSpGEMM::compare_to_reference(c, a, b, false);
    EXPECT_TRUE(cmp.ok) << what << ", replay after reversal: " << cmp.message;

    // A column of row 0 replaced by one the row does not have: the full phase rewrites C.
    hc = KokkosSpGEMM::to_host(c);
    std::vector<int> row0(hc.entries().data() + hc.row_map()(0), hc.entries().data() + hc.row_map()(1));
    ASSERT_FALSE(row0.empty());
    int absent = 0;
    while (std::find(row0.begin(), row0.end(), absent) != row0.end()) ++absent;
    ASSERT_LT(absent, hc.num_cols());
    hc.entries()(hc.row_map()(0)) = absent;
    Kokkos::deep_copy(c.entries(), hc.entries());
    KokkosSpGEMM::spgemm_numeric(exec, handle, da2, db2, c);
    cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, o.sorted);
    EXPECT_TRUE(cmp.ok) << what << ", a foreign column: " << cmp.message;

    // A row's column written over by another of its columns (met twice; the one it replaced now absent): the map's
    // remaking finds the repeat, and the full phase rewrites C.
    hc = KokkosSpGEMM::to_host(c);
    int twice = 0;
    while (twice < hc.num_rows() && hc.row_map()(twice + 1) - hc.row_map()(twice) < 2) ++twice;
    ASSERT_LT(twice, hc.num_rows());
    hc.entries()(hc.row_map()(twice)) = hc.entries()(hc.row_map()(twice) + 1);
    Kokkos::deep_copy(c.entries(), hc.entries());
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    cmp = KokkosSpGEMM::compare_to_reference(c, a, b, o.sorted);
    EXPECT_TRUE(cmp.ok) << what << ", a repeated column: " << cmp.message;

    // Spoiled entries (-1 is never a column), then a replay of the map made after the full phase.
    Kokkos::deep_copy(c.entries(), -1);
    KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
    cmp = KokkosSpGEMM::compare_to_reference(c, a, b, o.sorted);
    EXPECT_TRUE(cmp.ok) << what << ", spoiled entries: " << cmp.message;
    for (int round = 0; round < 2; ++round) {
      KokkosSpGEMM::spgemm_numeric(exec, handle, da2, db2, c);
      cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, o.sorted);
      EXPECT_TRUE(cmp.ok) << what << ", after the full phase, round " << round << ": " << cmp.message;
    }
    EXPECT_TRUE(KokkosSpGEMM::Impl::state(handle).positions.made()) << what;
  }
}

// Deferred replays on CUDA record their launches once as a graph (Tuning::replay_graphs) and launch it in the later
// calls on the same arrays. Those calls must read the values as they are at each call (changed in place), follow new
// arrays, check A and B beside the replay as plain launches do, and keep the checks' running totals right over many
// calls queued unread. Other backends launch as before, and the same calls must give the same C.
TEST(TEST_CATEGORY, position_map_graphs_follow_values_arrays_and_checks) {
  using Exec = TEST_EXECSPACE;
  using DeviceCsr = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  constexpr bool deferred = KokkosSpGEMM::BackendTraits<Exec>::is_gpu;
  constexpr bool graphs = KokkosSpGEMM::Impl::LaunchGraph<Exec>::available;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(9, 8, 4);
  const int n = a.num_rows();
  const auto graph_made = [](const auto& handle) {
    const auto& map = KokkosSpGEMM::Impl::state(handle).positions;
    const auto& graph = map.replay_graph.graph;
    return graph != nullptr && static_cast<const KokkosSpGEMM::Impl::ReplayGraph<Exec>*>(graph.get())->made;
  };
  for (const auto shape :
       {KokkosSpGEMM::ReplayShape::Auto, KokkosSpGEMM::ReplayShape::Tiles, KokkosSpGEMM::ReplayShape::Rows}) {
    for (const bool on : {true, false}) {
      TestOptions o;
      o.reuse_replay = shape;
      o.replay_graphs = on;
      const std::string what = std::string(on ? "graphs" : "no graphs") + replay_name(o);
      auto da = KokkosSpGEMM::copy_to(exec, a);  // its values, then an entry, change in place below
      KokkosSpGEMM::Handle<Exec, double> handle(o);
      DeviceCsr c;
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);  // makes the map
      ASSERT_TRUE(KokkosSpGEMM::Impl::state(handle).positions.gathered.empty()) << what << ": every row mapped";
      auto x = a;
      const auto set_values = [&](double scale, double shift) {
        x = with_new_values(a, scale, shift);
        Kokkos::deep_copy(exec, da.values(), x.values());
      };
      const auto expect_product = [&](const std::string& when) {
        const auto cmp = KokkosSpGEMM::compare_to_reference(c, x, x, o.sorted);
        EXPECT_TRUE(cmp.ok) << what << ", " << when << ": " << cmp.message;
      };
      for (int call = 0; call < 5; ++call) {  // replays: plain, recorded, then the graph's
        set_values(1.0 + call, -0.5 * call);
        KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
        KokkosSpGEMM::verify(handle);
        expect_product("values changed in place, replay " + std::to_string(call));
      }
      EXPECT_EQ(graph_made(handle), graphs && on) << what;

      // Calls queued past the checks' slots, read at once: each one's share of the totals is its own.
      for (int call = 0; call < 7; ++call) {
        set_values(0.5 * call - 1.0, 1.0);
        KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      }
      KokkosSpGEMM::verify(handle);
      expect_product("seven calls read together");

      // A copy of the handle starts without the graph (it names the original's counters); the two used in turn give
      // their C's and leave the original's graph in place.
      {
        auto copy = handle;
        EXPECT_FALSE(graph_made(copy)) << what;
        DeviceCsr c2;
        KokkosSpGEMM::spgemm_symbolic(exec, copy, da, da, c2);
        for (int call = 0; call < 5; ++call) {
          KokkosSpGEMM::spgemm_numeric(exec, copy, da, da, c2);
          KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
        }
        KokkosSpGEMM::verify(copy);
        KokkosSpGEMM::verify(handle);
        const auto cmp2 = KokkosSpGEMM::compare_to_reference(c2, x, x, o.sorted);
        EXPECT_TRUE(cmp2.ok) << what << ", the copy's C: " << cmp2.message;
        expect_product("beside a copy");
        EXPECT_EQ(graph_made(copy), graphs && on) << what;
        EXPECT_EQ(graph_made(handle), graphs && on) << what;
      }

      // New arrays of the same structure, then the first ones again.
      const auto x2 = with_new_values(a, -2.0, 0.25);
      const auto db = KokkosSpGEMM::copy_to(exec, x2);
      for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, db, db, c);
      KokkosSpGEMM::verify(handle);
      auto cmp = KokkosSpGEMM::compare_to_reference(c, x2, x2, o.sorted);
      EXPECT_TRUE(cmp.ok) << what << ", new arrays: " << cmp.message;
      for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      KokkosSpGEMM::verify(handle);
      expect_product("the first arrays again");
      EXPECT_EQ(graph_made(handle), graphs && on) << what;

      // A column of A out of range, written in place: the graph's check beside the replay must find it.
      auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), da.entries());
      const std::size_t mid = entries.extent(0) / 2;
      const int saved = entries(mid);
      entries(mid) = n + 5;
      Kokkos::deep_copy(da.entries(), entries);
      if (deferred) {
        KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
        const std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::verify(handle); });
        EXPECT_NE(msg.find("not a well-formed CSR matrix"), std::string::npos) << what << ": " << msg;
      } else {
        const std::string msg =
            expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c); });
        EXPECT_NE(msg.find("column index " + std::to_string(n + 5)), std::string::npos) << what << ": " << msg;
      }
      entries(mid) = saved;
      Kokkos::deep_copy(da.entries(), entries);
      for (int call = 0; call < 5; ++call) {  // the full phase, a map made anew, and its replays
        set_values(3.0 - call, 0.125 * call);
        KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
        KokkosSpGEMM::verify(handle);
        expect_product("after the malformed A, call " + std::to_string(call));
      }
      EXPECT_EQ(graph_made(handle), graphs && on) << what;
    }
  }

  // A Galerkin product's reuse calls (two products a call), A's values changed in place between them.
  const auto p = KokkosSpGEMM::aggregation_prolongator<double, int, int>(8, 2, true);
  const auto lap = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(8);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  auto dlap = KokkosSpGEMM::copy_to(exec, lap);
  const auto pt = KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(exec, dp));
  KokkosSpGEMM::GalerkinHandle<Exec, double> gh;
  DeviceCsr ac;
  KokkosSpGEMM::galerkin_product(exec, gh, dlap, dp, ac);
  for (int call = 0; call < 6; ++call) {
    const auto l = with_new_values(lap, 1.0 + 0.5 * call, 0.25);
    Kokkos::deep_copy(exec, dlap.values(), l.values());
    KokkosSpGEMM::galerkin_numeric(exec, gh, dlap, dp, ac);
    KokkosSpGEMM::verify(gh);
    const auto ref = KokkosSpGEMM::reference_spgemm_with_bounds(pt, KokkosSpGEMM::reference_spgemm(l, p));
    const auto cmp = KokkosSpGEMM::compare_to_reference(ac, ref, true, 16.0);
    EXPECT_TRUE(cmp.ok) << "Galerkin reuse, call " << call << ": " << cmp.message;
  }
}

template <class T>
class PositionMapTyped : public ::testing::Test {};

TYPED_TEST_SUITE(PositionMapTyped, ScalarOrdinalOffsetTypes);

TYPED_TEST(PositionMapTyped, reuse_through_the_map) {
  using S = std::tuple_element_t<0, TypeParam>;
  using O = std::tuple_element_t<1, TypeParam>;
  using F = std::tuple_element_t<2, TypeParam>;
  const auto rmat = KokkosSpGEMM::rmat<S, O, F>(9, 8, 7);
  const auto a = KokkosSpGEMM::uniform_random<S, O, F>(300, 170, 9, 1);
  const auto b = KokkosSpGEMM::uniform_random<S, O, F>(170, 520, 14, 2);
  for (const auto& o : position_map_paths()) {
    check_reuse_rounds<TEST_EXECSPACE>(rmat, rmat, o, "rmat(9,8)^2", 2);
    check_reuse_rounds<TEST_EXECSPACE>(a, b, o, "300x170 * 170x520", 2);
  }
}

}  // namespace KokkosSpGEMMTest
