// The position map's entry form (ReplayShape::Entries): a word for each entry of C naming its product (an entry of
// A and one of B), or, for an entry of several products, where the list of them lies. A replay is then a thread an
// entry of C: it reads its word, multiplies, and writes the value once, in C's order: no pass zeroes C, no sum is
// atomic, and no thread walks a row of A to find its products. A word an entry keeps the map within C's 12 bytes an
// entry where few entries sum several products (graphs whose products barely compress); the bins' form keeps a
// byte or two a product, which suits products that compress.
#ifndef KOKKOSSPGEMM_ENTRYPRODUCTS_HPP
#define KOKKOSSPGEMM_ENTRYPRODUCTS_HPP

#include <KokkosSpGEMM_Tuning.hpp>
#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/accumulate/KokkosSpGEMM_HashAccumulator.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>
#include <impl/pipeline/KokkosSpGEMM_WorkRanges.hpp>
#include <impl/reuse/KokkosSpGEMM_PositionMap.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// A word of the entry form. Bit 63 clear: one product, the entry of A in bits 32-62 and the entry of B in bits
/// 0-31. Set: the entry's products lie in the lists from the word in bits 23-62, as many as bits 0-22 say (none
/// for an entry no product reaches). A list holds product words, in A's then B's order (the reference's order).
struct EntryWord {
  static constexpr std::uint64_t listed = std::uint64_t(1) << 63;
  static constexpr int length_bits = 23;
  static constexpr std::uint64_t most_length = (std::uint64_t(1) << length_bits) - 1;
  static constexpr std::uint64_t most_lists = std::uint64_t(1) << 40;
  static constexpr std::uint64_t most_a_entries = std::uint64_t(1) << 31;
  static constexpr std::uint64_t most_b_entries = std::uint64_t(1) << 32;

  KOKKOS_INLINE_FUNCTION static std::uint64_t product(std::uint64_t e, std::uint64_t p) { return (e << 32) | p; }
  KOKKOS_INLINE_FUNCTION static std::uint64_t list(std::uint64_t first, std::uint64_t length) {
    return listed | (first << length_bits) | length;
  }
  KOKKOS_INLINE_FUNCTION static bool is_list(std::uint64_t w) { return (w & listed) != 0; }
  KOKKOS_INLINE_FUNCTION static std::int64_t a_entry(std::uint64_t w) {
    return static_cast<std::int64_t>((w >> 32) & 0x7fffffffu);
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t b_entry(std::uint64_t w) {
    return static_cast<std::int64_t>(w & 0xffffffffu);
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t first(std::uint64_t w) {
    return static_cast<std::int64_t>((w & ~listed) >> length_bits);
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t length(std::uint64_t w) {
    return static_cast<std::int64_t>(w & most_length);
  }
};

/// Whether the entry form may serve a product: sorted rows of C (each product's entry is found by a search of its
/// row), A's own values, no complemented mask (its products are dropped, not found), entries of A and B that fit a
/// word, and not Options::deterministic (whose replays keep each sum's rounding as the reference's).
template <class Views>
bool entry_form_allowed(const Views& v, const Settings& options) {
  return Views::stored_values && options.sorted && !options.deterministic && v.mask_rows.extent(0) == 0 &&
         v.c_cols.extent(0) > 0 && static_cast<std::uint64_t>(v.a_cols.extent(0)) < EntryWord::most_a_entries &&
         static_cast<std::uint64_t>(v.b_cols.extent(0)) < EntryWord::most_b_entries;
}

/// Auto takes the entry form where products barely compress (at most 5 for every 4 entries of C: the listed
/// entries' words then mostly stay within the 4 bytes an entry that C's 12 leave beyond the map's 8).
inline bool entry_form_suits(std::int64_t products, std::int64_t c_entries) {
  return c_entries > 0 && 4 * products <= 5 * c_entries;
}

/// The most bytes of words Auto gives the entry form: past the caches a CPU replay is bound by its bytes, and the
/// words, with C's columns and values, move about twice the rows' map (measured: docs/performance.md, v74); on GPUs
/// the form wins by being a call's one launch (v77), which counts where C is small.
constexpr std::size_t entry_auto_bytes = std::size_t(16) << 20;

/// The longest list of products Auto lets an entry of the form have: any on CPUs (a thread's run of entries absorbs
/// a long one); 32 on GPUs, where a warp waits for its longest list (rajat01's long lists made the form slower than
/// the bins': docs/performance.md, v74).
template <class ExecSpace>
constexpr std::int64_t entry_auto_longest_list() {
  return BackendTraits<ExecSpace>::is_gpu ? 32 : static_cast<std::int64_t>(EntryWord::most_length);
}

/// Every product of A's entries [begin, end) (rows found by a search of A's row map), with its entry j of C (a
/// search of the row of C): f(e, p, j), or a miss counted into status(0) where the column is not in its row.
/// Threads take entries of A, their vector lanes a row of B.
template <class ExecSpace, class Views, class F>
void for_each_product_entry(const ExecSpace& exec, const char* label, const Views& v, int lanes,
                            const Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space>& status, const F& f) {
  using Traits = BackendTraits<ExecSpace>;
  using Policy = Teams<ExecSpace>;
  using Ordinal = typename Views::ordinal_type;
  const std::int64_t entries = static_cast<std::int64_t>(v.a_cols.extent(0));
  const std::int64_t rows = static_cast<std::int64_t>(v.a_rows.extent(0)) - 1;
  if (entries == 0 || rows <= 0) return;
  const int threads = Traits::is_gpu ? max_of(1, 256 / lanes) : 1;
  // CPUs: runs of entries a thread (one search of A's row map each, then the row's end tells the next row).
  const std::int64_t per_thread = Traits::is_gpu ? 1 : 256;
  const std::int64_t per_team = threads * per_thread;
  Kokkos::parallel_for(
      label, Policy(exec, static_cast<int>((entries + per_team - 1) / per_team), threads, lanes),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const std::int64_t begin =
            (static_cast<std::int64_t>(team.league_rank()) * threads + team.team_rank()) * per_thread;
        const std::int64_t end = min_of(entries, begin + per_thread);
        if (begin >= end) return;
        // The row holding entry `begin`: the last row whose first entry is at or before it.
        std::int64_t row = sorted_lower_bound(v.a_rows, 0, rows, begin + 1) - 1;
        std::uint64_t misses = 0;
        for (std::int64_t e = begin; e < end; ++e) {
          while (static_cast<std::int64_t>(v.a_rows(row + 1)) <= e) ++row;  // rows without entries
          const Ordinal k = v.a_cols(e);
          const std::int64_t c_begin = static_cast<std::int64_t>(v.c_rows(row));
          const std::int64_t c_end = static_cast<std::int64_t>(v.c_rows(row + 1));
          const std::int64_t b_begin = static_cast<std::int64_t>(v.b_rows(k));
          const std::int64_t b_len = static_cast<std::int64_t>(v.b_rows(k + 1)) - b_begin;
          std::uint64_t lane_misses = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, b_len),
              [&](const std::int64_t jj, std::uint64_t& m) {
                const std::int64_t p = b_begin + jj;
                const Ordinal col = v.b_cols(p);
                const std::int64_t j = sorted_lower_bound(v.c_cols, c_begin, c_end, col);
                if (j == c_end || v.c_cols(j) != col) {
                  ++m;
                } else {
                  f(e, p, j);
                }
              },
              lane_misses);
          misses += lane_misses;
        }
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          if (misses > 0) Kokkos::atomic_add(&status(0), misses);
        });
      });
}

/// Sorts words [first, first + n) of `list` ascending (a thread's own list: insertion sort while short, heap sort
/// beyond, in place).
template <class List>
KOKKOS_INLINE_FUNCTION void sort_entry_list(const List& list, std::int64_t first, std::int64_t n) {
  std::uint64_t* w = list.data() + first;
  if (n <= 16) {
    for (std::int64_t i = 1; i < n; ++i) {
      const std::uint64_t x = w[i];
      std::int64_t j = i;
      for (; j > 0 && w[j - 1] > x; --j) w[j] = w[j - 1];
      w[j] = x;
    }
    return;
  }
  auto sift = [&](std::int64_t root, std::int64_t size) {
    for (;;) {
      std::int64_t child = 2 * root + 1;
      if (child >= size) return;
      if (child + 1 < size && w[child + 1] > w[child]) ++child;
      if (w[root] >= w[child]) return;
      const std::uint64_t t = w[root];
      w[root] = w[child];
      w[child] = t;
      root = child;
    }
  };
  for (std::int64_t r = n / 2 - 1; r >= 0; --r) sift(r, n);
  for (std::int64_t size = n - 1; size > 0; --size) {
    const std::uint64_t t = w[0];
    w[0] = w[size];
    w[size] = t;
    sift(0, size);
  }
}

/// Makes map.entry_products (and map.entry_lists) for C's columns within `limit` bytes, and map.checksum: one pass
/// over the products counts each entry's and records the first to arrive; entries of one product keep it, the others
/// get a list (a scan over the counts), filled by a second pass and sorted. lanes: a GPU thread's vector lanes over a
/// row of B. False, with nothing kept, past the limit or the word's fields, or where a product's column is not found
/// by a search of its row of C (rows out of order, or columns changed: the bins' form, which hashes the rows, tells
/// which), or where an entry lists more than longest_list products.
template <class ExecSpace, class Views, class Map>
bool make_entry_products(const ExecSpace& exec, Workspace<ExecSpace>& workspace, const Views& v, Map& map, int lanes,
                         std::size_t limit, std::int64_t longest_list = EntryWord::most_length) {
  using Space = typename ExecSpace::memory_space;
  using Words = Kokkos::View<std::uint64_t*, Space>;
  const std::int64_t n = static_cast<std::int64_t>(v.c_cols.extent(0));
  if (static_cast<std::size_t>(n) * sizeof(std::uint64_t) > limit) return false;
  const auto status = v.reuse_status;
  Kokkos::deep_copy(exec, status, std::uint64_t(0));
  const std::size_t mark = workspace.mark();
  const auto count = workspace.template take_zeroed<std::uint32_t>("KokkosSpGEMM::EntryProducts::count", n);
  const Words words = fresh_view<Words>(exec, "KokkosSpGEMM::PositionMap::entry_products", n);
  for_each_product_entry(
      exec, "KokkosSpGEMM::PositionMap::entry_counts", v, lanes, status,
      KOKKOS_LAMBDA(const std::int64_t e, const std::int64_t p, const std::int64_t j) {
        if (Kokkos::atomic_fetch_add(&count(j), 1u) == 0u) {
          words(j) = EntryWord::product(static_cast<std::uint64_t>(e), static_cast<std::uint64_t>(p));
        }
      });
  std::uint64_t listed = 0, checksum = 0;
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::PositionMap::entry_totals", Range<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t j, std::uint64_t& l, std::uint64_t& sum, std::int64_t& most) {
        const std::uint32_t c = count(j);
        if (c != 1u) l += c;
        if (static_cast<std::int64_t>(c) > most) most = c;
        sum += column_check_term(v.c_cols(j), j);
      },
      listed, checksum, Kokkos::Max<std::int64_t>(longest));
  if (read_reuse_status(exec, status).missing > 0 ||
      (static_cast<std::size_t>(n) + listed) * sizeof(std::uint64_t) > limit || listed >= EntryWord::most_lists ||
      static_cast<std::uint64_t>(longest) > EntryWord::most_length || longest > longest_list) {
    workspace.rewind(mark);
    return false;
  }
  Words lists;
  if (listed > 0) {
    lists = fresh_view<Words>(exec, "KokkosSpGEMM::PositionMap::entry_lists", listed);
    Kokkos::parallel_scan(
        "KokkosSpGEMM::PositionMap::entry_list_starts", Range<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t j, std::uint64_t& partial, const bool final) {
          const std::uint32_t c = count(j);
          if (c == 1u) return;
          if (final) words(j) = EntryWord::list(partial, c);
          partial += c;
        });
    for_each_product_entry(
        exec, "KokkosSpGEMM::PositionMap::entry_lists", v, lanes, status,
        KOKKOS_LAMBDA(const std::int64_t e, const std::int64_t p, const std::int64_t j) {
          const std::uint64_t w = words(j);
          if (!EntryWord::is_list(w)) return;
          const std::uint32_t left = Kokkos::atomic_fetch_sub(&count(j), 1u);
          lists(EntryWord::first(w) + left - 1) =
              EntryWord::product(static_cast<std::uint64_t>(e), static_cast<std::uint64_t>(p));
        });
    Kokkos::parallel_for(
        "KokkosSpGEMM::PositionMap::entry_list_order", Range<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t j) {
          const std::uint64_t w = words(j);
          if (EntryWord::is_list(w) && EntryWord::length(w) > 1) {
            sort_entry_list(lists, EntryWord::first(w), EntryWord::length(w));
          }
        });
  }
  workspace.rewind(mark);
  map.entry_products = words;
  map.entry_lists = lists;
  map.checksum = checksum;
  return true;
}

/// Replays the entry form into C: a thread an entry of C (a few adjacent ones a GPU thread, a run a CPU thread)
/// writes its value and adds its column's checksum term, a team's sum once to status(1). With operand items, the
/// launch's last teams check A and B beside the replay (their count of bad rows and entries added to status(2) once
/// a team): the replay reads only the values at the entries its words name, which the handle's signature keeps
/// within A's and B's values whatever their rows say, so it needs no check before it, and a small product's call is
/// one launch (docs/performance.md, v77 and v78). A call whose check fails still writes C, from its operands'
/// values, and reports the failure. CPUs pass no items (they check before, as for the other forms).
template <class ExecSpace, class Views, class Map, class Status, class Items>
void replay_entries(const ExecSpace& exec, const Views& v, const Map& map, const Status& status, const Items& items) {
  using Traits = BackendTraits<ExecSpace>;
  using Policy = Teams<ExecSpace>;
  using Scalar = typename Views::scalar_type;
  const std::int64_t n = static_cast<std::int64_t>(map.entry_products.extent(0));
  const std::int64_t checked = items.size();
  if (n == 0 && checked == 0) return;
  const int threads = Traits::is_gpu ? 256 : 1;
  // GPUs: two entries a thread (their loads in flight together); CPUs: a run a thread.
  const std::int64_t per_thread = Traits::is_gpu ? 2 : 4096;
  const std::int64_t per_team = threads * per_thread;
  // The check's items a thread: a GPU thread's block of loads issued together, a CPU thread's run.
  const std::int64_t check_per_thread = Traits::is_gpu ? Traits::flat_items_per_work_item : 4096;
  const std::int64_t check_per_team = threads * check_per_thread;
  const std::int64_t replay_teams = (n + per_team - 1) / per_team;
  const std::int64_t check_teams = (checked + check_per_team - 1) / check_per_team;
  const auto words = map.entry_products;
  const auto lists = map.entry_lists;
  Kokkos::parallel_for(
      "KokkosSpGEMM::Numeric::replay_entries", Policy(exec, static_cast<int>(replay_teams + check_teams), threads),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const std::int64_t t = team.league_rank();
        if (t >= replay_teams) {
          add_team_bad_items(team, items, (t - replay_teams) * check_per_team, check_per_thread, &status(2));
          return;
        }
        const std::int64_t base = t * per_team;
        std::uint64_t sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, threads),
            [&](const int r, std::uint64_t& x) {
              for (std::int64_t u = 0; u < per_thread; ++u) {
                // GPUs: entry base + u * threads + r (a warp's loads coalesce); CPUs: entries in order.
                const std::int64_t j = base + u * threads + r;
                if (j >= n) break;
                const std::uint64_t w = words(j);
                auto product = [&](const std::uint64_t y) {
                  return v.a_vals(EntryWord::a_entry(y)) * v.b_vals(EntryWord::b_entry(y));
                };
                Scalar value;
                if (!EntryWord::is_list(w)) {
                  value = product(w);
                } else {
                  const std::int64_t first = EntryWord::first(w), length = EntryWord::length(w);
                  value = length > 0 ? product(lists(first)) : Scalar();
                  for (std::int64_t l = 1; l < length; ++l) accumulate<false>(&value, product(lists(first + l)));
                }
                v.c_vals(j) = value;
                x += column_check_term(v.c_cols(j), j);
              }
            },
            sum);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          if (sum != 0) Kokkos::atomic_add(&status(1), sum);
        });
      });
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
