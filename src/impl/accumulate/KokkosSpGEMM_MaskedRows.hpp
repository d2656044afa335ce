// Masked products' row work. Row i of C can only hold columns of one sorted row T_i known before any product is
// formed (the mask's row in the symbolic phase of a plain mask, C's own row in its numeric phase, L's row in a
// triangle count), so the accumulator is that row itself: each product a_ik ⊗ b_kj looks its column up in T_i and
// acts at the position it finds (marks it, or adds into C's value there); products whose column is absent are
// dropped before they are added anywhere. No hash table and no sort: T_i is sorted, so C comes out sorted.
//
// GPUs take one entry a_ik of A per thread (its row of B over the thread's vector lanes, each searching T_i), which
// balances rows of any length, and add with atomics; CPUs take whole rows per thread (no atomics), each thread with
// a bit a column of C set for T_i's columns while it works on row i.
#ifndef KOKKOSSPGEMM_MASKEDROWS_HPP
#define KOKKOSSPGEMM_MASKEDROWS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/accumulate/KokkosSpGEMM_HashAccumulator.hpp>
#include <impl/accumulate/KokkosSpGEMM_SemiringValue.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>
#include <impl/pipeline/KokkosSpGEMM_WorkRanges.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Position of key in cols[begin, end) (sorted, no repeats), or -1.
template <class Cols, class Ordinal>
KOKKOS_INLINE_FUNCTION std::int64_t find_sorted(const Cols& cols, std::int64_t begin, std::int64_t end, Ordinal key) {
  const std::int64_t p = sorted_lower_bound(cols, begin, end, key);
  return p < end && cols(p) == key ? p : -1;
}

/// A's and B's structure and values, and the sorted target rows T (row map, columns) the products are looked up in.
template <class AMatrix, class BMatrix, class TRows, class TCols>
struct MaskedOperands {
  using ordinal_type = typename AMatrix::ordinal_type;
  typename AMatrix::row_map_type::const_type a_rows;
  typename AMatrix::entries_type::const_type a_cols;
  typename AMatrix::values_type::const_type a_vals;
  typename BMatrix::row_map_type::const_type b_rows;
  typename BMatrix::entries_type::const_type b_cols;
  typename BMatrix::values_type::const_type b_vals;
  TRows t_rows;
  TCols t_cols;

  MaskedOperands(const AMatrix& a, const BMatrix& b, const TRows& tr, const TCols& tc)
      : a_rows(a.row_map()),
        a_cols(a.entries()),
        a_vals(a.values()),
        b_rows(b.row_map()),
        b_cols(b.entries()),
        b_vals(b.values()),
        t_rows(tr),
        t_cols(tc) {}
};

/// Marks the positions of T (the mask) that some product reaches: the symbolic phase of a plain mask. Every writer
/// stores the same 1, so the stores need no atomics.
template <class Flags>
struct MarkAction {
  static constexpr bool uses_position = true;
  Flags hit;
  template <bool Atomic, class Ops>
  KOKKOS_INLINE_FUNCTION void operator()(const Ops&, std::int64_t p, std::int64_t, std::int64_t) const {
    hit(p) = 1;
  }
};

/// Adds a_ik ⊗ b_kj into C's value at the position found in C's row (values are semiring values or plain scalars).
template <class CValues>
struct AddAction {
  static constexpr bool uses_position = true;
  CValues c_vals;
  template <bool Atomic, class Ops>
  KOKKOS_INLINE_FUNCTION void operator()(const Ops& o, std::int64_t p, std::int64_t e, std::int64_t jb) const {
    accumulate<Atomic>(&c_vals(p), o.a_vals(e) * o.b_vals(jb));
  }
};

/// One thread's walk of the products of A's entries [e_begin, e_end) of row i (serial, with a search hint).
template <bool Atomic, class Ops, class Action>
KOKKOS_INLINE_FUNCTION std::int64_t walk_entries(const Ops& o, const Action& act, typename Ops::ordinal_type i,
                                                 std::int64_t e_begin, std::int64_t e_end) {
  using Ordinal = typename Ops::ordinal_type;
  const std::int64_t t_begin = o.t_rows(i), t_end = o.t_rows(i + 1);
  std::int64_t hits = 0;
  if (t_begin == t_end) return 0;
  for (std::int64_t e = e_begin; e < e_end; ++e) {
    const Ordinal k = o.a_cols(e);
    std::int64_t lo = t_begin;
    Ordinal last = -1;
    for (std::int64_t jb = o.b_rows(k); jb < static_cast<std::int64_t>(o.b_rows(k + 1)); ++jb) {
      const Ordinal j = o.b_cols(jb);
      if (j < last) lo = t_begin;  // B's row is not sorted here: search the whole row of T again
      last = j;
      const std::int64_t p = find_sorted(o.t_cols, lo, t_end, j);
      if (p >= 0) {
        act.template operator()<Atomic>(o, p, e, jb);
        ++hits;
        lo = p + 1;
      }
    }
  }
  return hits;
}

/// A thread per row of C (short rows; GPUs also where deterministic); sums the products that hit T.
template <class Ops, class Action>
struct MaskedRowsSerial {
  Ops o;
  Action act;
  KOKKOS_INLINE_FUNCTION void operator()(const typename Ops::ordinal_type i, std::int64_t& hits) const {
    hits += walk_entries<false>(o, act, i, o.a_rows(i), o.a_rows(i + 1));
  }
};

/// CPUs: ranges of rows of equal work (balanced_ranges) a thread, each thread with a bit a column of C: the bits of T's
/// row are set before the row's products and cleared after them, and at[j] holds column j's position in T's row where
/// the action needs it. Marking T's row costs its length twice; each product is then one bit test (a binary search per
/// product cost twice as much on ca-CondMat's triangles), and the bits of 65,536 columns take 8 KB, in L1 (an owner
/// column a column took 256 KB a thread, and its setup cost more than a search on graphs of 2-3 entries a row).
template <class ExecSpace, class Ops, class Action>
struct MaskedRowsDense {
  using Ordinal = typename Ops::ordinal_type;
  Ops o;
  Action act;
  Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space> bits;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> at;
  // Item w takes rows [ranges(w), ranges(w + 1)), ranges of equal work (balanced_ranges).
  Kokkos::View<const std::int64_t*, typename ExecSpace::memory_space> ranges;
  Kokkos::Experimental::UniqueToken<ExecSpace> tokens;
  std::int64_t width = 0;

  static KOKKOS_INLINE_FUNCTION std::int64_t words(std::int64_t columns) { return (columns + 63) / 64; }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t w, std::int64_t& hits) const {
    const std::int64_t first = ranges(w), last = ranges(w + 1);
    if (first == last) return;
    const int token = tokens.acquire();
    std::uint64_t* in_row = bits.data() + token * words(width);
    std::int64_t* where = Action::uses_position ? at.data() + token * width : nullptr;
    for (Ordinal i = static_cast<Ordinal>(first); i < static_cast<Ordinal>(last); ++i) {
      const std::int64_t t_begin = o.t_rows(i), t_end = o.t_rows(i + 1);
      if (t_begin == t_end) continue;
      for (std::int64_t p = t_begin; p < t_end; ++p) {
        const Ordinal j = o.t_cols(p);
        in_row[j >> 6] |= std::uint64_t(1) << (j & 63);
        if constexpr (Action::uses_position) where[j] = p;
      }
      for (auto e = o.a_rows(i); e < o.a_rows(i + 1); ++e) {
        const Ordinal k = o.a_cols(e);
        for (auto jb = o.b_rows(k); jb < o.b_rows(k + 1); ++jb) {
          const Ordinal j = o.b_cols(jb);
          if ((in_row[j >> 6] >> (j & 63)) & 1) {
            if constexpr (Action::uses_position)
              act.template operator()<false>(o, where[j], e, jb);
            else
              act.template operator()<false>(o, -1, e, jb);
            ++hits;
          }
        }
      }
      // Only row i's bits are set: whole words are cleared.
      for (std::int64_t p = t_begin; p < t_end; ++p) in_row[o.t_cols(p) >> 6] = 0;
    }
    tokens.release(token);
  }
};

/// The masked walk's row weight (see balanced_ranges): T's row and its entries of A times B's mean row. A row of
/// empty T is skipped, so costs less than that; weighed alike, the rows' running sum is in closed form and the cut
/// needs no scan of the weights (docs/performance.md, v85).
template <class Ops>
struct MaskedRowWeight {
  Ops o;
  std::int64_t per_entry = 1;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t i) const {
    return running_sum(i + 1) - running_sum(i);
  }
  static constexpr bool running_sum_known = true;
  KOKKOS_INLINE_FUNCTION std::int64_t running_sum(const std::int64_t r) const {
    return r + static_cast<std::int64_t>(o.t_rows(r) - o.t_rows(0)) +
           static_cast<std::int64_t>(o.a_rows(r) - o.a_rows(0)) * per_entry;
  }
};

/// GPUs: a thread per entry a_ik of A (entry_rows(e) = i), its vector lanes over B's row k.
template <class ExecSpace, class Ops, class Action, class EntryRows>
struct MaskedEntriesTeams {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Ops o;
  Action act;
  EntryRows entry_rows;
  std::int64_t nnz_a = 0;
  int threads = 1;

  KOKKOS_INLINE_FUNCTION std::int64_t entry(const Member& m, std::int64_t e) const {
    using Ordinal = typename Ops::ordinal_type;
    const Ordinal i = entry_rows(e);
    const std::int64_t t_begin = o.t_rows(i), t_end = o.t_rows(i + 1);
    const Ordinal k = o.a_cols(e);
    const std::int64_t b_begin = o.b_rows(k), b_len = static_cast<std::int64_t>(o.b_rows(k + 1)) - b_begin;
    std::int64_t hits = 0;
    if (t_begin == t_end) return 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(m, b_len),
        [&](const std::int64_t jj, std::int64_t& h) {
          const std::int64_t p = find_sorted(o.t_cols, t_begin, t_end, o.b_cols(b_begin + jj));
          if (p >= 0) {
            act.template operator()<true>(o, p, e, b_begin + jj);
            ++h;
          }
        },
        hits);
    return hits;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m, std::int64_t& hits) const {
    const std::int64_t first = static_cast<std::int64_t>(m.league_rank()) * threads;
    std::int64_t team_hits = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, threads),
        [&](const int t, std::int64_t& h) {
          if (first + t < nnz_a) h += entry(m, first + t);
        },
        team_hits);
    Kokkos::single(Kokkos::PerTeam(m), [&]() { hits += team_hits; });
  }
};

/// The launch shape over a matrix's rows (a graph's, a product's): a thread a row, its vector lanes over the row's
/// entries (a power of two near the average row, up to the backend's width; one on CPUs), 128 lanes a team on GPUs.
/// A team a row with 32 lanes doubled the triangle count's time on road networks (2.5 entries a row). A CPU team is
/// one thread walking graph_rows_per_cpu_team rows: a team a row paid the policy's dispatch a row, more than the
/// row's work on graphs of a few entries a row.
constexpr int graph_rows_per_cpu_team = 64;

template <class ExecSpace>
struct GraphRows {
  int threads = 1, lanes = 1;
  int team_rows = 1;  // rows a team: its threads on GPUs, graph_rows_per_cpu_team on CPUs
  std::int64_t rows = 0;
  GraphRows(std::int64_t num_rows, std::int64_t nnz) : rows(num_rows) {
    const std::int64_t avg = num_rows > 0 ? nnz / num_rows : 1;
    while (lanes < avg && lanes < BackendTraits<ExecSpace>::max_vector_length) lanes *= 2;
    threads = BackendTraits<ExecSpace>::is_gpu ? 128 / lanes : 1;
    team_rows = BackendTraits<ExecSpace>::is_gpu ? threads : graph_rows_per_cpu_team;
  }
  Teams<ExecSpace> policy(const ExecSpace& exec) const {
    return Teams<ExecSpace>(exec, (rows + team_rows - 1) / team_rows, threads, lanes);
  }
  /// Calls f(row) for each row of the team, on the thread it belongs to.
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION void for_rows(const Member& m, const F& f) const {
    const std::int64_t first = static_cast<std::int64_t>(m.league_rank()) * team_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, team_rows), [&](const int t) {
      if (first + t < rows) f(first + t);
    });
  }
};

/// For each entry of A its row (the GPU walk's map from entry to row), taken from ws where given.
template <class ExecSpace, class AMatrix>
Kokkos::View<typename AMatrix::ordinal_type*, typename ExecSpace::memory_space> entry_rows_of(
    const ExecSpace& exec, const AMatrix& a, Workspace<ExecSpace>* ws = nullptr) {
  using Ordinal = typename AMatrix::ordinal_type;
  const auto rows =
      ws != nullptr
          ? ws->template take<Ordinal>("KokkosSpGEMM::Masked::entry_rows", a.nnz())
          : Kokkos::View<Ordinal*, typename ExecSpace::memory_space>(
                Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Masked::entry_rows"), a.nnz());
  const auto a_rows = a.row_map();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::entry_rows", Range<ExecSpace>(exec, 0, a.num_rows()), KOKKOS_LAMBDA(const Ordinal i) {
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) rows(e) = i;
      });
  return rows;
}

/// The GPU launch shape: vector lanes for B's average row (a power of two up to the backend's width), threads to 256
/// lanes a team.
template <class ExecSpace, class BMatrix>
void masked_team_shape(const BMatrix& b, int& threads, int& lanes) {
  const std::int64_t avg = b.num_rows() > 0 ? static_cast<std::int64_t>(b.nnz()) / b.num_rows() : 1;
  lanes = 1;
  while (lanes < avg && lanes < BackendTraits<ExecSpace>::max_vector_length) lanes *= 2;
  threads = 256 / lanes;
}

/// Runs act on every product of A·B whose column is in T's row (T has C's rows), and returns how many there were.
/// CPUs: rows a thread with a bit a column; GPUs: an entry of A a thread, or
/// a row a thread where deterministic (no atomics) or where A's rows average 4 entries or fewer and none has 33.
/// The GPU walk's map from entries to rows comes from ws where given. With count false and ws (a caller that reads
/// only what act wrote), GPUs count into ws instead, without a wait for the device, and -1 comes back.
template <class ExecSpace, class AMatrix, class BMatrix, class TRows, class TCols, class Action>
std::int64_t walk_masked_products(const ExecSpace& exec, const char* label, const AMatrix& a, const BMatrix& b,
                                  const TRows& t_rows, const TCols& t_cols, const Action& act, bool deterministic,
                                  Workspace<ExecSpace>* ws = nullptr, bool count = true) {
  using Ops = MaskedOperands<AMatrix, BMatrix, TRows, TCols>;
  const Ops o(a, b, t_rows, t_cols);
  std::int64_t hits = 0;
  if (a.num_rows() == 0 || a.nnz() == 0) return 0;
  const std::int64_t rows = a.num_rows();
  using Serial = MaskedRowsSerial<Ops, Action>;
  using SerialPolicy =
      Range<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<typename Ops::ordinal_type>>;
  // CPUs: always the column bits (a bit test a product, in L1), which beat a search in place even on target rows of
  // 2-3 entries (road networks, p2p graphs).
  if (!BackendTraits<ExecSpace>::is_gpu) {
    using Dense = MaskedRowsDense<ExecSpace, Ops, Action>;
    Kokkos::Experimental::UniqueToken<ExecSpace> tokens(exec);
    const std::int64_t width = b.num_cols();
    const std::size_t threads = static_cast<std::size_t>(tokens.size());
    // The positions a column take 8 bytes a column a thread: past 256 MiB of them the rows are searched instead.
    if (Action::uses_position && threads * static_cast<std::size_t>(width) * 8 > (std::size_t(1) << 28)) {
      Kokkos::parallel_reduce(label, SerialPolicy(exec, 0, a.num_rows()), Serial{o, act}, hits);
      return hits;
    }
    Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space> bits(
        Kokkos::view_alloc(exec, "KokkosSpGEMM::Masked::bits"),
        threads * static_cast<std::size_t>(Dense::words(width)));
    Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> at(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Masked::at"),
        Action::uses_position ? threads * static_cast<std::size_t>(width) : 0);
    const std::int64_t items = work_range_count(exec, rows, 1);
    const auto ranges = balanced_ranges(exec, rows, items, MaskedRowWeight<Ops>{o, entry_weight(o.b_rows, o.b_cols)});
    const Dense f{o, act, bits, at, ranges, tokens, width};
    Range<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(exec, 0, items);
    policy.set_chunk_size(1);
    Kokkos::parallel_reduce(label, policy, f, hits);
    return hits;
  }
  // Rows of A of a few entries each, none long (road networks), take a thread each: an entry a thread would first map
  // entries to rows and then add with atomics what a row's thread adds alone. One long row among short ones
  // (PGPgiantcompo) would leave its thread last: a thread per row took it from 0.43 to 2.3 ms.
  bool short_rows = static_cast<std::int64_t>(a.nnz()) <= 4 * rows;
  if (short_rows && !deterministic) {
    const auto a_rows = a.row_map();
    std::int64_t longest = 0;
    Kokkos::parallel_reduce(
        "KokkosSpGEMM::Masked::longest_row", Range<ExecSpace>(exec, 0, rows),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) {
          const std::int64_t n = static_cast<std::int64_t>(a_rows(i + 1) - a_rows(i));
          if (n > m) m = n;
        },
        Kokkos::Max<std::int64_t>(longest));
    short_rows = longest <= 32;
  }
  // The count where the caller reads it (a wait), else on the device.
  const auto walk = [&](const auto& policy, const auto& functor) {
    if (count || ws == nullptr) {
      Kokkos::parallel_reduce(label, policy, functor, hits);
      return hits;
    }
    const auto on_device = ws->template take<std::int64_t>("KokkosSpGEMM::Masked::hits", 1);
    Kokkos::parallel_reduce(
        label, policy, functor,
        Kokkos::View<std::int64_t, typename ExecSpace::memory_space, Kokkos::MemoryUnmanaged>(on_device.data()));
    return std::int64_t(-1);
  };
  if (deterministic || short_rows) return walk(SerialPolicy(exec, 0, a.num_rows()), Serial{o, act});
  const auto entry_rows = entry_rows_of(exec, a, ws);
  int threads = 1, lanes = 1;
  masked_team_shape<ExecSpace>(b, threads, lanes);
  const std::int64_t league = (static_cast<std::int64_t>(a.nnz()) + threads - 1) / threads;
  const MaskedEntriesTeams<ExecSpace, Ops, Action, decltype(entry_rows)> f{o, act, entry_rows,
                                                                           static_cast<std::int64_t>(a.nnz()), threads};
  return walk(Teams<ExecSpace>(exec, league, threads, lanes), f);
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
