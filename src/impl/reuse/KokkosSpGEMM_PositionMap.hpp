// The position map of numeric reuse: for every product a_ik * b_kj of the rows it covers, the place of column j in
// row i of C, in 1, 2 or 4 bytes by the row's length. With it, a numeric call on a known structure adds each product
// at its place (one byte read instead of a hash insert and probe), as cuSPARSE's reuse API replays its buffers, but
// within the size of C: the map keeps a byte or two a product where cuSPARSE's buffers keep several words.
//
// Products that barely compress take the entry form instead (EntryProducts.hpp): a word an entry of C.
//
// Rows are binned by the length of their row of C; a bin is mapped whole or not at all, shortest rows first (fewest
// bytes a product), within Options::reuse_positions_bytes. The other bins gather from hash tables in C's column
// order (MultiplyViews::known_columns). Adjacent bins of few rows replay in one launch (small matrices are bound
// by launches, not by work). The map is made from C's columns as they are, so it serves any order the
// rows are in; a checksum of those columns, recomputed by every replay, tells when they were changed since.
#ifndef KOKKOSSPGEMM_POSITIONMAP_HPP
#define KOKKOSSPGEMM_POSITIONMAP_HPP

#include <Kokkos_Core.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/pipeline/KokkosSpGEMM_BinConfig.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// Bytes that hold any place in a row of C of at most `size` entries.
KOKKOS_INLINE_FUNCTION int position_width(std::int64_t size) { return size <= 256 ? 1 : size <= 65536 ? 2 : 4; }

KOKKOS_INLINE_FUNCTION std::int64_t load_position(const unsigned char* base, int width, std::int64_t i) {
  if (width == 1) return base[i];
  if (width == 2) return reinterpret_cast<const std::uint16_t*>(base)[i];
  return reinterpret_cast<const std::uint32_t*>(base)[i];
}

KOKKOS_INLINE_FUNCTION void store_position(unsigned char* base, int width, std::int64_t i, std::int64_t p) {
  if (width == 1) {
    base[i] = static_cast<unsigned char>(p);
  } else if (width == 2) {
    reinterpret_cast<std::uint16_t*>(base)[i] = static_cast<std::uint16_t>(p);
  } else {
    reinterpret_cast<std::uint32_t*>(base)[i] = static_cast<std::uint32_t>(p);
  }
}

/// Where the places of row q (the bins' order) start: its run's first byte, then `width` bytes for each product of
/// the run's rows before it (the map's layout, which the build and the replays share).
template <class Byte, class Starts>
KOKKOS_INLINE_FUNCTION Byte* row_places_of(Byte* positions, std::int64_t first_byte, int width,
                                           const Starts& product_start, std::int64_t first_product, std::int64_t q) {
  return positions + first_byte + width * (product_start(q) - first_product);
}

/// One entry's share of the checksum of C's columns: sensitive to the column and to its place in C. The column
/// rotated past the index's bits (one word a pair for columns under 2^31 and indices under 2^33), then xor-shift,
/// multiply, xor-shift, each a bijection, so a changed entry changes its term. One multiply, not splitmix's two: the
/// terms bound a CPU replay's long rows (docs/performance.md, v77); the first xor-shift keeps swapped columns from
/// cancelling (v77's trials).
KOKKOS_INLINE_FUNCTION std::uint64_t column_check_term(std::int64_t col, std::int64_t index) {
  const std::uint64_t c = static_cast<std::uint64_t>(col);
  std::uint64_t x = ((c << 33) | (c >> 31)) ^ static_cast<std::uint64_t>(index);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 32);
}

/// The sum of column_check_term over n columns of C that start at entry first, on the host, in one thread. The term's
/// 64-bit multiply vectorizes with AVX2 but not with x86-64's baseline SSE2, and these terms bound a CPU replay of
/// rows that barely compress: where the build lacks AVX2 and the CPU has it, host_column_check_terms runs the AVX2
/// copy (docs/performance.md, v79). Always inlined, so that the AVX2 copy compiles this loop as AVX2 code.
template <class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION std::uint64_t column_check_terms(const Ordinal* cols, std::int64_t first, std::int64_t n) {
  std::uint64_t sum = 0;
  for (std::int64_t s = 0; s < n; ++s) sum += column_check_term(static_cast<std::int64_t>(cols[s]), first + s);
  return sum;
}

#if defined(KOKKOSSPGEMM_HOST_AVX2_CLONES)
template <class Ordinal>
KOKKOSSPGEMM_TARGET_AVX2 inline std::uint64_t column_check_terms_avx2(const Ordinal* cols, std::int64_t first,
                                                                      std::int64_t n) {
  return column_check_terms(cols, first, n);
}
#endif

template <class Ordinal>
KOKKOS_INLINE_FUNCTION std::uint64_t host_column_check_terms(const Ordinal* cols, std::int64_t first, std::int64_t n) {
#if defined(KOKKOSSPGEMM_HOST_AVX2_CLONES)
  if (host_has_avx2()) return column_check_terms_avx2(cols, first, n);
#endif
  return column_check_terms(cols, first, n);
}

/// Up to max_runs runs of mapped bins for one tile-replay launch (by value: a handful of numbers each).
struct TileRuns {
  static constexpr int max_runs = 8;
  struct Run {
    std::int64_t first_tile = 0, tiles = 0, row_begin = 0, row_end = 0, first_byte = 0, first_product = 0;
    std::int64_t products = 0;
    int width = 1;
  };
  Run run[max_runs];
  int count = 0;

  /// The run holding tile t.
  KOKKOS_INLINE_FUNCTION int find(std::int64_t t) const {
    int r = 0;
    while (r + 1 < count && t >= run[r + 1].first_tile) ++r;
    return r;
  }
  std::int64_t end_tile() const { return run[count - 1].first_tile + run[count - 1].tiles; }

  /// Runs first, first + 1, ... of the map's mapped bins (PositionMap::Bin).
  template <class Bins>
  static TileRuns of(const Bins& mapped, std::size_t first) {
    TileRuns runs;
    for (std::size_t r = first; r < mapped.size() && runs.count < max_runs; ++r) {
      const auto& b = mapped[r];
      runs.run[runs.count++] = {b.first_tile, b.tiles,         b.row_begin, b.row_end,
                                b.first_byte, b.first_product, b.products,  b.width};
    }
    return runs;
  }
};

/// The reuse status (Handle::m_reuse_status, MultiplyViews::reuse_status) on the host: [0] columns missing from
/// their row's table, [1] the checksum of C's columns, [2] rows and entries of A and B that break the CSR rules
/// (the check beside a replay).
struct ReuseStatus {
  static constexpr int entries = 3;
  std::uint64_t missing = 0, checksum = 0, bad_operands = 0;
};

/// One copy back of the reuse status, after the device's work on it.
template <class ExecSpace, class Status>
ReuseStatus read_reuse_status(const ExecSpace& exec, const Status& status) {
  std::uint64_t found[ReuseStatus::entries] = {0, 0, 0};
  Kokkos::deep_copy(
      exec, Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(found, ReuseStatus::entries),
      status);
  exec.fence();
  return ReuseStatus{found[0], found[1], found[2]};
}

template <class Ordinal, class MemorySpace>
struct PositionMap {
  /// A mapped bin: the replay kernel's shape and where its rows' places are.
  struct Bin {
    BinConfig config;
    int width = 1;                            ///< bytes a place
    std::int64_t first_byte = 0;              ///< the bin's places start here in `positions` (4-byte aligned)
    std::int64_t first_product = 0;           ///< product_start of the bin's first row
    bool in_c = false;                        ///< sums kept in C's values (rows too long for scratch), not in scratch
    bool shares = false;                      ///< team rows: equal shares of each row's products to the threads
    bool together = false;                    ///< thread rows, sums in scratch: the team writes its rows together
    bool slices = false;                      ///< team rows, sums in scratch: a slice of the sums a thread
    int last_bin = 0;                         ///< adjacent small bins replay in one launch: bins config.bin to last_bin
    std::int64_t row_begin = 0, row_end = 0;  ///< the run's rows in the bins' order
    std::int64_t first_tile = 0, tiles = 0;   ///< tile replay: the run's tiles in tile_rows
    std::int64_t products = 0;                ///< tile replay: the run's products
  };

  const void* columns = nullptr;       ///< C's entries array the map was made for (null: no map)
  RowBins<Ordinal, MemorySpace> bins;  ///< every row by the length of its row of C
  std::vector<Bin> mapped;             ///< bins replayed from the map
  std::vector<BinConfig> gathered;     ///< the other bins with work: hash tables read in C's column order
  bool gathered_beside = false;        ///< GPUs: the gathered bins run beside the replay (gathered_beside_replay)
  Kokkos::View<unsigned char*, MemorySpace> positions;     ///< places of the mapped rows' products
  Kokkos::View<std::int64_t*, MemorySpace> product_start;  ///< mapped products before each row, in the bins' order
  Kokkos::View<std::int32_t*, MemorySpace>
      entry_offsets;  ///< team-row and tile replays: products before each entry of A in its row
  /// Tile replay (ReplayShape::Tiles): tile t holds the t-th tile_products products of its run of bins (numbered
  /// within the run); its first product lies in row tile_rows(t) (in the bins' order), in that row's entry of A
  /// tile_entries(t) (counted within the row).
  Kokkos::View<std::int64_t*, MemorySpace> tile_rows;
  Kokkos::View<std::int32_t*, MemorySpace> tile_entries;
  std::int64_t tile_products = 0;
  /// Entry form (ReplayShape::Entries, EntryProducts.hpp): a word an entry of C naming its product, or where its
  /// products' list lies in entry_lists.
  Kokkos::View<std::uint64_t*, MemorySpace> entry_products;
  Kokkos::View<std::uint64_t*, MemorySpace> entry_lists;
  /// Of C's columns in the mapped rows (tile replay: in all rows), when made; each replay recomputes it on the device.
  std::uint64_t checksum = 0;
  /// The deferred replays' launches recorded as one (ReplayGraph.hpp): they name the map's arrays, so they go with
  /// it; refused: a recording failed, the map's replays launch their kernels. A copy of the map (of its handle)
  /// starts without them, as its handle's deferred checks do (the graph names the original's counters), so that
  /// copies used side by side share no graph; a move takes them.
  struct GraphSlot {
    std::shared_ptr<void> graph;
    bool refused = false;
    GraphSlot() = default;
    GraphSlot(const GraphSlot&) {}
    GraphSlot(GraphSlot&&) noexcept = default;
    GraphSlot& operator=(const GraphSlot& other) {
      if (this != &other) *this = GraphSlot();
      return *this;
    }
    GraphSlot& operator=(GraphSlot&&) noexcept = default;
  };
  GraphSlot replay_graph;

  bool made() const { return columns != nullptr; }

  std::size_t bytes() const {
    return bins.perm.span() * sizeof(Ordinal) + positions.span() + product_start.span() * sizeof(std::int64_t) +
           entry_offsets.span() * sizeof(std::int32_t) + tile_rows.span() * sizeof(std::int64_t) +
           tile_entries.span() * sizeof(std::int32_t) +
           (entry_products.span() + entry_lists.span()) * sizeof(std::uint64_t);
  }

  std::string describe() const {
    if (!made()) return "  position map: none yet (made by the first numeric call that reuses C's columns)\n";
    if (mapped.empty()) return "  position map: no bin within its byte limit (Options::reuse_positions_bytes)\n";
    std::string s = "  position map: " + std::to_string(bytes()) + " B; bins replayed from it:\n";
    for (const Bin& b : mapped) {
      if (b.config.kernel == RowKernel::ReplayEntries) {
        s += describe_bin(b.config) + "  a word an entry of C, " + std::to_string(entry_lists.extent(0)) +
             " products listed for entries of several\n";
        continue;
      }
      s += describe_bin(b.config) + "  " + std::to_string(b.width) + " B a product" +
           (b.tiles > 0 ? ", " + std::to_string(b.tiles) + " tiles of ~" + std::to_string(tile_products) + " products"
                        : std::string()) +
           (b.last_bin > b.config.bin ? ", with bins up to " + std::to_string(b.last_bin) : std::string()) +
           (b.shares ? ", equal shares of a row's products" : std::string()) +
           (b.config.kernel == RowKernel::ReplayTeamRow && entry_offsets.extent(0) == 0
                ? ", runs of A's entries a thread"
                : std::string()) +
           (b.in_c       ? ", sums in C\n"
            : b.together ? ", sums in scratch, rows written together\n"
            : b.slices   ? ", sums in scratch, a slice a thread\n"
                         : ", sums in scratch\n");
    }
    if (!gathered.empty()) {
      s += gathered_beside ? "  bins gathered from hash tables (beyond the map's bytes), beside the replay:\n"
                           : "  bins gathered from hash tables (beyond the map's bytes):\n";
      for (const BinConfig& c : gathered) s += describe_bin(c) + "\n";
    }
    return s;
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
