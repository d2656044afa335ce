// The hash-accumulator row kernels of the symbolic and numeric phases (kkSpGEMM Algorithm 3). One source serves
// both phases (Numeric = false counts the distinct columns of each row; true accumulates values and writes C) and
// every backend: on CPUs a team is one thread and the tables need no atomics.
#ifndef KOKKOSSPGEMM_HASHROWKERNELS_HPP
#define KOKKOSSPGEMM_HASHROWKERNELS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/accumulate/KokkosSpGEMM_HashAccumulator.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/accumulate/KokkosSpGEMM_RowSort.hpp>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

template <bool Atomic, class T>
KOKKOS_INLINE_FUNCTION T fetch_add(T* p, T v) {
  if constexpr (Atomic) {
    return Kokkos::atomic_fetch_add(p, v);
  } else {
    const T old = *p;
    *p += v;
    return old;
  }
}

/// Rows of C up to this size are written sorted directly on GPUs: their keys are gathered into a compact array in
/// scratch, and each key goes to its rank among them (no sort pass, no barriers beyond one). Ranking against the
/// whole table instead costs each key a pass over the table, twice the row's size.
constexpr int rank_sort_max_entries = 512;

/// Slots of the compact array for rows of up to n entries: a multiple of 4 (it is read four keys a load).
KOKKOS_INLINE_FUNCTION constexpr std::int64_t rank_slots_for(std::int64_t n) { return n < 4 ? 4 : (n + 3) / 4 * 4; }

/// Rounds a byte offset up to 16 (the compact array is read in 16-byte loads).
KOKKOS_INLINE_FUNCTION constexpr std::size_t align16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

/// Number of keys in keys[0, n4) smaller than key: n4 a multiple of 4, keys 16-byte aligned and padded past the row
/// with empty slots (-1, the largest unsigned value). Every lane of a warp reads the same words (a broadcast).
template <class Ordinal>
KOKKOS_INLINE_FUNCTION Ordinal rank_in_compact(const Ordinal* keys, Ordinal n4, Ordinal key) {
  using U = std::make_unsigned_t<Ordinal>;
  const U k = static_cast<U>(key);
  Ordinal rank = 0;
  if constexpr (sizeof(Ordinal) == 4) {
    struct alignas(16) Four {
      U v[4];
    };
    const Four* quads = reinterpret_cast<const Four*>(keys);
    for (Ordinal q = 0; q < n4 / 4; ++q) {
      const Four f = quads[q];
      rank += (f.v[0] < k) + (f.v[1] < k) + (f.v[2] < k) + (f.v[3] < k);
    }
  } else {
    for (Ordinal u = 0; u < n4; ++u) rank += static_cast<U>(keys[u]) < k;
  }
  return rank;
}

/// Row of C written sorted from a finished table on GPUs (by a thread's lanes or by a whole team): gather puts the
/// table's keys into compact[0, n) and their table slots into slots[0, n) (the kernel filled compact with empty
/// slots at its start); after a synchronisation, write puts each key and its value at its rank. n comes from C's
/// row map: keys past it (operands changed since the symbolic phase) are dropped, never written out of the row.
template <class Ordinal>
struct CompactRow {
  Ordinal* compact;
  Ordinal* slots;
  std::int64_t n;

  template <class Counter>
  KOKKOS_INLINE_FUNCTION void gather(Ordinal key, Ordinal slot, Counter* count) const {
    const auto i = Kokkos::atomic_fetch_add(count, Counter(1));
    if (i < n) {
      compact[i] = key;
      slots[i] = slot;
    }
  }

  /// Writes the i-th compact key and its value from `values` at its rank in C's row, which starts at c_begin;
  /// nothing where the table no longer matches C's row map.
  template <class Views, class Scalar, class COffset>
  KOKKOS_INLINE_FUNCTION void write(const Views& v, COffset c_begin, Ordinal i, const Scalar* values) const {
    const Ordinal key = compact[i];
    const Ordinal r = rank_in_compact(compact, static_cast<Ordinal>(rank_slots_for(n)), key);
    if (key < 0 || r >= n) return;
    v.c_cols(c_begin + r) = key;
    v.c_vals(c_begin + r) = values[slots[i]];
  }
};

/// Who splits the row of B an entry of A meets: the calling thread's vector lanes, every thread and lane of the team
/// (team-sequential partition, kkSpGEMM Fig. 2b), or nobody (the caller's lanes split A's entries instead: rows of
/// B too short for lanes, as in A*P with a tentative P).
enum class BRowSplit { Lanes, WholeTeam, Serial };

/// Adds the products a_ik * B(k,:) of one entry e = (i,k) of A into the tables, B's row split as Split says. Level 1
/// takes what fits its window; the rest goes to level 2 (which never fills: it holds 2x the bound).
template <bool Numeric, BRowSplit Split = BRowSplit::Lanes, class Views, class Table, class Level2, class Member,
          class AOffset>
KOKKOS_INLINE_FUNCTION void insert_products_of_entry(const Views& v, const Member& member,
                                                     const typename Views::ordinal_type row, const AOffset e,
                                                     const Table& l1, const typename Views::ordinal_type l1_window,
                                                     const Level2& l2) {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  const Ordinal k = v.a_cols(e);
  const auto b_begin = v.b_rows(k);
  const Ordinal b_len = static_cast<Ordinal>(v.b_rows(k + 1) - b_begin);
  Scalar a_val = Scalar();
  if constexpr (Numeric) a_val = v.a_value(row, e);
  auto insert = [&](const Ordinal jj) {
    const auto jb = b_begin + jj;
    const Ordinal col = v.b_cols(jb);
    if constexpr (Numeric) {
      const Scalar prod = a_val * v.b_vals(jb);
      if (l1.insert_add(col, prod, l1_window) == InsertResult::Full) l2.insert_add(col, prod, l2.capacity());
    } else {
      if (l1.insert(col, l1_window) == InsertResult::Full) l2.insert(col, l2.capacity());
    }
  };
  if constexpr (Split == BRowSplit::WholeTeam) {
    Kokkos::parallel_for(Kokkos::TeamVectorRange(member, b_len), insert);
  } else if constexpr (Split == BRowSplit::Lanes) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, b_len), insert);
  } else {
    for (Ordinal jj = 0; jj < b_len; ++jj) insert(jj);
  }
}

/// Adds the products of A's row `row` into a table that always holds the row: lane `lane` of `lanes` takes every
/// lanes-th entry of each row of B met. The next entry's row of B is located before this one's products go in, so
/// that the loads of A's column, B's row offsets (and A's value) overlap the inserts instead of following them.
/// Returns the columns this lane inserted first (the row's size, summed over the lanes, in the symbolic phase).
template <bool Numeric, class Views, class Table>
KOKKOS_INLINE_FUNCTION typename Views::ordinal_type insert_row_strided(const Views& v,
                                                                       const typename Views::ordinal_type row,
                                                                       const int lane, const int lanes,
                                                                       const Table& table,
                                                                       const typename Views::ordinal_type window) {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  auto e = v.a_rows(row);
  const auto a_end = v.a_rows(row + 1);
  Ordinal inserted = 0;
  if (e == a_end) return inserted;
  Ordinal k = v.a_cols(e);
  auto b_begin = v.b_rows(k);
  auto b_end = v.b_rows(k + 1);
  Scalar a_val = Scalar();
  if constexpr (Numeric) a_val = v.a_value(row, e);
  for (;;) {
    const auto next = e + 1;
    decltype(b_begin) next_begin = 0, next_end = 0;
    Scalar next_val = Scalar();
    if (next < a_end) {
      const Ordinal kn = v.a_cols(next);
      next_begin = v.b_rows(kn);
      next_end = v.b_rows(kn + 1);
      if constexpr (Numeric) next_val = v.a_value(row, next);
    }
    for (auto jb = b_begin + lane; jb < b_end; jb += lanes) {
      const Ordinal col = v.b_cols(jb);
      if constexpr (Numeric) {
        table.insert_add(col, a_val * v.b_vals(jb), window);
      } else {
        inserted += table.insert(col, window) == InsertResult::Inserted;
      }
    }
    if (next == a_end) break;
    e = next;
    b_begin = next_begin;
    b_end = next_end;
    if constexpr (Numeric) a_val = next_val;
  }
  return inserted;
}

/// A column of a binned complemented mask's row (MultiplyViews::mask_hits) against a row's finished tables: 1 where
/// the row holds it, and Erase takes it out of the tables (numeric: C's row never holds it), else 0.
template <bool Erase, class Ordinal, class Table, class Level2>
KOKKOS_INLINE_FUNCTION std::int64_t mask_column_in_tables(const Ordinal col, const Table& l1, const Ordinal l1_window,
                                                          const Level2& l2) {
  if (Erase ? l1.erase(col, l1_window) : l1.find(col, l1_window) >= 0) return 1;
  if (l2.keys == nullptr) return 0;
  return (Erase ? l2.erase(col, l2.capacity()) : l2.find(col, l2.capacity()) >= 0) ? 1 : 0;
}

/// Bins of thread rows one launch may hold (GPU bins 2 to 7; their tables differ, their team shape does not).
constexpr int thread_rows_max_bins = 8;

/// Several rows per team, one per thread (with its vector lanes), each with a scratch table of `entries` slots that
/// always holds the row (the bin's bound is at most half the table). With ManyBins, one launch serves several bins:
/// teams [first_team[b], first_team[b + 1]) take bin b, each with its own table size, in the scratch of the largest.
template <class ExecSpace, bool Numeric, class Views, class Perm, bool ManyBins = false>
struct ThreadRowsKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Traits = BackendTraits<ExecSpace>;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                             Kokkos::LaunchBounds<Traits::thread_rows_max_threads, Traits::thread_rows_min_teams>>;
  using Member = typename Policy::member_type;
  /// With launch bounds, a team whose scratch keeps fewer teams than their minimum on a multiprocessor is refused.
  static constexpr bool bounded = Traits::thread_rows_min_teams > 0;
  static constexpr bool atomic = Traits::is_gpu;
  using Table = HashTable<Ordinal, Scalar, atomic, true>;

  /// One bin's rows perm[first, first + rows), from team first_team on.
  struct Bin {
    std::int64_t first = 0;
    std::int64_t rows = 0;
    std::int64_t first_team = 0;
    Ordinal entries = 0;
    Ordinal rank_slots = 0;     // > 0: rows written sorted by rank (rank_slots_of), each with a compact array this long
    bool lanes_over_a = false;  // a row's lanes split A's entries, not B's rows (BinConfig::lanes_over_a)
  };

  Views v;
  Perm perm;
  int rows_per_team = 1;
  bool sorted = true;
  int num_bins = 0;
  Bin bins[thread_rows_max_bins];
  int lanes = 1;  // the launch's vector length

  /// Appends a bin of `rows` rows from perm[first] with tables of `entries` slots (thread_rows_launches groups at
  /// most thread_rows_max_bins).
  void add_bin(std::int64_t first, std::int64_t rows, Ordinal entries, bool lanes_over_a = false) {
    if (num_bins == thread_rows_max_bins) throw std::logic_error("KokkosSpGEMM: too many bins for one launch");
    Bin& b = bins[num_bins];
    b.first = first;
    b.rows = rows;
    b.lanes_over_a = lanes_over_a;
    b.first_team = num_bins == 0 ? 0 : bins[num_bins - 1].first_team + teams_of(bins[num_bins - 1].rows);
    b.entries = entries;
    b.rank_slots = rank_slots_of(sorted, v.known_columns, entries);
    ++num_bins;
  }
  std::int64_t teams_of(std::int64_t rows) const { return (rows + rows_per_team - 1) / rows_per_team; }
  std::int64_t league() const {
    return num_bins == 0 ? 0 : bins[num_bins - 1].first_team + teams_of(bins[num_bins - 1].rows);
  }
  /// Scratch of the launch: the largest of its bins'.
  std::size_t launch_scratch_bytes() const {
    std::size_t most = 0;
    for (int b = 0; b < num_bins; ++b) {
      const std::size_t bytes = scratch_bytes(rows_per_team, bins[b].entries, bins[b].rank_slots);
      if (bytes > most) most = bytes;
    }
    return most;
  }

  /// The compact array's slots a row needs, or 0 where rows are not ranked: on GPUs a thread's lanes place each key
  /// at its rank; a CPU thread sorts its row (n log n beats n^2 there).
  static Ordinal rank_slots_of(bool sorted, bool known_columns, Ordinal entries) {
    return atomic && Numeric && sorted && !known_columns && entries <= rank_sort_max_entries
               ? static_cast<Ordinal>(rank_slots_for(entries / 2))
               : Ordinal(0);
  }

  KOKKOS_INLINE_FUNCTION static std::size_t values_bytes(int rows_per_team, Ordinal entries) {
    return align16(Numeric ? static_cast<std::size_t>(rows_per_team) * entries * sizeof(Scalar) : 0);
  }
  /// A row's compact keys and their slots.
  KOKKOS_INLINE_FUNCTION static std::size_t compact_bytes(int rows_per_team, Ordinal rank_slots) {
    return static_cast<std::size_t>(rows_per_team) * rank_slots * 2 * sizeof(Ordinal);
  }
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int rows_per_team, Ordinal entries, Ordinal rank_slots) {
    return values_bytes(rows_per_team, entries) + compact_bytes(rows_per_team, rank_slots) +
           static_cast<std::size_t>(rows_per_team) * (entries + 1) * sizeof(Ordinal) + 64;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (v.operands_failed()) return;
    const std::int64_t t = team.league_rank();
    if constexpr (ManyBins) {
      Bin bin = bins[0];
      for (int k = 1; k < thread_rows_max_bins; ++k) {
        if (k < num_bins && t >= bins[k].first_team) bin = bins[k];
      }
      run(team, t - bin.first_team, bin);
    } else {
      // One bin read in place: its sizes stay kernel arguments, not registers (a selected bin held in registers
      // raised the kernel's register count, and fewer threads then fit a multiprocessor).
      run(team, t, bins[0]);
    }
  }

  KOKKOS_INLINE_FUNCTION void run(const Member& team, const std::int64_t team_in_bin, const Bin& bin) const {
    const std::int64_t first = bin.first, rows = bin.rows;
    const Ordinal entries = bin.entries, rank_slots = bin.rank_slots;
    const int slots = rows_per_team * entries;
    char* base = static_cast<char*>(
        team.team_shmem().get_shmem_aligned(scratch_bytes(rows_per_team, entries, rank_slots) - 64, 16));
    Scalar* values = reinterpret_cast<Scalar*>(base);
    Ordinal* compact = reinterpret_cast<Ordinal*>(base + values_bytes(rows_per_team, entries));
    Ordinal* compact_slots = compact + rows_per_team * rank_slots;
    Ordinal* keys = compact_slots + rows_per_team * rank_slots;
    Ordinal* counters = keys + slots;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, slots), [&](const int s) {
      keys[s] = Table::empty;
      if constexpr (Numeric) values[s] = Scalar();
    });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows_per_team * rank_slots),
                         [&](const int s) { compact[s] = Table::empty; });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows_per_team), [&](const int t) { counters[t] = 0; });
    team.team_barrier();

    const std::int64_t team_first = team_in_bin * rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
      if (team_first + t >= rows) return;
      const Ordinal row = perm(first + team_first + t);
      Table table{keys + t * entries, Numeric ? values + t * entries : nullptr, entries - 1};
      // A's row walked sequentially by this thread, its lanes splitting each row of B; or, for short rows of B,
      // the lanes split A's row and each walks its entries' rows of B. The table always holds the row, so level 1
      // probes the whole table and level 2 is never reached.
      const auto a_begin = v.a_rows(row);
      if (bin.lanes_over_a) {
        Kokkos::parallel_for(
            Kokkos::ThreadVectorRange(team, static_cast<Ordinal>(v.a_rows(row + 1) - a_begin)), [&](const Ordinal k) {
              insert_products_of_entry<Numeric, BRowSplit::Serial>(v, team, row, a_begin + k, table, entries, table);
            });
      } else if constexpr (Numeric) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes),
                             [&](const int lane) { insert_row_strided<Numeric>(v, row, lane, lanes, table, entries); });
      } else {
        // The symbolic row's size is counted as its columns go in: no pass over the table after.
        Ordinal count = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, lanes),
            [&](const int lane, Ordinal& c) { c += insert_row_strided<Numeric>(v, row, lane, lanes, table, entries); },
            count);
        Kokkos::single(Kokkos::PerThread(team), [&]() { v.row_sizes(row) = count; });
      }
    });
    team.team_barrier();

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
      if (team_first + t >= rows) return;
      const Ordinal row = perm(first + team_first + t);
      const Ordinal* my_keys = keys + t * entries;
      if (Numeric ? v.erases_in_row(row) : v.binned_mask()) {
        // Symbolic: the mask's columns the row holds, counted; numeric: erased (the vector loop's end orders the
        // erasures before the writes below).
        const Table table{keys + t * entries, nullptr, entries - 1};
        const auto m_begin = v.mask_rows(row);
        const Ordinal m_len = static_cast<Ordinal>(v.mask_rows(row + 1) - m_begin);
        if constexpr (Numeric) {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_len), [&](const Ordinal j) {
            mask_column_in_tables<true>(v.mask_cols(m_begin + j), table, entries, Table());
          });
        } else {
          std::int64_t hits = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, m_len),
              [&](const Ordinal j, std::int64_t& h) {
                h += mask_column_in_tables<false>(v.mask_cols(m_begin + j), table, entries, Table());
              },
              hits);
          Kokkos::single(Kokkos::PerThread(team), [&]() { v.mask_hits(row) = static_cast<Ordinal>(hits); });
        }
      }
      if constexpr (!Numeric) {
        if (!bin.lanes_over_a) return;  // counted on insertion
        std::int64_t count = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, entries),
            [&](const Ordinal s, std::int64_t& c) { c += my_keys[s] != Table::empty; }, count);
        Kokkos::single(Kokkos::PerThread(team), [&]() { v.row_sizes(row) = count; });
      } else if (v.known_columns) {
        const auto c_begin = v.c_rows(row);
        const Table table{keys + t * entries, values + t * entries, entries - 1};
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, v.c_rows(row + 1) - c_begin), [&](const Ordinal j) {
          v.c_vals(c_begin + j) = v.gathered(table, entries, Table(), v.c_cols(c_begin + j));
        });
      } else if (rank_slots > 0) {
        const CompactRow<Ordinal> out{compact + t * rank_slots, compact_slots + t * rank_slots,
                                      static_cast<std::int64_t>(v.c_rows(row + 1) - v.c_rows(row))};
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, entries), [&](const Ordinal s) {
          if (my_keys[s] >= 0) out.gather(my_keys[s], s, &counters[t]);
        });
      } else {
        const auto c_begin = v.c_rows(row);
        const Scalar* my_values = values + t * entries;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, entries), [&](const Ordinal s) {
          const Ordinal key = my_keys[s];
          if (key >= 0) {
            const auto pos = c_begin + fetch_add<atomic>(&counters[t], Ordinal(1));
            v.c_cols(pos) = key;
            v.c_vals(pos) = my_values[s];
          }
        });
      }
    });
    if constexpr (Numeric) {
      if (!sorted || v.known_columns) return;
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
        if (team_first + t >= rows) return;
        const Ordinal row = perm(first + team_first + t);
        const auto c_begin = v.c_rows(row);
        if (rank_slots > 0) {
          const CompactRow<Ordinal> out{compact + t * rank_slots, compact_slots + t * rank_slots,
                                        static_cast<std::int64_t>(v.c_rows(row + 1) - c_begin)};
          const Table table{keys + t * entries, values + t * entries, entries - 1};
          switch (keys_per_lane(rank_slots)) {
            case 1:
              return write_sorted_across_lanes<1>(team, out, table, entries, rank_slots, c_begin);
            case 2:
              return write_sorted_across_lanes<2>(team, out, table, entries, rank_slots, c_begin);
            case 4:
              return write_sorted_across_lanes<4>(team, out, table, entries, rank_slots, c_begin);
            default:
              break;
          }
          const Scalar* my_values = values + t * entries;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, out.n),
                               [&](const Ordinal i) { out.write(v, c_begin, i, my_values); });
          return;
        }
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          sort_row_sequential(v.c_cols.data() + c_begin, v.c_vals.data() + c_begin, v.c_rows(row + 1) - c_begin);
        });
      });
    }
  }
  /// Keys a lane holds where a row's compact keys are sorted across the thread's lanes (sort_across_lanes): 1, 2
  /// or 4 (more would take registers from the whole kernel), or 0 where they are ranked (CompactRow::write).
  KOKKOS_INLINE_FUNCTION int keys_per_lane(Ordinal rank_slots) const {
    if constexpr (!atomic) {
      return 0;
    } else {
      const int per = rank_slots <= lanes ? 1 : static_cast<int>(rank_slots / lanes);
      return per <= 4 && per * lanes >= rank_slots ? per : 0;
    }
  }

  /// Writes a row's compact keys (rank_slots of them, the empty ones last) sorted, E a lane in registers, each with
  /// its value found in the table.
  template <int E, class COffset>
  KOKKOS_INLINE_FUNCTION void write_sorted_across_lanes(const Member& team, const CompactRow<Ordinal>& out,
                                                        const Table& table, Ordinal entries, Ordinal rank_slots,
                                                        COffset c_begin) const {
    using U = std::make_unsigned_t<Ordinal>;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
      U k[E];
      KOKKOSSPGEMM_UNROLL
      for (int e = 0; e < E; ++e) {
        const std::int64_t i = static_cast<std::int64_t>(e) * lanes + lane;
        k[e] = static_cast<U>(i < rank_slots ? out.compact[i] : Table::empty);
      }
      sort_across_lanes<E>(k, lane, lanes);
      KOKKOSSPGEMM_UNROLL
      for (int e = 0; e < E; ++e) {
        const std::int64_t i = static_cast<std::int64_t>(e) * lanes + lane;
        const auto key = static_cast<Ordinal>(k[e]);
        if (i >= out.n || key == Table::empty) continue;
        const Ordinal s = table.find(key, entries);
        v.c_cols(c_begin + i) = key;
        v.c_vals(c_begin + i) = s >= 0 ? table.values[s] : Scalar();
      }
    });
  }
};

/// The columns of one row of C as bits of a window from its lowest column, in a team's scratch (symbolic team rows
/// on GPUs whose columns span no more than their table's bits: TeamRowKernel::count_in_column_window). A column
/// outside [low, high] marks the row, whose span was then wrong (a row of B out of order).
template <class Ordinal>
struct ColumnWindow {
  unsigned* words = nullptr;
  Ordinal low = 0;
  Ordinal high = -1;
  int* outside = nullptr;

  KOKKOS_INLINE_FUNCTION InsertResult insert(const Ordinal col, Ordinal) const {
    if (col < low || col > high) {
      *static_cast<volatile int*>(outside) = 1;
      return InsertResult::Found;
    }
    const Ordinal d = col - low;
    const unsigned bit = 1u << (d & 31);
    unsigned* word = words + (d >> 5);
    // Most products of a stencil's row meet a column set already: a read, no atomic.
    if ((*static_cast<volatile unsigned*>(word) & bit) != 0u) return InsertResult::Found;
    scratch_or(word, bit);
    return InsertResult::Inserted;
  }
};

/// count_in_column_window's products in runs of slots: runs may take up to this many times the row's products, and
/// each thread and lane loads this many products' columns before setting their bits.
constexpr std::int64_t column_window_flat_waste = 2;
constexpr int column_window_batch = 4;

/// Bins of team rows one launch may hold (team_row_launches).
constexpr int team_row_max_bins = 8;

/// One team per row: a level-1 table of l1_entries slots in scratch; a row that may not fit (symbolic: its bound;
/// numeric: its known size) also takes a level-2 table of l2_entries slots from the pool for its duration. With
/// ManyBins, one launch serves several bins whose rows always fit level 1: teams [first_team[b], first_team[b + 1])
/// take bin b, each with its own table size, in the scratch of the largest (bins of few rows each took a launch
/// whose time was one row's latency).
template <class ExecSpace, bool Numeric, class Views, class Perm, bool ManyBins = false>
struct TeamRowKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  static constexpr bool gpu = BackendTraits<ExecSpace>::is_gpu;
  using Table = HashTable<Ordinal, Scalar, gpu, true>;  // level 1, in scratch
  using Level2 = HashTable<Ordinal, Scalar, gpu>;       // from the pool
  // Probes in level 1 before a column goes to level 2 when a row spills: bounds the cost of a full level 1.
  static constexpr Ordinal spill_window = 32;

  Views v;
  Perm perm;
  std::int64_t first = 0;
  Ordinal l1_entries = 0;
  Ordinal l2_entries = 0;
  Pool pool;
  bool sorted = true;
  Ordinal rank_slots = 0;      // > 0: rows of up to this many entries that fit level 1 are written sorted by rank
  bool lanes_over_a = false;   // the team's threads and lanes split A's row, each walking its rows of B
  bool column_window = false;  // GPU symbolic rows: count in a window of the row's column span where it fits

  /// ManyBins: bin b's rows perm[first, first + rows) from team first_team on, with its table and compact array.
  struct Bin {
    std::int64_t first = 0;
    std::int64_t rows = 0;
    std::int64_t first_team = 0;
    Ordinal l1_entries = 0;
    Ordinal rank_slots = 0;
    bool lanes_over_a = false;
  };
  int num_bins = 0;
  Bin bins[ManyBins ? team_row_max_bins : 1];

  /// Appends a bin of `rows` rows from perm[first_row] with level-1 tables of `entries` slots (ManyBins: rows that
  /// never spill).
  void add_bin(std::int64_t first_row, std::int64_t rows, Ordinal entries, bool over_a = false) {
    if (num_bins == (ManyBins ? team_row_max_bins : 1)) {
      throw std::logic_error("KokkosSpGEMM: too many bins for one launch");
    }
    Bin& b = bins[num_bins];
    b.first = first_row;
    b.rows = rows;
    b.lanes_over_a = over_a;
    b.first_team = league();
    b.l1_entries = entries;
    b.rank_slots = fitting_rank_slots(sorted, v.known_columns, entries);
    ++num_bins;
  }
  std::int64_t league() const { return num_bins == 0 ? 0 : bins[num_bins - 1].first_team + bins[num_bins - 1].rows; }
  /// Scratch of the launch: the largest of its bins'.
  std::size_t launch_scratch_bytes() const {
    std::size_t most = 0;
    for (int b = 0; b < num_bins; ++b) most = max_of(most, scratch_bytes(bins[b].l1_entries, bins[b].rank_slots));
    return most;
  }

  /// rank_slots_of, or 0 where the table and the compact array together outgrow the device's scratch (rows then
  /// sort after extraction).
  static Ordinal fitting_rank_slots(bool sorted, bool known_columns, Ordinal l1_entries) {
    const Ordinal ranks = rank_slots_of(sorted, known_columns, l1_entries);
    return static_cast<std::int64_t>(scratch_bytes(l1_entries, ranks)) >
                   static_cast<std::int64_t>(Policy::scratch_size_max(0))
               ? Ordinal(0)
               : ranks;
  }

  /// The compact array's slots (rows ranked up to that size), or 0: GPU numeric sorted rows, not values-only.
  static Ordinal rank_slots_of(bool sorted, bool known_columns, Ordinal l1_entries) {
    const Ordinal most = l1_entries / 2 < rank_sort_max_entries ? l1_entries / 2 : Ordinal(rank_sort_max_entries);
    return gpu && Numeric && sorted && !known_columns && most > 0 ? static_cast<Ordinal>(rank_slots_for(most))
                                                                  : Ordinal(0);
  }

  /// The int64 slots before the table: the pool chunk (or count_in_column_window's mark), the output cursor, and
  /// count_in_column_window's lowest and highest column.
  static constexpr int header_slots = 4;
  KOKKOS_INLINE_FUNCTION static std::size_t table_bytes(Ordinal l1_entries) {
    return align16(l1_entries * (sizeof(Ordinal) + (Numeric ? sizeof(Scalar) : 0)) +
                   header_slots * sizeof(std::int64_t));
  }
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(Ordinal l1_entries, Ordinal rank_slots = 0) {
    return table_bytes(l1_entries) + 2 * rank_slots * sizeof(Ordinal) + 64;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes(Ordinal l2_entries) {
    return l2_entries * (sizeof(Ordinal) + (Numeric ? sizeof(Scalar) : 0)) + 16;
  }

  KOKKOS_INLINE_FUNCTION bool needs_level2(const Ordinal row) const {
    if (ManyBins || l2_entries == 0) return false;
    const std::int64_t size = Numeric ? v.product_row_size(row) : v.row_bound(row);
    return 2 * size > l1_entries;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (v.operands_failed()) return;
    const std::int64_t t = team.league_rank();
    if constexpr (ManyBins) {
      Bin bin = bins[0];
      for (int k = 1; k < team_row_max_bins; ++k) {
        if (k < num_bins && t >= bins[k].first_team) bin = bins[k];
      }
      run(team, perm(bin.first + t - bin.first_team), bin.l1_entries, bin.rank_slots, bin.lanes_over_a);
    } else {
      run(team, perm(first + t), l1_entries, rank_slots, lanes_over_a);
    }
  }

  /// Row `row` with a level-1 table of l1_slots and a compact array of ranks slots (0: none); over_a: A's row split
  /// over every thread and lane (lanes_over_a).
  KOKKOS_INLINE_FUNCTION void run(const Member& team, const Ordinal row, const Ordinal l1_slots, const Ordinal ranks,
                                  const bool over_a) const {
    char* base = static_cast<char*>(team.team_shmem().get_shmem_aligned(scratch_bytes(l1_slots, ranks) - 64, 16));
    std::int64_t* shared = reinterpret_cast<std::int64_t*>(base);  // [0]: pool chunk, [1]: output cursor
    // The cursor has the width of a column (a row holds at most that many): with 32-bit columns its adds are
    // 32-bit atomics, single instructions on GPUs.
    Ordinal* cursor = reinterpret_cast<Ordinal*>(shared + 1);
    Scalar* values = reinterpret_cast<Scalar*>(base + header_slots * sizeof(std::int64_t));
    Ordinal* keys =
        reinterpret_cast<Ordinal*>(reinterpret_cast<char*>(values) + (Numeric ? l1_slots * sizeof(Scalar) : 0));
    Ordinal* compact = reinterpret_cast<Ordinal*>(base + table_bytes(l1_slots));
    const bool spill = needs_level2(row);
    Table l1{keys, Numeric ? values : nullptr, l1_slots - 1};
    Level2 l2;
    if constexpr (!Numeric && gpu) {
      if (column_window && !spill && count_in_column_window(team, row, shared, keys, l1_slots, over_a)) return;
    }
    if (spill) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { shared[0] = pool.acquire(team.league_rank()); });
      team.team_barrier();
      char* chunk = pool.chunk(shared[0]);
      Scalar* l2_values = reinterpret_cast<Scalar*>(chunk);
      l2 = Level2{reinterpret_cast<Ordinal*>(chunk + (Numeric ? l2_entries * sizeof(Scalar) : 0)),
                  Numeric ? l2_values : nullptr, l2_entries - 1};
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, l2_entries), [&](const Ordinal s) {
        l2.keys[s] = Table::empty;
        if constexpr (Numeric) l2.values[s] = Scalar();
      });
    }
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, l1_slots), [&](const Ordinal s) {
      keys[s] = Table::empty;
      if constexpr (Numeric) values[s] = Scalar();
    });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, ranks), [&](const Ordinal s) { compact[s] = Table::empty; });
    Kokkos::single(Kokkos::PerTeam(team), [&]() { *cursor = 0; });
    team.team_barrier();

    const Ordinal window = spill ? (spill_window < l1_slots ? spill_window : l1_slots) : l1_slots;
    insert_row<Numeric>(team, row, l1, window, l2, over_a);
    team.team_barrier();

    if constexpr (!Numeric) {
      std::int64_t count = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, l1_slots),
          [&](const Ordinal s, std::int64_t& c) { c += keys[s] != Table::empty; }, count);
      if (spill) {
        std::int64_t count2 = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(team, l2_entries),
            [&](const Ordinal s, std::int64_t& c) { c += l2.keys[s] != Table::empty; }, count2);
        count += count2;
      }
      const std::int64_t hits = mask_hits_in_tables<false>(team, row, l1, window, l2);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        v.row_sizes(row) = count;
        if (v.binned_mask()) v.mask_hits(row) = static_cast<Ordinal>(hits);
      });
    } else if (v.known_columns) {
      const auto c_begin = v.c_rows(row);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, v.c_rows(row + 1) - c_begin), [&](const Ordinal j) {
        v.c_vals(c_begin + j) = v.gathered(l1, window, l2, v.c_cols(c_begin + j));
      });
    } else {
      if (v.erases_in_row(row)) {
        mask_hits_in_tables<true>(team, row, l1, window, l2);
        team.team_barrier();
      }
      const auto c_begin = v.c_rows(row);
      const std::int64_t n = v.c_rows(row + 1) - c_begin;
      if (ranks > 0 && !spill && n <= ranks) {
        const CompactRow<Ordinal> out{compact, compact + ranks, n};
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, l1_slots), [&](const Ordinal s) {
          if (keys[s] >= 0) out.gather(keys[s], s, cursor);
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n),
                             [&](const Ordinal i) { out.write(v, c_begin, i, values); });
        return;
      }
      auto extract = [&](const auto& table) {
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, table.capacity()), [&](const Ordinal s) {
          const Ordinal key = table.keys[s];
          if (key >= 0) {
            const auto pos = c_begin + fetch_add<gpu>(cursor, Ordinal(1));
            v.c_cols(pos) = key;
            v.c_vals(pos) = table.values[s];
          }
        });
      };
      extract(l1);
      if (spill) extract(l2);
    }
    if (spill) {
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() { pool.release(shared[0]); });
    }
    if constexpr (Numeric) {
      if (!sorted || v.known_columns) return;
      team.team_barrier();
      const auto c_begin = v.c_rows(row);
      const std::int64_t n = v.c_rows(row + 1) - c_begin;
      if constexpr (gpu) {
        if (spill) {
          sort_row_team(team, v.c_cols.data() + c_begin, v.c_vals.data() + c_begin, n);
        } else {
          // The row fits the level-1 table (n <= l1_slots / 2), which is free now: sorted there, in scratch, as a
          // bitonic network over global memory pays a round trip to L2 at every stage.
          Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t j) {
            keys[j] = v.c_cols(c_begin + j);
            values[j] = v.c_vals(c_begin + j);
          });
          team.team_barrier();
          sort_row_team(team, keys, values, n);
          Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t j) {
            v.c_cols(c_begin + j) = keys[j];
            v.c_vals(c_begin + j) = values[j];
          });
        }
      } else {
        sort_row_sequential(v.c_cols.data() + c_begin, v.c_vals.data() + c_begin, n);
      }
    }
  }

  /// A binned complemented mask's row against the row's finished tables, split over the team: how many of its
  /// columns they hold, which Erase takes out of them. 0 without such a mask.
  template <bool Erase>
  KOKKOS_INLINE_FUNCTION std::int64_t mask_hits_in_tables(const Member& team, const Ordinal row, const Table& l1,
                                                          const Ordinal window, const Level2& l2) const {
    return v.over_mask_row(team, row,
                           [&](const Ordinal col) { return mask_column_in_tables<Erase>(col, l1, window, l2); });
  }

  /// Adds the products of A's row `row` into l1 (level 2 where l1's window is full), split over the team: with
  /// over_a every thread and lane take entries of A's row; else threads split A's row and their lanes each row of B
  /// (kkSpGEMM Fig. 3a), or, with fewer entries in A's row than threads, the whole team takes one row of B after the
  /// other, so that long rows of B reached from short rows of A do not leave most threads idle.
  template <bool N, class L1>
  KOKKOS_INLINE_FUNCTION void insert_row(const Member& team, const Ordinal row, const L1& l1, const Ordinal window,
                                         const Level2& l2, const bool over_a) const {
    const auto a_begin = v.a_rows(row);
    const Ordinal a_len = static_cast<Ordinal>(v.a_rows(row + 1) - a_begin);
    if (over_a) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, a_len), [&](const Ordinal t) {
        insert_products_of_entry<N, BRowSplit::Serial>(v, team, row, a_begin + t, l1, window, l2);
      });
    } else if (a_len >= team.team_size()) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a_len), [&](const Ordinal t) {
        insert_products_of_entry<N>(v, team, row, a_begin + t, l1, window, l2);
      });
    } else {
      for (Ordinal t = 0; t < a_len; ++t) {
        insert_products_of_entry<N, BRowSplit::WholeTeam>(v, team, row, a_begin + t, l1, window, l2);
      }
    }
  }

  /// Symbolic rows on GPUs whose columns span no more than the table's bits: the row's columns set as bits of a
  /// window from its lowest column, over the table's scratch (a stencil's rows span a few planes of the grid). A
  /// product then costs a bit, and the count a popcount a word, where the table costs a probe a product and a look
  /// at each of its slots. The span is read off the first and last column of each row of B met (rows of B sorted);
  /// a column outside it (a row of B out of order) leaves the row to the table. Returns whether the row is counted.
  KOKKOS_INLINE_FUNCTION bool count_in_column_window(const Member& team, const Ordinal row, std::int64_t* shared,
                                                     Ordinal* table, const Ordinal l1_slots, const bool over_a) const {
    int* outside = reinterpret_cast<int*>(shared);
    Ordinal* longest = reinterpret_cast<Ordinal*>(shared + 1);
    Ordinal* low = reinterpret_cast<Ordinal*>(shared + 2);
    Ordinal* high = reinterpret_cast<Ordinal*>(shared + 3);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      *outside = 0;
      *longest = 0;
      *low = Kokkos::reduction_identity<Ordinal>::min();
      *high = Kokkos::reduction_identity<Ordinal>::max();
    });
    team.team_barrier();
    const auto a_begin = v.a_rows(row);
    const Ordinal a_len = static_cast<Ordinal>(v.a_rows(row + 1) - a_begin);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, a_len), [&](const Ordinal t) {
      const Ordinal k = v.a_cols(a_begin + t);
      const auto b_begin = v.b_rows(k), b_end = v.b_rows(k + 1);
      if (b_end > b_begin) {
        Kokkos::atomic_fetch_min(low, v.b_cols(b_begin));
        Kokkos::atomic_fetch_max(high, v.b_cols(b_end - 1));
        Kokkos::atomic_fetch_max(longest, static_cast<Ordinal>(b_end - b_begin));
      }
    });
    team.team_barrier();
    const Ordinal lo = *low, hi = *high;
    const std::int64_t bits = static_cast<std::int64_t>(l1_slots) * static_cast<std::int64_t>(sizeof(Ordinal)) * 8;
    if (hi < lo || static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo) >= bits) return false;
    unsigned* words = reinterpret_cast<unsigned*>(table);
    const Ordinal n_words = static_cast<Ordinal>((static_cast<std::int64_t>(hi) - lo) / 32 + 1);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n_words), [&](const Ordinal w) { words[w] = 0u; });
    // A's entries each take a power-of-two run of slots, at least their row of B, so that every thread and lane
    // holds products of its own and loads their columns at once; a row whose runs would more than double its
    // products walks A's entries instead (each thread a chain of dependent loads an entry).
    const int shift = bit_width_u32(static_cast<std::uint32_t>(*longest - 1));
    const std::int64_t slots = static_cast<std::int64_t>(a_len) << shift;
    team.team_barrier();
    const ColumnWindow<Ordinal> window{words, lo, hi, outside};
    if (slots <= column_window_flat_waste * v.row_products(row)) {
      const std::int64_t mask = (std::int64_t(1) << shift) - 1;
      const std::int64_t batches = (slots + column_window_batch - 1) / column_window_batch;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, batches), [&](const std::int64_t first) {
        Ordinal cols[column_window_batch];
        for (int q = 0; q < column_window_batch; ++q) {
          const std::int64_t p = first + q * batches;
          cols[q] = -1;
          if (p < slots) {
            const Ordinal k = v.a_cols(a_begin + (p >> shift));
            const auto b_begin = v.b_rows(k);
            if (b_begin + (p & mask) < v.b_rows(k + 1)) cols[q] = v.b_cols(b_begin + (p & mask));
          }
        }
        for (int q = 0; q < column_window_batch; ++q) {
          if (cols[q] >= 0) window.insert(cols[q], 0);
        }
      });
    } else {
      insert_row<false>(team, row, window, l1_slots, Level2(), over_a);
    }
    team.team_barrier();
    if (*static_cast<volatile int*>(outside) != 0) return false;
    std::int64_t count = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, n_words), [&](const Ordinal w, std::int64_t& c) { c += popcount_u64(words[w]); },
        count);
    const std::int64_t hits = v.over_mask_row(team, row, [&](const Ordinal col) {
      if (col < lo || col > hi) return 0u;
      const Ordinal d = col - lo;
      return (words[d >> 5] >> (d & 31)) & 1u;
    });
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      v.row_sizes(row) = count;
      if (v.binned_mask()) v.mask_hits(row) = static_cast<Ordinal>(hits);
    });
    return true;
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
