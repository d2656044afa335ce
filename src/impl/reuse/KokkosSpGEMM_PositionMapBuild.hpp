// Making the position map (see PositionMap.hpp) from C's columns as the last numeric call left them: rows binned by
// the length of their row of C, bins chosen within the byte limit, then per row a hash table of C's columns (value:
// their place) looked up for every product of the row.
#ifndef KOKKOSSPGEMM_POSITIONMAPBUILD_HPP
#define KOKKOSSPGEMM_POSITIONMAPBUILD_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <impl/pipeline/KokkosSpGEMM_BinConfig.hpp>
#include <impl/accumulate/KokkosSpGEMM_HashAccumulator.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/reuse/KokkosSpGEMM_EntryProducts.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionMap.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionReplay.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowKernelLaunch.hpp>

#include <cstdint>
#include <limits>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// Length of each row of C, for binning.
template <class CRows>
struct RowLengthOfC {
  CRows c_rows;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    return static_cast<std::int64_t>(c_rows(i + 1) - c_rows(i));
  }
};

/// Which bins a per-row pass over the bins' order treats as mapped.
struct MappedBins {
  bool mapped[num_row_bins] = {};
};

/// The replay kernel of a mapped bin. GPUs: rows of up to 256 entries take a thread each, with vector lanes sized to
/// the bin's mean row of B and the sums in scratch; longer rows take a team each (sums in C when they outgrow
/// scratch). Deterministic: one thread per row, no lanes, so each sum runs in A's then B's order. CPUs: a thread per
/// row, sums in C's row itself (cached, no scratch).
/// Rows of C below which every bin replays with a team per row on GPUs: a thread per row would leave most of the
/// device idle (2,003 rows of bcsstk13 fill 125 teams).
constexpr std::int64_t replay_few_rows = 16384;

/// Whether a bin of rows of up to `bound` entries replays with a team per row (else a thread per row); few_rows: C
/// has fewer than replay_few_rows rows, or rows a thread each would leave the device idle (replay_rows_idle_device).
template <class ExecSpace>
bool replay_team_rows(std::int64_t bound, bool few_rows, const Settings& options) {
  return BackendTraits<ExecSpace>::is_gpu && !options.deterministic && (bound > 256 || few_rows);
}

/// Whether C's rows, a thread each, reach half the device's threads (GPUs): rows enough to fill it by rows.
template <class ExecSpace>
bool replay_rows_fill_device(const ExecSpace& exec, std::int64_t rows) {
  return BackendTraits<ExecSpace>::is_gpu && 2 * rows >= static_cast<std::int64_t>(exec.concurrency());
}

/// Whether the replay runs over tiles of about equal products (ReplayTilesKernel) instead of a thread or team per
/// row. Auto: on GPUs, for products of fewer than 2^24 products over at least 4,096 rows of C that do not fill the
/// device by rows (fills: replay_rows_fill_device): there a thread per row leaves the device idle but for the
/// longest rows, which tiles of equal products avoid. Larger products, and rows that fill the device (stencils'
/// and prolongators' products), are faster by rows; fewer rows of C already take a team each, which tiles do not
/// beat (measured: docs/performance.md). Never in deterministic mode.
template <class ExecSpace>
bool replay_by_tiles(const Settings& options, std::int64_t products, std::int64_t rows, bool fills) {
  if (options.deterministic) return false;
  if (options.reuse_replay != ReplayShape::Auto) return options.reuse_replay == ReplayShape::Tiles;
  return BackendTraits<ExecSpace>::is_gpu && products < (std::int64_t(1) << 24) && rows >= 4096 && !fills;
}

/// Products a tile (a group of `lanes` threads, ReplayTilesKernel) holds: `lanes` times the products a thread
/// adds, which are the products over four waves of the device's threads, 2 to 64 each. A thread's fixed cost is a
/// chain of dependent loads (its tile's record, the row, the entry, the row of B), its products' cost a load each
/// of the place and of B's value; the threads of a warp walk different rows, so few products a thread and many
/// warps to switch between beat long walks, hence four waves of small tiles rather than one wave of larger ones
/// (measured: docs/performance.md). The caller keeps tiles of at least 16 products where their records (12 bytes a
/// tile) would not fit its byte limit.
template <class ExecSpace>
std::int64_t replay_tile_products(const ExecSpace& exec, std::int64_t products, int lanes) {
  const std::int64_t threads = 4 * max_of<std::int64_t>(1, exec.concurrency());
  const std::int64_t each = static_cast<std::int64_t>(
      bit_ceil_u64(static_cast<std::uint64_t>(max_of<std::int64_t>(1, (products + threads - 1) / threads))));
  return lanes * min_of<std::int64_t>(64, max_of<std::int64_t>(2, each));
}

/// Bytes of tile records (tile_rows and tile_entries, one past the last tile) for tiles of `tile` products over
/// `runs` runs of `products` products in all.
inline std::size_t tile_record_bytes(std::int64_t products, std::int64_t tile, std::size_t runs) {
  return static_cast<std::size_t>(products / tile + static_cast<std::int64_t>(runs) + 1) *
         (sizeof(std::int64_t) + sizeof(std::int32_t));
}

/// Half the mean row of B that the products meet, as a power of two of at most `most` lanes (fewer lanes, more rows
/// or entries at once, win up to that point; measured: docs/performance.md).
inline int half_mean_lanes(std::int64_t products, std::int64_t a_entries, int most) {
  const std::int64_t half_mean = a_entries > 0 ? (products + 2 * a_entries - 1) / (2 * a_entries) : 1;
  return static_cast<int>(
      min_of<std::uint64_t>(most, bit_ceil_u64(static_cast<std::uint64_t>(max_of<std::int64_t>(1, half_mean)))));
}

/// Vector lanes of a GPU replay thread (half_mean_lanes). One on CPUs.
template <class ExecSpace>
int replay_lanes(std::int64_t products, std::int64_t a_entries) {
  using Traits = BackendTraits<ExecSpace>;
  return Traits::is_gpu ? half_mean_lanes(products, a_entries, Traits::max_vector_length) : 1;
}

/// Whether a thread a row would leave most of a GPU idle on long rows: the rows' threads (replay_lanes each) fill
/// less than half the device while each lane adds 96 or more products one after another (a 3D 7-point hierarchy's
/// level-2 A*P, 4,096 rows of 252 products over rows of B of 3.75 entries, 126 products a lane of 2, replays faster
/// a team a row; bcsstk13's 2,003 rows, 71 products a lane of 32, a thread a row; measured: docs/performance.md).
/// Such rows replay as few rows do.
template <class ExecSpace>
bool replay_rows_idle_device(const ExecSpace& exec, std::int64_t rows, std::int64_t products, std::int64_t a_entries) {
  if (!BackendTraits<ExecSpace>::is_gpu || rows <= 0) return false;
  const std::int64_t lanes = replay_lanes<ExecSpace>(products, a_entries);
  return 2 * rows * lanes < static_cast<std::int64_t>(exec.concurrency()) && products >= 96 * lanes * rows;
}

/// Whether a team-row replay of rows of up to `bound` entries keeps its sums in C's values: a row's sums outgrow
/// the team's scratch.
template <class ExecSpace, class Scalar>
bool replay_sums_in_c(std::int64_t bound, const Settings& options) {
  return bound * static_cast<std::int64_t>(sizeof(Scalar)) > scratch_budget<ExecSpace>(options);
}

/// Threads a team of the thread-row replay with the sums in scratch (ReplayOwnedRowsKernel) for a bin of `rows` rows
/// of C of up to `bound` entries, `products` products over `a_entries` entries of A; 0: sums in C (ReplayRowsKernel).
/// GPUs, Auto: where 128 threads' sums fit 16 KB (a multiprocessor still holds 1,792 threads), or 32 KB where the
/// rows of B met are short (at most 4 lanes, which gain little coalescing from them): sums in scratch spare each
/// product a round trip to L2, and at 32 KB pay only with the team writing its rows together (replay_rows_together;
/// measured: docs/performance.md). Bins of fewer than 2^15 rows stay in one launch with their neighbours. Where C's
/// rows fill the device (fills: replay_rows_fill_device), every bin whose sums fit 32 KB (as RowsInScratch).
/// ReplayShape::RowsInScratch: wherever the sums fit 32 KB, CPUs too (a thread a team).
template <class ExecSpace, class Scalar>
int replay_rows_in_scratch(std::int64_t bound, std::int64_t rows, std::int64_t products, std::int64_t a_entries,
                           const Settings& options, bool fills) {
  using Traits = BackendTraits<ExecSpace>;
  constexpr int team = 128;
  const std::int64_t team_bytes = team * bound * static_cast<std::int64_t>(sizeof(Scalar));
  if (options.deterministic || team_bytes > min_of<std::int64_t>(32768, scratch_budget<ExecSpace>(options))) return 0;
  if (options.reuse_replay == ReplayShape::RowsInScratch) return Traits::is_gpu ? team : 1;
  if (Traits::is_gpu && fills && options.reuse_replay == ReplayShape::Auto) return team;
  if (!Traits::is_gpu || rows < (std::int64_t(1) << 15)) return 0;
  return team_bytes <= 16384 || replay_lanes<ExecSpace>(products, a_entries) <= 4 ? team : 0;
}

/// Team scratch of a thread-row replay with vector lanes and its sums in scratch: 32 KB, so that seven teams share
/// a multiprocessor, as for thread rows without lanes (replay_rows_in_scratch).
constexpr std::int64_t replay_lanes_scratch_bytes = 32768;

/// Whether a GPU thread's vector lanes may add its row's products in scratch without atomics
/// (ReplayRowsKernel<..., InScratch>): B's rows are sorted without repeats (one row of B's products then land in
/// distinct places), and neither the options nor the order of sums (deterministic) say otherwise. One pass over
/// B's rows, made with the map. Sums in scratch spare each product an atomic in L2, which bound the replay of a
/// 3D 7-point hierarchy's R*AP (8 lanes a thread; measured: docs/performance.md).
template <class ExecSpace, class Views>
bool replay_lanes_in_scratch(const ExecSpace& exec, const Views& v, const Settings& options) {
  if (!BackendTraits<ExecSpace>::is_gpu || options.deterministic || !options.replay_lanes_in_scratch) return false;
  return first_unsorted_row_of(exec, "KokkosSpGEMM::PositionMap::b_rows_sorted_unique", v.b_rows, v.b_cols,
                               static_cast<std::int64_t>(v.b_rows.extent(0)) - 1, true) < 0;
}

/// Whether a team-row run with its sums in scratch gives each thread its own slice of the sums
/// (ReplayTeamRowKernel::slices; B's rows repeat no column, as replay_lanes_in_scratch finds): where the run's
/// entries of C gather a product or more each for every thread of the team, so that the slices' zeroing and adding
/// up (a slot a thread an entry) cost no more than the atomics they spare, and the slices fit the scratch budget.
template <class ExecSpace, class Scalar>
bool replay_team_slices(std::int64_t products, std::int64_t c_entries, const BinConfig& c, const Settings& options) {
  const std::int64_t bytes = static_cast<std::int64_t>(c.team_size) * (c.bound + 1) * sizeof(Scalar) + 64;
  return products >= c_entries * c.team_size && bytes <= scratch_budget<ExecSpace>(options);
}

/// Whether thread rows with their sums in scratch (ReplayOwnedRowsKernel) write their rows together, adjacent
/// threads on adjacent entries of C: on GPUs, where the rows of C average 12 entries or more (three sectors), since
/// a thread writing its own row costs an L2 sector a value; on shorter rows the extra pass costs more than the
/// sectors it saves (measured: docs/performance.md).
/// Their scratch (scratch_bytes, which grows by a padding row of sums and each row's place in C) stays within the
/// budget.
template <class ExecSpace>
bool replay_rows_together(std::int64_t rows, std::int64_t c_entries, std::size_t scratch_bytes,
                          const Settings& options) {
  return BackendTraits<ExecSpace>::is_gpu && c_entries >= 12 * rows &&
         static_cast<std::int64_t>(scratch_bytes) <= scratch_budget<ExecSpace>(options);
}

/// The replay kernel of mapped rows of up to `bound` entries. GPUs: rows of up to 256 entries take a thread each,
/// with vector lanes for half the mean row of B (fewer lanes, more rows at once, win up to that point; measured:
/// docs/performance.md) and the sums in C's row; longer rows take a team each, with the sums in
/// scratch while they fit. Deterministic: one thread per row, no lanes, so each sum runs in A's then B's order.
/// CPUs: a thread per row, sums in C's row itself (cached). Tiles (replay_by_tiles): one launch over all mapped
/// rows; the caller sets the lanes and team size for the whole map. lanes_in_scratch: a thread's lanes may keep its
/// row's sums in scratch without atomics (replay_lanes_in_scratch).
template <class ExecSpace, class Scalar>
BinConfig configure_replay_bin(std::int64_t bound, std::int64_t rows, std::int64_t products, std::int64_t a_entries,
                               bool few_rows, bool tiles, int scratch_team, bool lanes_in_scratch,
                               const Settings& options, bool& in_c) {
  using Traits = BackendTraits<ExecSpace>;
  BinConfig c;
  c.bin = row_bin_of(bound);
  c.rows = rows;
  c.bound = bound;
  c.l1_entries = c.bound;
  c.kernel = RowKernel::ReplayRows;
  in_c = false;
  if (tiles) {
    c.kernel = RowKernel::ReplayTiles;
    in_c = true;
    return c;
  }
  if (scratch_team > 0) {  // a thread per row, sums in scratch (replay_rows_in_scratch)
    c.team_size = scratch_team;
    c.rows_per_team = Traits::is_gpu ? scratch_team : 8;
    return c;
  }
  if (!Traits::is_gpu) {
    c.rows_per_team = 8;
    in_c = true;
    return c;
  }
  const int lanes = replay_lanes<ExecSpace>(products, a_entries);
  if (!replay_team_rows<ExecSpace>(bound, few_rows, options)) {
    // Sums in C's row with the device's native floating-point atomics: faster than scratch, whose floating-point
    // atomics are compare-and-swap loops on sm_90, and no scratch to limit the teams a multiprocessor holds.
    in_c = true;
    if (options.deterministic) {
      c.team_size = c.rows_per_team = 64;
      return c;
    }
    c.vector_length = lanes;
    c.team_size = c.rows_per_team = 256 / c.vector_length;
    if (lanes_in_scratch && lanes > 1) {
      // Threads a team while their rows' sums (and a padding slot a row) fit 32 KB, as for thread rows without
      // lanes; at least a warp of lanes in all.
      int threads = c.team_size;
      while (threads * lanes > Traits::simd_width &&
             threads * (bound + 1) * static_cast<std::int64_t>(sizeof(Scalar)) > replay_lanes_scratch_bytes) {
        threads /= 2;
      }
      if (threads * (bound + 1) * static_cast<std::int64_t>(sizeof(Scalar)) <=
          min_of<std::int64_t>(replay_lanes_scratch_bytes, scratch_budget<ExecSpace>(options))) {
        in_c = false;
        c.team_size = c.rows_per_team = threads;
      }
    }
    return c;
  }
  // A team per row: threads for about 16 of the row's products each, or more while the bin's rows leave the device
  // idle, up to half the mean row of A in threads (each a group of lanes; at least a warp in all, up to 1,024), so
  // that long rows of A do not queue on a few threads. Sized by half the mean row of A alone, a team could take
  // 1,024 threads for a few products each, whose zeroing, barriers and write-out then cost more than those products
  // (measured: docs/performance.md).
  c.kernel = RowKernel::ReplayTeamRow;
  c.vector_length = lanes;
  const std::int64_t half_mean_a = rows > 0 ? (a_entries + 2 * rows - 1) / (2 * rows) : 1;
  const std::int64_t by_products = rows > 0 ? (products + 16 * rows - 1) / (16 * rows) : 1;
  const std::int64_t to_fill = rows > 0 ? concurrency(ExecSpace()) / rows : 1;
  const std::uint64_t threads = min_of<std::uint64_t>(
      1024, bit_ceil_u64(static_cast<std::uint64_t>(max_of<std::int64_t>(1, max_of(by_products, to_fill)))));
  c.team_size = static_cast<int>(
      min_of<std::uint64_t>(max_of<std::uint64_t>(1, threads / static_cast<std::uint64_t>(lanes)),
                            bit_ceil_u64(static_cast<std::uint64_t>(max_of<std::int64_t>(1, half_mean_a)))));
  c.team_size = max_of(c.team_size, max_of(1, Traits::simd_width / lanes));
  in_c = replay_sums_in_c<ExecSpace, Scalar>(c.bound, options);
  return c;
}

/// Whether a team-row run replays by equal shares of each row's products (ReplayTeamRowKernel<..., true>) rather
/// than by entries of A to threads: where the rows of B met are skewed, the longest over 4x their mean (R-MAT meets
/// rows of 1 to 10^4 entries; a thread that meets a hub's row keeps the team waiting). Rows of B of about one length
/// keep the entries: there shares' extra registers and a search each cost more than the balance gains (measured:
/// docs/performance.md).
inline bool replay_by_shares(std::int64_t products, std::int64_t a_entries, std::int64_t longest_b) {
  return a_entries > 0 && longest_b * a_entries > 4 * products;
}

/// One team per row: C's columns go into a table (scratch, or a pool chunk for long rows) with their places, then
/// every product of the row looks its column up and writes the place. Entries of A are walked in order by the whole
/// team (a one-time pass), which gives each its product offset for the team-row replay. A product whose column the
/// row lacks, or a repeated or invalid column of C, counts as a miss: C's columns are not this product's.
template <class ExecSpace, class Views, class Perm>
struct PositionMapBuildKernel {
  using Ordinal = typename Views::ordinal_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  using Space = typename ExecSpace::memory_space;
  static constexpr bool gpu = BackendTraits<ExecSpace>::is_gpu;
  using Table = HashTable<Ordinal, Ordinal, gpu>;

  Views v;
  Perm perm;
  std::int64_t first = 0;
  Ordinal capacity = 0;  // table slots: a power of two at least twice the bin's longest row
  Pool pool;             // chunks for tables beyond scratch (no chunks: tables in scratch)
  unsigned char* positions = nullptr;
  Kokkos::View<const std::int64_t*, Space> product_start;
  Kokkos::View<std::int32_t*, Space> entry_offsets;  // empty: not needed by this bin
  Kokkos::View<std::uint64_t*, Space> status;        // [0]: misses, [1]: checksum of C's columns
  int width = 1;
  std::int64_t first_byte = 0, first_product = 0;
  std::int64_t rows = 0;  // the bin's rows
  int rows_per_team = 1;  // CPUs: a run of rows a team of one thread, so that the checksum's atomic add is a run's
  bool direct = false;    // CPUs: a pool chunk of B's width indexed by column instead of the table (record_row_direct)

  KOKKOS_INLINE_FUNCTION static std::size_t table_bytes(Ordinal capacity) {
    return static_cast<std::size_t>(capacity) * 2 * sizeof(Ordinal);
  }
  std::size_t scratch_bytes() const { return (pool.num_chunks() > 0 ? 0 : table_bytes(capacity)) + 64; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    std::int64_t* chunk_id = static_cast<std::int64_t*>(team.team_shmem().get_shmem_aligned(sizeof(std::int64_t), 16));
    char* storage = nullptr;
    if (pool.num_chunks() > 0) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { *chunk_id = pool.acquire(team.league_rank()); });
      team.team_barrier();
      storage = pool.chunk(*chunk_id);
    } else {
      storage = static_cast<char*>(team.team_shmem().get_shmem_aligned(table_bytes(capacity), 16));
    }
    const Table table{reinterpret_cast<Ordinal*>(storage), reinterpret_cast<Ordinal*>(storage) + capacity,
                      capacity - 1};
    const std::int64_t team_first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t team_end = team_first + rows_per_team < rows ? team_first + rows_per_team : rows;
    std::uint64_t team_sum = 0;
    for (std::int64_t i = team_first; i < team_end; ++i) {
      if constexpr (!gpu) {
        if (direct) {
          team_sum += record_row_direct(reinterpret_cast<Ordinal*>(storage), first + i);
          continue;
        }
      }
      if (i > team_first) team.team_barrier();  // the last row's lookups are done before its table is cleared
      team_sum += record_row(team, table, first + i);
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_add(&status(1), team_sum); });
    if (pool.num_chunks() > 0) {
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { pool.release(*chunk_id); });
    }
  }

  /// Where the places of row perm(q)'s products start.
  KOKKOS_INLINE_FUNCTION unsigned char* row_places(const std::int64_t q) const {
    return row_places_of(positions, first_byte, width, product_start, first_product, q);
  }

  /// f(e, b_begin, b_len, offset) for each entry e of A's row: its row of B, and the products before it in the row.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(const Ordinal row, const F& f) const {
    std::int64_t offset = 0;
    for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
      const Ordinal k = v.a_cols(e);
      const auto b_begin = v.b_rows(k);
      const Ordinal b_len = static_cast<Ordinal>(v.b_rows(k + 1) - b_begin);
      f(e, b_begin, b_len, offset);
      offset += b_len;
    }
  }

  /// record_row for a team of one thread with place[] of B's width: place[col] is col's slot in the row, trusted
  /// only where C's row holds col there (no clearing between rows; the chunk starts uninitialised). A column of C
  /// outside B's width or met twice in its row, and a product whose column the row lacks, count as misses.
  KOKKOS_INLINE_FUNCTION std::uint64_t record_row_direct(Ordinal* place, const std::int64_t q) const {
    const Ordinal row = perm(q);
    const auto c_begin = v.c_rows(row);
    const Ordinal length = static_cast<Ordinal>(v.c_rows(row + 1) - c_begin);
    const auto* c_cols = v.c_cols.data() + c_begin;
    std::uint64_t sum = 0, misses = 0;
    for (Ordinal s = 0; s < length; ++s) {
      const Ordinal col = c_cols[s];
      sum += column_check_term(col, static_cast<std::int64_t>(c_begin + s));
      if (col < 0 || col >= v.b_num_cols) {
        ++misses;
        continue;
      }
      const Ordinal p = place[col];
      if (p >= 0 && p < s && c_cols[p] == col) {
        ++misses;
        continue;
      }
      place[col] = s;
    }
    unsigned char* out = row_places(q);
    for_each_entry(row, [&](const auto e, const auto b_begin, const Ordinal b_len, const std::int64_t offset) {
      if (entry_offsets.data() != nullptr) entry_offsets(e) = static_cast<std::int32_t>(offset);
      for (Ordinal jj = 0; jj < b_len; ++jj) {
        const Ordinal col = v.b_cols(b_begin + jj);
        Ordinal p = col >= 0 && col < v.b_num_cols ? place[col] : Ordinal(-1);
        if (p < 0 || p >= length || c_cols[p] != col) {
          ++misses;
          p = 0;
        }
        store_position(out, width, offset + jj, p);
      }
    });
    if (misses > 0) Kokkos::atomic_add(&status(0), misses);
    return sum;
  }

  /// Row perm(q): its columns into the table, then its products' places; returns the row's checksum term.
  KOKKOS_INLINE_FUNCTION std::uint64_t record_row(const Member& team, const Table& table, const std::int64_t q) const {
    const Ordinal row = perm(q);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, capacity),
                         [&](const Ordinal s) { table.keys[s] = Table::empty; });
    team.team_barrier();

    const auto c_begin = v.c_rows(row);
    const Ordinal length = static_cast<Ordinal>(v.c_rows(row + 1) - c_begin);
    std::uint64_t sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, length),
        [&](const Ordinal s, std::uint64_t& x) {
          const Ordinal col = v.c_cols(c_begin + s);
          x += column_check_term(col, static_cast<std::int64_t>(c_begin + s));
          InsertResult r = InsertResult::Full;
          const Ordinal slot = col >= 0 && col < v.b_num_cols ? table.find_or_claim(col, capacity, r) : Ordinal(-1);
          if (slot < 0 || r != InsertResult::Inserted) {
            Kokkos::atomic_add(&status(0), std::uint64_t(1));
          } else {
            table.values[slot] = s;
          }
        },
        sum);
    team.team_barrier();

    unsigned char* out = row_places(q);
    for_each_entry(row, [&](const auto e, const auto b_begin, const Ordinal b_len, const std::int64_t offset) {
      if (entry_offsets.data() != nullptr) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() { entry_offsets(e) = static_cast<std::int32_t>(offset); });
      }
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, b_len), [&](const Ordinal jj) {
        const Ordinal slot = table.find(v.b_cols(b_begin + jj), capacity);
        if (slot < 0) Kokkos::atomic_add(&status(0), std::uint64_t(1));
        store_position(out, width, offset + jj, slot < 0 ? 0 : table.values[slot]);
      });
    });
    return sum;
  }
};

/// Fills the tiles' records: the row of its run holding each tile's first product (the last row whose first
/// product is at or before it: a search of product_start) and the entry of A within that row holding it (a search
/// of the row's entry offsets, which the map's making has written); a final row entry closes the last tile.
template <class ExecSpace, class Views, class Map>
void make_tile_records(const ExecSpace& exec, const Views& v, Map& map) {
  using Runs = TileRuns;
  using Ordinal = typename Views::ordinal_type;
  const std::int64_t total = map.mapped.back().first_tile + map.mapped.back().tiles;
  map.tile_rows = decltype(map.tile_rows)(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::PositionMap::tile_rows"), total + 1);
  map.tile_entries = decltype(map.tile_entries)(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::PositionMap::tile_entries"), total);
  const auto tile_rows = map.tile_rows;
  const auto tile_entries = map.tile_entries;
  const auto start = map.product_start;
  const auto perm = map.bins.perm;
  const auto offsets = map.entry_offsets;
  const std::int64_t tile = map.tile_products, rows = static_cast<std::int64_t>(map.product_start.extent(0));
  for (std::size_t first = 0; first < map.mapped.size(); first += Runs::max_runs) {
    const Runs runs = Runs::of(map.mapped, first);
    const std::int64_t last = first + Runs::max_runs >= map.mapped.size() ? total + 1 : runs.end_tile();
    Kokkos::parallel_for(
        "KokkosSpGEMM::PositionMap::tile_records", Impl::Range<ExecSpace>(exec, runs.run[0].first_tile, last),
        KOKKOS_LAMBDA(const std::int64_t t) {
          if (t == total) {
            tile_rows(t) = rows;
            return;
          }
          const auto& run = runs.run[runs.find(t)];
          const std::int64_t target = run.first_product + (t - run.first_tile) * tile;
          const std::int64_t q =
              run.row_begin + last_at_or_below(start.data() + run.row_begin, run.row_end - run.row_begin, target);
          const Ordinal row = perm(q);
          const auto a_begin = v.a_rows(row);
          tile_rows(t) = q;
          tile_entries(t) = static_cast<std::int32_t>(last_at_or_below(
              offsets.data() + a_begin, static_cast<std::int64_t>(v.a_rows(row + 1) - a_begin), target - start(q)));
        });
  }
}

/// Per bin of rows of C, on the host: its products, entries of A, most products in a row, longest row of B met and
/// entries of C (map_totals_per_bin slots a bin).
constexpr int map_totals_per_bin = 5;

template <class ExecSpace, class Views>
std::vector<std::int64_t> map_bin_totals(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Views& v,
                                         typename Views::ordinal_type rows) {
  using Ordinal = typename Views::ordinal_type;
  constexpr int per_bin = map_totals_per_bin;
  const std::size_t totals_mark = workspace.mark();
  const auto totals =
      workspace.template take_zeroed<std::int64_t>("KokkosSpGEMM::PositionMap::bin_totals", per_bin * num_row_bins);
  // Per bin: products, entries of A, most products in a row, longest row of B met, entries of C.
  add_bin_totals<per_bin, (1u << 2) | (1u << 3)>(
      exec, "KokkosSpGEMM::PositionMap::bin_totals", rows, totals,
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t* x) {
        const std::int64_t c_length = static_cast<std::int64_t>(v.c_rows(i + 1) - v.c_rows(i));
        const int b = row_bin_of(c_length);
        if (b < 1) return -1;
        std::int64_t p = 0, longest = 0;
        for (auto e = v.a_rows(i); e < v.a_rows(i + 1); ++e) {
          const Ordinal k = v.a_cols(e);
          const std::int64_t length = static_cast<std::int64_t>(v.b_rows(k + 1) - v.b_rows(k));
          p += length;
          longest = max_of(longest, length);
        }
        x[0] = p;
        x[1] = static_cast<std::int64_t>(v.a_rows(i + 1) - v.a_rows(i));
        x[2] = p;
        x[3] = longest;
        x[4] = c_length;
        return b;
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), totals);
  workspace.rewind(totals_mark);
  return std::vector<std::int64_t>(host.data(), host.data() + host.extent(0));
}

/// A bin of rows of C that the map takes, with where its places and products start.
struct MapChosenBin {
  int bin, width;
  std::int64_t products, a_entries, longest_b, c_entries, first_byte, first_product;
  int scratch_team;  // thread rows with sums in scratch (replay_rows_in_scratch); 0: not
};

/// The bins the map takes within its byte limit.
struct MapChoice {
  std::vector<MapChosenBin> chosen;
  std::size_t used = 0;                  // bytes kept, the rows' overhead included
  std::int64_t bytes = 0, products = 0;  // the places' bytes and the mapped products
  bool offsets = false;                  // entry offsets kept: tiles, or team rows that take them
  MappedBins mask;
};

/// Bins in order of row length (fewest bytes a product first), each whole or not at all. Places of bins of one
/// width follow each other without padding (4-byte alignment only where the width grows), so that adjacent bins
/// can replay as one launch. team_offsets = false: team rows find their entries' offsets themselves
/// (ReplayTeamRowKernel::by_runs), so that they cost the map no offsets.
template <class ExecSpace, class Scalar, class Bins, class Totals>
MapChoice choose_map_bins(const Bins& bins, const Totals& totals, std::size_t overhead, std::size_t limit,
                          std::size_t entry_offset_bytes, bool few_rows, bool tiles, bool fills,
                          const Settings& options, bool team_offsets = true) {
  constexpr int per_bin = map_totals_per_bin;
  MapChoice c;
  c.used = overhead;
  for (int b = 1; b < num_row_bins; ++b) {
    const std::int64_t bin_products = totals[per_bin * b], most = totals[per_bin * b + 2];
    if (bins.count(b) == 0 || most > std::numeric_limits<std::int32_t>::max()) continue;
    const int width = position_width(row_bin_bound(b));
    const std::int64_t start = c.chosen.empty() || c.chosen.back().width == width ? c.bytes : (c.bytes + 3) / 4 * 4;
    const bool team_row = !tiles && replay_team_rows<ExecSpace>(row_bin_bound(b), few_rows, options);
    const bool offsets = tiles || (team_row && team_offsets);
    const std::size_t need = static_cast<std::size_t>(start - c.bytes + bin_products * width) +
                             (offsets && !c.offsets ? entry_offset_bytes : 0) +
                             (tiles ? tile_record_bytes(bin_products, 16, 1) : 0);  // records of 16-product tiles
    if (c.used + need > limit) continue;
    c.used += need;
    c.offsets = c.offsets || offsets;
    const int scratch_team =
        team_row || tiles ? 0
                          : replay_rows_in_scratch<ExecSpace, Scalar>(row_bin_bound(b), bins.count(b), bin_products,
                                                                      totals[per_bin * b + 1], options, fills);
    c.chosen.push_back({b, width, bin_products, totals[per_bin * b + 1], totals[per_bin * b + 3],
                        totals[per_bin * b + 4], start, c.products, scratch_team});
    c.bytes = start + bin_products * width;
    c.products += bin_products;
    c.mask.mapped[b] = true;
  }
  return c;
}

/// The map's launches: a bin each, except that adjacent bins of one width and one kernel join while the run has
/// fewer than 2^16 rows (a small matrix's bins: launches, not work, bound its replay). Tiles: runs of one width whose
/// rows follow each other, all in one launch. offsets: the map keeps entry offsets (shares need them).
template <class ExecSpace, class Views, class Map>
void plan_map_launches(Map& map, const std::vector<MapChosenBin>& chosen, bool few_rows, bool tiles, bool offsets,
                       bool lanes_in_scratch, const Settings& options) {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Perm = decltype(Map().bins.perm);
  for (std::size_t i = 0; i < chosen.size();) {
    const bool team_row = replay_team_rows<ExecSpace>(row_bin_bound(chosen[i].bin), few_rows, options);
    std::int64_t run_rows = map.bins.count(chosen[i].bin), run_products = chosen[i].products;
    std::int64_t run_entries = chosen[i].a_entries, run_longest_b = chosen[i].longest_b;
    std::int64_t run_c_entries = chosen[i].c_entries;
    std::size_t j = i + 1;
    auto joins = [&](std::size_t j) {
      if (chosen[j].width != chosen[i].width) return false;
      if (tiles) return map.bins.offsets[chosen[j].bin] == map.bins.offsets[chosen[j - 1].bin + 1];
      return run_rows < (std::int64_t(1) << 16) && chosen[j].bin == chosen[j - 1].bin + 1 &&
             replay_team_rows<ExecSpace>(row_bin_bound(chosen[j].bin), few_rows, options) == team_row &&
             chosen[j].scratch_team == chosen[i].scratch_team &&
             // team-row runs do not mix bins with sums in scratch and bins with sums in C
             (!team_row || replay_sums_in_c<ExecSpace, Scalar>(row_bin_bound(chosen[j].bin), options) ==
                               replay_sums_in_c<ExecSpace, Scalar>(row_bin_bound(chosen[i].bin), options));
    };
    while (j < chosen.size() && joins(j)) {
      run_rows += map.bins.count(chosen[j].bin);
      run_products += chosen[j].products;
      run_entries += chosen[j].a_entries;
      run_longest_b = max_of(run_longest_b, chosen[j].longest_b);
      run_c_entries += chosen[j].c_entries;
      ++j;
    }
    typename Map::Bin mb;
    mb.config = configure_replay_bin<ExecSpace, Scalar>(row_bin_bound(chosen[j - 1].bin), run_rows, run_products,
                                                        run_entries, few_rows, tiles, chosen[i].scratch_team,
                                                        lanes_in_scratch, options, mb.in_c);
    mb.config.bin = chosen[i].bin;  // the run's rows start at its first bin's
    mb.last_bin = chosen[j - 1].bin;
    mb.width = chosen[i].width;
    mb.shares = offsets && mb.config.kernel == RowKernel::ReplayTeamRow &&
                replay_by_shares(run_products, run_entries, run_longest_b);
    mb.together = mb.config.kernel == RowKernel::ReplayRows && !mb.in_c && mb.config.vector_length == 1 &&
                  replay_rows_together<ExecSpace>(
                      run_rows, run_c_entries,
                      ReplayOwnedRowsKernel<ExecSpace, Views, Perm, true>::scratch_bytes(
                          mb.config.rows_per_team, static_cast<Ordinal>(mb.config.l1_entries), mb.config.team_size),
                      options);
    mb.slices = lanes_in_scratch && mb.config.kernel == RowKernel::ReplayTeamRow && !mb.in_c && !mb.shares &&
                replay_team_slices<ExecSpace, Scalar>(run_products, run_c_entries, mb.config, options);
    mb.first_byte = chosen[i].first_byte;
    mb.first_product = chosen[i].first_product;
    mb.row_begin = map.bins.offsets[chosen[i].bin];
    mb.row_end = map.bins.offsets[chosen[j - 1].bin + 1];
    map.mapped.push_back(mb);
    i = j;
  }
}

/// Tiles of a tile replay: one launch of one shape, lanes for half the mean row of B over all mapped rows (as for
/// thread rows; on CPUs, where tiles run only when asked for, too, so that tests take the same path as GPUs).
template <class ExecSpace, class Map>
void plan_map_tiles(const ExecSpace& exec, Map& map, const MapChoice& choice, std::size_t limit) {
  std::int64_t entries = 0;
  for (const MapChosenBin& b : choice.chosen) entries += b.a_entries;
  const int lanes = half_mean_lanes(choice.products, entries, replay_tile_most_lanes);
  // Smaller tiles than the 16 products the choice of bins budgeted for only while their records fit the limit.
  std::size_t room = limit - choice.used;
  for (const MapChosenBin& b : choice.chosen) room += tile_record_bytes(b.products, 16, 1);
  map.tile_products = replay_tile_products(exec, choice.products, lanes);
  while (map.tile_products < 16 && tile_record_bytes(choice.products, map.tile_products, map.mapped.size()) > room) {
    map.tile_products *= 2;
  }
  std::int64_t next = 0;
  for (std::size_t r = 0; r < map.mapped.size(); ++r) {
    // A run's products lie between its first product and the next run's (or the total).
    auto& mb = map.mapped[r];
    const std::int64_t end = r + 1 < map.mapped.size() ? map.mapped[r + 1].first_product : choice.products;
    mb.config.team_size = 1;
    mb.config.vector_length = lanes;
    mb.first_tile = next;
    mb.products = end - mb.first_product;
    mb.tiles = (mb.products + map.tile_products - 1) / map.tile_products;
    next += mb.tiles;
  }
}

/// CPUs make the map through an index of B's width a thread (record_row_direct) up to this many bytes: one load
/// and one check a product, where the table's hashing and probes took 7.5 ns a product on 3D 27-point rows.
constexpr std::size_t map_direct_max_bytes = std::size_t(4) << 20;

/// The map's arrays, and each row's first product among the mapped rows' (a scan in the bins' row order).
template <class ExecSpace, class Views, class Map>
void allocate_map(const ExecSpace& exec, const Views& v, Map& map, typename Views::ordinal_type rows,
                  const MapChoice& choice) {
  using Ordinal = typename Views::ordinal_type;
  using Perm = decltype(Map().bins.perm);
  const MappedBins mask = choice.mask;  // by value into the scan below
  // Written once here, at first touch: on huge pages where the host offers them, as C's arrays.
  map.positions = fresh_view<decltype(map.positions)>(exec, "KokkosSpGEMM::PositionMap::positions",
                                                      static_cast<std::size_t>(choice.bytes));
  map.product_start = fresh_view<decltype(map.product_start)>(exec, "KokkosSpGEMM::PositionMap::product_start",
                                                              static_cast<std::size_t>(rows));
  if (choice.offsets) {
    map.entry_offsets =
        fresh_view<decltype(map.entry_offsets)>(exec, "KokkosSpGEMM::PositionMap::entry_offsets", v.a_cols.extent(0));
  }
  const Perm perm = map.bins.perm;
  const auto start = map.product_start;
  Kokkos::parallel_scan(
      "KokkosSpGEMM::PositionMap::product_start", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& partial, const bool final) {
        if (final) start(q) = partial;
        const Ordinal i = perm(q);
        if (!mask.mapped[row_bin_of(static_cast<std::int64_t>(v.c_rows(i + 1) - v.c_rows(i)))]) return;
        for (auto e = v.a_rows(i); e < v.a_rows(i + 1); ++e) {
          const Ordinal k = v.a_cols(e);
          partial += static_cast<std::int64_t>(v.b_rows(k + 1) - v.b_rows(k));
        }
      });
}

/// Records every mapped product's place (a kernel a launch of map.mapped, tables beyond scratch from a pool within
/// pool_cap less the map, whose size goes to pool_bytes) and the checksum of C's columns. False when C's columns
/// lack a product's column (they do not hold this product).
template <class ExecSpace, class Views, class Map>
bool record_positions(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Views& v, Map& map,
                      const Settings& options, std::size_t pool_cap, bool tiles, std::size_t& pool_bytes) {
  using Ordinal = typename Views::ordinal_type;
  using Perm = decltype(Map().bins.perm);
  const Perm perm = map.bins.perm;
  using Kernel = PositionMapBuildKernel<ExecSpace, Views, Perm>;
  using Pool = typename Kernel::Pool;
  const auto status = v.reuse_status;
  Kokkos::deep_copy(exec, status, std::uint64_t(0));
  const std::int64_t scratch = scratch_budget<ExecSpace>(options);
  Settings pool_options = options;
  pool_options.pool_bytes_limit = pool_cap > map.bytes() ? pool_cap - map.bytes() : 1;
  for (const auto& mb : map.mapped) {
    const BinConfig& c = mb.config;
    const std::size_t pool_mark = workspace.mark();
    Kernel k{v,
             perm,
             map.bins.offsets[c.bin],
             static_cast<Ordinal>(bit_ceil_u64(2 * static_cast<std::uint64_t>(c.bound))),
             Pool(),
             map.positions.data(),
             map.product_start,
             c.kernel == RowKernel::ReplayTeamRow || c.kernel == RowKernel::ReplayTiles ? map.entry_offsets
                                                                                        : decltype(map.entry_offsets)(),
             status,
             mb.width,
             mb.first_byte,
             mb.first_product};
    BinConfig shape = c;
    shape.team_size = BackendTraits<ExecSpace>::is_gpu && c.bound > 256 ? 4 : 1;
    shape.vector_length = BackendTraits<ExecSpace>::is_gpu ? BackendTraits<ExecSpace>::max_vector_length : 1;
    // A pool chunk a team: the index of B's width (CPUs, within map_direct_max_bytes), or a table beyond scratch.
    const std::size_t direct_bytes = static_cast<std::size_t>(v.b_num_cols) * sizeof(Ordinal);
    k.direct = !BackendTraits<ExecSpace>::is_gpu && direct_bytes <= map_direct_max_bytes;
    if (k.direct || static_cast<std::int64_t>(Kernel::table_bytes(k.capacity)) + 64 > scratch) {
      const std::size_t chunk = (k.direct ? direct_bytes : Kernel::table_bytes(k.capacity)) + 16;
      k.pool = Pool(exec, workspace, budgeted_pool_chunks(exec, shape, chunk, pool_options, 0, "spgemm_numeric"), chunk,
                    false);
      pool_bytes = max_of(pool_bytes, k.pool.total_bytes());
    }
    k.rows = c.rows;
    k.rows_per_team = BackendTraits<ExecSpace>::is_gpu ? 1 : replay_host_rows_per_team;
    typename Kernel::Policy policy(exec, static_cast<int>((c.rows + k.rows_per_team - 1) / k.rows_per_team),
                                   shape.team_size, shape.vector_length);
    policy.set_scratch_size(0, Kokkos::PerTeam(k.scratch_bytes()));
    Kokkos::parallel_for("KokkosSpGEMM::PositionMap::make_bin_" + std::to_string(c.bin), policy, k);
    workspace.rewind(pool_mark);  // the next bin's kernel runs after this one
  }
  if (tiles) {
    make_tile_records(exec, v, map);
    // A tile replay checks all of C's columns (its tiles do not own rows): the map's checksum likewise.
    Kokkos::deep_copy(exec, Kokkos::subview(status, 1), std::uint64_t(0));
    start_tile_replay(exec, v, status, false);
  }
  const ReuseStatus found = read_reuse_status(exec, status);
  Kokkos::deep_copy(exec, status, std::uint64_t(0));  // for the replay that follows
  map.checksum = found.checksum;
  return found.missing == 0;
}

/// Makes state(handle).positions for C's columns (v.c_cols) within `limit` bytes kept; the tables of rows beyond
/// scratch take a pool within `pool_cap` bytes less the map (at least one chunk), whose size goes to pool_bytes.
/// Returns false when those columns do not hold this product (changed since written): the map is then dropped. A
/// map with no bin within the limit is kept empty, so that later calls do not try again.
template <class ExecSpace, class Handle, class Views>
bool make_position_map(const ExecSpace& exec, Workspace<ExecSpace>& workspace, Handle& handle, const Views& v,
                       std::size_t limit, std::size_t pool_cap, std::size_t& pool_bytes) {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Space = typename ExecSpace::memory_space;
  using Map = PositionMap<Ordinal, Space>;
  const Settings& settings = state(handle).settings;
  Map& map = state(handle).positions;
  map = Map();
  pool_bytes = 0;
  const Ordinal rows = static_cast<Ordinal>(v.c_rows.extent(0)) - 1;
  const void* columns = v.c_cols.data();
  if (rows <= 0) {
    map.columns = columns;
    return true;
  }
  const bool entries_asked = settings.reuse_replay == ReplayShape::Entries;
  if (entry_form_allowed(v, settings) &&
      (entries_asked ||
       (settings.reuse_replay == ReplayShape::Auto && v.c_cols.extent(0) * sizeof(std::uint64_t) <= entry_auto_bytes &&
        entry_form_suits(handle.products(), static_cast<std::int64_t>(v.c_cols.extent(0)))))) {
    const int lanes = replay_lanes<ExecSpace>(handle.products(), static_cast<std::int64_t>(v.a_cols.extent(0)));
    const std::int64_t longest_list =
        entries_asked ? static_cast<std::int64_t>(EntryWord::most_length) : entry_auto_longest_list<ExecSpace>();
    if (make_entry_products(exec, workspace, v, map, lanes, limit, longest_list)) {
      typename Map::Bin mb;
      mb.config.kernel = RowKernel::ReplayEntries;
      mb.config.rows = rows;
      mb.config.bound = handle.max_row_products();
      mb.width = 8;
      mb.in_c = true;
      mb.row_end = rows;
      map.mapped.push_back(mb);
      map.columns = columns;
      return true;
    }
  }
  // The bins' form; a shape asked for that the product cannot take is chosen as Auto would.
  Settings options = settings;
  if (options.reuse_replay == ReplayShape::Entries) options.reuse_replay = ReplayShape::Auto;
  const std::size_t overhead = static_cast<std::size_t>(rows) * (sizeof(Ordinal) + sizeof(std::int64_t));
  if (overhead >= limit) {
    map.columns = columns;
    return true;
  }
  map.bins = bin_rows(exec, workspace, rows, RowLengthOfC<decltype(v.c_rows)>{v.c_rows});
  const auto totals = map_bin_totals(exec, workspace, v, rows);

  std::int64_t all_products = 0, all_entries = 0;  // over the rows with work, mapped or not
  for (int b = 1; b < num_row_bins; ++b) {
    all_products += totals[map_totals_per_bin * b];
    all_entries += totals[map_totals_per_bin * b + 1];
  }
  const bool idle = replay_rows_idle_device(exec, rows, all_products, all_entries);
  bool few_rows = rows < replay_few_rows || idle;
  const bool fills = replay_rows_fill_device(exec, rows);
  bool tiles = replay_by_tiles<ExecSpace>(options, all_products, rows, fills);
  const std::size_t entry_offset_bytes = v.a_cols.extent(0) * sizeof(std::int32_t);
  MapChoice choice = choose_map_bins<ExecSpace, Scalar>(map.bins, totals, overhead, limit, entry_offset_bytes, few_rows,
                                                        tiles, fills, options);
  if (tiles && options.reuse_replay == ReplayShape::Auto && choice.products < all_products) {
    // Tiles cost their records and an offset an entry of A: where that leaves bins to hash tables, rows that
    // need neither may map more (products compressing 6-10 to an entry of C, as the coarse levels of a hierarchy).
    MapChoice by_rows = choose_map_bins<ExecSpace, Scalar>(map.bins, totals, overhead, limit, entry_offset_bytes,
                                                           few_rows, false, fills, options);
    if (by_rows.products > choice.products) {
      tiles = false;
      choice = std::move(by_rows);
    }
  }
  if (few_rows && options.reuse_replay == ReplayShape::Auto && choice.products < all_products) {
    // Few rows of C take a team each, whose entry offsets cost 4 bytes an entry of A: a thread a row needs none.
    // Where that maps more, rows that a thread each would leave the device idle keep their teams, without offsets
    // (by_runs; a coarse level's A*P of 4,096 rows took 117 us a thread a row; measured: docs/performance.md).
    MapChoice by_threads = choose_map_bins<ExecSpace, Scalar>(map.bins, totals, overhead, limit, entry_offset_bytes,
                                                              false, false, fills, options);
    if (by_threads.products > choice.products) {
      tiles = false;
      if (idle) {
        choice = choose_map_bins<ExecSpace, Scalar>(map.bins, totals, overhead, limit, entry_offset_bytes, few_rows,
                                                    false, fills, options, false);
      } else {
        few_rows = false;
        choice = std::move(by_threads);
      }
    }
  }
  plan_map_launches<ExecSpace, Views>(map, choice.chosen, few_rows, tiles, choice.offsets,
                                      !tiles && replay_lanes_in_scratch(exec, v, options), options);
  if (tiles && !map.mapped.empty()) plan_map_tiles(exec, map, choice, limit);
  if (map.mapped.empty()) {
    map = Map();
    map.columns = columns;
    return true;
  }
  // The rows the map leaves to hash tables gather from them (the hash family even under a sorted-row algorithm).
  Settings hash_family = options;
  if (product_kernel_for(hash_family.algorithm, 2) != RowKernel::Empty) hash_family.algorithm = Algorithm::Hash;
  for (const BinConfig& c : configure_bins<ExecSpace, Ordinal, Scalar, true>(
           map.bins, static_cast<std::int64_t>(v.b_num_cols), hash_family)) {
    if (c.bin > 0 && !choice.mask.mapped[c.bin]) map.gathered.push_back(c);
  }
  map.gathered_beside = gathered_beside_replay<ExecSpace>(map, options);
  allocate_map(exec, v, map, rows, choice);
  if (!record_positions(exec, workspace, v, map, options, pool_cap, tiles, pool_bytes)) {
    map = Map();
    return false;
  }
  map.columns = columns;
  return true;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
