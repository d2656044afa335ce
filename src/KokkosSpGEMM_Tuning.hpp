// Tuning knobs of the pipeline: the defaults suit both kinds of device, and tests, benchmarks and the tool turn
// them to force a path (a spill to the memory pool, a replay shape, the wide-row accumulator). Not part of the
// contract (KokkosSpGEMM_Options.hpp): a knob may change meaning when the pipeline is retuned.
#ifndef KOKKOSSPGEMM_TUNING_HPP
#define KOKKOSSPGEMM_TUNING_HPP

#include <KokkosSpGEMM_Options.hpp>

#include <cstddef>

namespace KokkosSpGEMM {

/// How numeric reuse adds the products of the position map's rows (Tuning::reuse_replay).
enum class ReplayShape {
  Auto,  ///< CPUs: Entries where products barely compress (at most 5 for every 4 entries of C) and its words
         ///< fit the map's bytes and 16 MiB, else Rows. GPUs: Tiles for products under 2^24 over at least 4,096 rows of
         ///< C, fewer than half the device's threads; else Rows, sums in scratch wherever they fit where the rows reach
         ///< half the threads.
  Rows,  ///< A thread per row (its vector lanes on GPUs), long rows a team each on GPUs. GPUs keep a thread's sums
         ///< in its slice of scratch for short rows of many rows' bins (see RowsInScratch), else in C's row.
  Tiles,  ///< Tiles of a few equal products (long rows split between tiles), a group of threads each (one launch,
          ///< after one pass that zeroes C).
  RowsInScratch,  ///< As Rows, with a thread's sums in scratch wherever 128 threads' sums fit 32 KB (CPUs too).
                  ///< Options::deterministic always replays by rows, sums in C.
  /// A word an entry of C names its product, or the list of its products; a thread an entry writes C once, no
  /// zeroing pass, no atomics (sorted output and A's own values, within the map's bytes; else as Auto).
  Entries
};

/// How team-row bins accumulate rows of C too long for a scratch hash table (Tuning::wide_rows).
enum class WideRows {
  Auto,         ///< GPUs (not in deterministic mode): DenseScratch for the team-row bins whose rows reach 1/16 of B's
                ///< width, where it fits; Bitmap for the other rows too long for a scratch table. CPUs: Hash.
  Hash,         ///< A level-2 hash table from the memory pool (kkSpGEMM).
  Bitmap,       ///< B's columns as a bitmap in scratch and a dense array of values from the pool; sorted for free.
                ///< Only where the bitmap fits the team's scratch (B.num_cols() / 8 bytes); Hash otherwise.
  DenseScratch  ///< Every team-row bin: the bitmap and the row's dense values both in the team's scratch (spECK's
                ///< dense accumulator), up to the device's limit for a block whatever scratch_bytes says (CUDA:
                ///< 227 KB on H100, past Kokkos' 48 KB); where B is too wide for that, as Bitmap.
};

/// How the block (BSR) product's numeric phase shares rows of C (Tuning::block_rows).
enum class BlockRows {
  Auto,     ///< Teams on GPUs, Threads on CPUs and wherever Options::deterministic is set.
  Threads,  ///< A thread a row, adding into C in A's then B's order.
  Teams     ///< A team a row of a length bin: the row's columns hashed and its blocks held in scratch where they fit
            ///< (scratch_bytes), else added into C; the lanes share the row's block products.
};
struct Tuning {
  /// Level-0 scratch bytes a team may use for its hash table; 0 takes the backend's default. Small values force
  /// rows into the global memory pool (useful for tests).
  int scratch_bytes = 0;
  /// Upper bound in bytes of the memory pool; 0: sized from the analysis alone.
  std::size_t pool_bytes_limit = 0;
  /// Auto chooses the CPU dense accumulator when B has at most this many columns (about 10 bytes a column per
  /// thread).
  long dense_max_columns = 1L << 21;
  /// Symbolic phase of the CPU dense accumulator: B's rows are compressed into runs of (column / 64, bit mask) when
  /// that shortens B by at least this factor (and saves more products than the two passes over B cost), and each
  /// run then marks up to 64 columns of a row of C at once. The compressed B is freed at the end of the phase.
  /// 1: always; 0: never.
  double symbolic_compression_ratio = 3.5;
  /// A one-shot on host threads with the dense accumulator writes each row of C once into a buffer of at most this
  /// many bytes, then copies C out (impl/pipeline/OnePass.hpp), where an entry and value a product of A*B (a bound
  /// on nnz(C)) fit it; else it counts the rows first. The default is the temporary cache's limit, within which the
  /// buffer stays warm between calls. 0: always count first.
  std::size_t one_pass_max_bytes = std::size_t(64) << 20;
  /// ... except where B (its arrays and the accumulator's stamps) takes at most this many bytes and a sample of
  /// rows finds under 1.25 products an entry of C: the count then runs from the core's cache and C, nearly as long as
  /// the products, costs more to copy than the count saves. 0: never count first for that.
  std::size_t one_pass_cached_b_bytes = std::size_t(1) << 20;
  /// ... and on at most this many host threads: measured faster on 1 and 2 threads, not on 8 or 16, and not
  /// measured on 4 (docs/performance.md, v58).
  int one_pass_max_threads = 4;
  /// Numeric calls after the first on the same handle and the same C (same entries array) keep C's column indices
  /// and refresh only the values: the hash tables are read in C's column order instead of being extracted and
  /// sorted. A column the tables lack (C's entries changed in between) makes the call redo the full numeric phase.
  bool reuse_columns = true;
  /// With reuse_columns: the first such call also records, for every product, the place of its column in its row
  /// of C (1, 2 or 4 bytes a product by the row's length: the position map), and later calls add each product into
  /// that place instead of hashing it. Rows are mapped by bins, shortest rows first, within reuse_positions_bytes;
  /// the other rows gather from hash tables as without the map.
  bool reuse_positions = true;
  /// Bytes the position map (with its row order) may keep between calls; 0: the size of C's entries and values.
  std::size_t reuse_positions_bytes = 0;
  /// CPUs: a replay streams the rows it sums on the stack (runs of rows scattered over C) to memory past the caches
  /// (no read of each line before its write) where C's values take at least this many bytes, past a core's L2: those
  /// writes then cost about half (docs/performance.md, v67), and C's next reader finds them in memory, not in the
  /// caches. 0: never.
  std::size_t host_stream_bytes = std::size_t(1) << 20;
  /// The replay's work split (see ReplayShape); Auto suits both kinds of device.
  ReplayShape reuse_replay = ReplayShape::Auto;
  /// CUDA: replays whose checks are deferred (Options::synchronous_checks off) and whose rows are all mapped record
  /// their launches once as a graph and launch it as one in later calls on the same arrays (ReplayGraph.hpp).
  /// false: every call launches its kernels.
  bool replay_graphs = true;
  /// GPUs: thread-row replays with vector lanes keep a row's sums in the thread's slice of scratch, added without
  /// atomics, where B's rows are sorted without repeats and the sums fit, and team-row replays with their sums in
  /// scratch give each thread a slice of the row's sums there (ReplayTeamRowKernel::slices); false: in C's row, or
  /// the team's shared sums, atomically.
  bool replay_lanes_in_scratch = true;
  /// The accumulator of rows too long for scratch (see WideRows).
  WideRows wide_rows = WideRows::Auto;
  /// The block product's row split (see BlockRows); Options::deterministic takes Threads whatever this says.
  BlockRows block_rows = BlockRows::Auto;
  /// GPUs: the streams a phase spreads its bins' launches over (its instance's and side streams of the library's),
  /// so that one bin's last teams run beside the next bin's, and a reuse call's bins gathered beside its replay
  /// (gathered_beside_replay); 1 keeps every launch on the instance. CPUs: always 1.
  int launch_queues = 4;
  /// GPUs, symbolic team rows: a row whose columns span no more than its table's bits (rows of B sorted) is counted
  /// as bits of a window of that span instead of in its hash table. false: always the table.
  bool column_windows = true;
};

namespace Impl {
/// What the pipeline runs with: the user's contract and the tuning knobs, as one object.
struct Settings : Options, Tuning {
  Settings() = default;
  Settings(const Options& options, const Tuning& tuning) : Options(options), Tuning(tuning) {}
};
}  // namespace Impl

}  // namespace KokkosSpGEMM

#endif
