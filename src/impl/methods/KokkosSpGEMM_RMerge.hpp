// RMerge (Gremse et al. 2015, §2): every output row is merged from at most W sorted input rows by a sub-warp of W
// vector lanes, one cursor per lane; the lanes agree on the smallest column by a vector min-reduction, sum the
// values at that column by a vector sum-reduction and advance. A is factored as A = A_k * G_{k-1} * ... * G_1,
// where each G cuts the rows of the previous factor into chunks of W entries, so rows of A longer than W need
// ceil(log_W(longest row)) rounds; the intermediate products X_j = G_j * X_{j-1} (X_0 = B) are kept only until
// the next round, and the last round uses the smallest power-of-two W that covers the remaining rows. The lanes
// are Kokkos vector lanes: CUDA sub-warps, HIP wavefront lanes, a CPU thread's serial lanes. Needs B's rows sorted.
// Sums run in A's order at equal columns (lane order), so results are deterministic.
#ifndef KOKKOSSPGEMM_RMERGE_HPP
#define KOKKOSSPGEMM_RMERGE_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace KokkosSpGEMM {
namespace Impl {

/// Widest merge (lanes) of the intermediate rounds.
template <class ExecSpace>
constexpr int rmerge_width() {
  return BackendTraits<ExecSpace>::max_vector_length > 1 ? BackendTraits<ExecSpace>::max_vector_length : 32;
}

/// Round 1: unit u is entry u of A, i.e. row a_cols(u) of B scaled by a_vals(u).
template <class Views>
struct RMergeFromB {
  static_assert(Views::stored_values, "KokkosSpGEMM: research row methods multiply by A's stored values only");
  Views v;
  KOKKOS_INLINE_FUNCTION std::int64_t begin(std::int64_t u) const { return v.b_rows(v.a_cols(u)); }
  KOKKOS_INLINE_FUNCTION std::int64_t end(std::int64_t u) const { return v.b_rows(v.a_cols(u) + 1); }
  KOKKOS_INLINE_FUNCTION auto col(std::int64_t pos) const { return v.b_cols(pos); }
  KOKKOS_INLINE_FUNCTION auto value(std::int64_t u, std::int64_t pos) const { return v.a_vals(u) * v.b_vals(pos); }
};

/// Later rounds: unit u is row u of the previous intermediate X.
template <class RowMap, class Cols, class Vals>
struct RMergeFromX {
  RowMap rows;
  Cols cols;
  Vals vals;
  KOKKOS_INLINE_FUNCTION std::int64_t begin(std::int64_t u) const { return rows(u); }
  KOKKOS_INLINE_FUNCTION std::int64_t end(std::int64_t u) const { return rows(u + 1); }
  KOKKOS_INLINE_FUNCTION auto col(std::int64_t pos) const { return cols(pos); }
  KOKKOS_INLINE_FUNCTION auto value(std::int64_t, std::int64_t pos) const { return vals(pos); }
};

/// Output row o merges units [units(o), units(o+1)) (at most W). Count: writes each row's size to sizes(o);
/// otherwise writes columns (and values when Values) at out_rows(o).
template <class ExecSpace, bool Count, bool Values, class Source, class Units, class Sizes, class OutRows,
          class OutCols, class OutVals, class Ordinal, class Scalar>
struct RMergeKernel {
  using Policy = Impl::Teams<ExecSpace>;
  using Member = typename Policy::member_type;
  Source src;
  Units units;
  std::int64_t num_out = 0;
  Sizes sizes;
  OutRows out_rows;
  OutCols out_cols;
  OutVals out_vals;
  int width = 1;

  static std::size_t scratch_bytes(int team_size, int width) {
    return static_cast<std::size_t>(team_size) * width * 2 * sizeof(std::int64_t) + 64;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal none = Kokkos::reduction_identity<Ordinal>::min();  // the largest Ordinal: no column
    std::int64_t* cursors = static_cast<std::int64_t*>(team.team_shmem().get_shmem_aligned(
        static_cast<std::size_t>(team.team_size()) * width * 2 * sizeof(std::int64_t), 16));
    const std::int64_t o = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
    if (o >= num_out) return;
    std::int64_t* pos = cursors + 2 * width * team.team_rank();
    std::int64_t* end = pos + width;
    const std::int64_t u0 = units(o);
    const int n = static_cast<int>(units(o + 1) - u0);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, width), [&](const int l) {
      pos[l] = l < n ? src.begin(u0 + l) : 0;
      end[l] = l < n ? src.end(u0 + l) : 0;
    });
    std::int64_t count = 0;
    const std::int64_t out_begin = Count ? 0 : static_cast<std::int64_t>(out_rows(o));
    while (true) {
      Ordinal m = none;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, width),
          [&](const int l, Ordinal& mn) {
            if (pos[l] < end[l]) {
              const Ordinal c = src.col(pos[l]);
              if (c < mn) mn = c;
            }
          },
          Kokkos::Min<Ordinal>(m));
      if (m == none) break;
      Scalar sum = Scalar();
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, width),
          [&](const int l, Scalar& s) {
            // A lane may hold several entries of the column when B repeats it: take them all.
            while (pos[l] < end[l] && src.col(pos[l]) == m) {
              if constexpr (Values) s += src.value(u0 + l, pos[l]);
              ++pos[l];
            }
          },
          sum);
      if constexpr (!Count) {
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          out_cols(out_begin + count) = m;
          if constexpr (Values) out_vals(out_begin + count) = sum;
        });
      }
      ++count;
    }
    if constexpr (Count) {
      Kokkos::single(Kokkos::PerThread(team), [&]() { sizes(o) = count; });
    }
  }
};

template <class ExecSpace, bool Count, bool Values, class Ordinal, class Scalar, class Source, class Units, class Sizes,
          class OutRows, class OutCols, class OutVals>
void rmerge_round(const ExecSpace& exec, const std::string& label, const Source& src, const Units& units,
                  std::int64_t num_out, int width, const Sizes& sizes, const OutRows& out_rows, const OutCols& out_cols,
                  const OutVals& out_vals) {
  if (num_out == 0) return;
  using Kernel =
      RMergeKernel<ExecSpace, Count, Values, Source, Units, Sizes, OutRows, OutCols, OutVals, Ordinal, Scalar>;
  const bool gpu = BackendTraits<ExecSpace>::is_gpu;
  const int vector = gpu ? width : 1;
  const int team_size = gpu ? (256 / width > 0 ? 256 / width : 1) : 1;
  const int league = static_cast<int>((num_out + team_size - 1) / team_size);
  typename Kernel::Policy policy(exec, league, team_size, vector);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(team_size, width)));
  Kokkos::parallel_for(label, policy, Kernel{src, units, num_out, sizes, out_rows, out_cols, out_vals, width});
}

/// Longest unit range of rows(i) over i in [0, n).
template <class ExecSpace, class Ptr>
std::int64_t rmerge_longest(const ExecSpace& exec, const Ptr& ptr, std::int64_t n) {
  std::int64_t m = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::RMerge::longest", Impl::Range<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& x) {
        const std::int64_t len = static_cast<std::int64_t>(ptr(i + 1) - ptr(i));
        if (len > x) x = len;
      },
      Kokkos::Max<std::int64_t>(m));
  return m;
}

/// The rounds of RMerge. Symbolic (Numeric = false): the final round writes each row's size to v.row_sizes.
/// Numeric: it writes C's columns and values at C's row map. Returns the bytes of the largest intermediate kept.
template <bool Numeric, class ExecSpace, class Views>
std::size_t rmerge_multiply(const ExecSpace& exec, const Views& v, std::int64_t rows) {
  using Space = typename ExecSpace::memory_space;
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using I64 = std::int64_t;
  using Ptr = Kokkos::View<I64*, Space>;
  using XCols = Kokkos::View<Ordinal*, Space>;
  using XVals = Kokkos::View<Scalar*, Space>;
  const std::string phase = Numeric ? "KokkosSpGEMM::Numeric::rmerge_" : "KokkosSpGEMM::Symbolic::rmerge_";
  constexpr int W = rmerge_width<ExecSpace>();
  // Units of each output row at the current level: entries of A at first.
  Ptr row_units(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RMerge::row_units"), rows + 1);
  {
    const auto a_rows = v.a_rows;
    Kokkos::parallel_for(
        phase + "units", Impl::Range<ExecSpace>(exec, 0, rows + 1),
        KOKKOS_LAMBDA(const I64 i) { row_units(i) = static_cast<I64>(a_rows(i)); });
  }
  Ptr x_rows;
  XCols x_cols;
  XVals x_vals;
  std::size_t peak = 0;
  int level = 0;
  auto run = [&](auto count_or_fill, const auto& units, I64 num_out, int width, const auto& sizes, const auto& out_rows,
                 const auto& out_cols, const auto& out_vals) {
    constexpr bool count = decltype(count_or_fill)::value;
    const std::string label = phase + (count ? "count_" : "fill_") + std::to_string(level);
    if (level == 0) {
      rmerge_round<ExecSpace, count, !count, Ordinal, Scalar>(exec, label, RMergeFromB<Views>{v}, units, num_out, width,
                                                              sizes, out_rows, out_cols, out_vals);
    } else {
      rmerge_round<ExecSpace, count, !count, Ordinal, Scalar>(
          exec, label, RMergeFromX<Ptr, XCols, XVals>{x_rows, x_cols, x_vals}, units, num_out, width, sizes, out_rows,
          out_cols, out_vals);
    }
  };
  using CountTag = std::integral_constant<bool, true>;
  using FillTag = std::integral_constant<bool, false>;
  while (true) {
    const I64 longest = rmerge_longest(exec, row_units, rows);
    if (longest <= W) {
      const int width = static_cast<int>(bit_ceil_u64(static_cast<std::uint64_t>(longest > 1 ? longest : 1)));
      if constexpr (Numeric) {
        run(FillTag{}, row_units, rows, width, v.row_sizes, v.c_rows, v.c_cols, v.c_vals);
      } else {
        run(CountTag{}, row_units, rows, width, v.row_sizes, v.c_rows, v.c_cols, v.c_vals);
      }
      break;
    }
    // G: each row's units cut into chunks of W; a chunk is a row of the next intermediate.
    Ptr next_row_units(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RMerge::row_units"), rows + 1);
    const auto cur = row_units;
    Kokkos::parallel_scan(
        phase + "chunks", Impl::Range<ExecSpace>(exec, 0, rows + 1),
        KOKKOS_LAMBDA(const I64 i, I64& partial, const bool final) {
          if (final) next_row_units(i) = partial;
          if (i < rows) partial += (cur(i + 1) - cur(i) + W - 1) / W;
        });
    I64 chunks = 0;
    exec.fence();
    Kokkos::deep_copy(chunks, Kokkos::subview(next_row_units, rows));
    Ptr chunk_units(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RMerge::chunk_units"), chunks + 1);
    Kokkos::parallel_for(
        phase + "chunk_units", Impl::Range<ExecSpace>(exec, 0, rows + 1), KOKKOS_LAMBDA(const I64 i) {
          if (i == rows) {
            chunk_units(chunks) = cur(rows);
            return;
          }
          for (I64 j = next_row_units(i); j < next_row_units(i + 1); ++j) {
            chunk_units(j) = cur(i) + (j - next_row_units(i)) * W;
          }
        });
    // X_next = G * X: count, scan, fill.
    Ptr sizes(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RMerge::sizes"), chunks);
    run(CountTag{}, chunk_units, chunks, W, sizes, sizes, x_cols, x_vals);
    Ptr next_rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RMerge::x_rows"), chunks + 1);
    Kokkos::parallel_scan(
        phase + "x_rows", Impl::Range<ExecSpace>(exec, 0, chunks + 1),
        KOKKOS_LAMBDA(const I64 j, I64& partial, const bool final) {
          if (final) next_rows(j) = partial;
          if (j < chunks) partial += sizes(j);
        });
    I64 x_nnz = 0;
    exec.fence();
    Kokkos::deep_copy(x_nnz, Kokkos::subview(next_rows, chunks));
    XCols next_cols(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RMerge::x_cols"), x_nnz);
    XVals next_vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RMerge::x_vals"), x_nnz);
    run(FillTag{}, chunk_units, chunks, W, sizes, next_rows, next_cols, next_vals);
    exec.fence();
    const std::size_t bytes = static_cast<std::size_t>(x_nnz) * (sizeof(Ordinal) + sizeof(Scalar)) * 2 +
                              static_cast<std::size_t>(chunks) * 3 * sizeof(I64);
    peak = max_of(peak, bytes);
    x_rows = next_rows;
    x_cols = next_cols;
    x_vals = next_vals;
    row_units = next_row_units;
    ++level;
  }
  return peak;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
