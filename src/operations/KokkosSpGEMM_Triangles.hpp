// Triangle counting on the masked product: with L the strictly lower triangle of an undirected graph's pattern, its
// vertices ordered by degree, the number of triangles is the sum of C⟨L⟩ = L ⊕.⊗ L over plus-pair (each triangle
// k < j < i in that order is the one product l_ik l_kj at C's entry (i, j)). The sum is taken as the products are found
// (walk_masked_products with the mask as the target rows), so C is never stored. Data flow: checks (square, sorted
// rows, each (i, j) with its (j, i))
// -> L (each vertex's neighbours of lower degree) -> the masked walk of L·L against L.
#ifndef KOKKOSSPGEMM_TRIANGLES_HPP
#define KOKKOSSPGEMM_TRIANGLES_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <impl/accumulate/KokkosSpGEMM_MaskedRows.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <operations/KokkosSpGEMM_MaskedSpGEMM.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace KokkosSpGEMM {

namespace Impl {
/// The product walk's action for a count: nothing but the count itself.
struct CountAction {
  static constexpr bool uses_position = false;
  template <bool Atomic, class Ops>
  KOKKOS_INLINE_FUNCTION void operator()(const Ops&, std::int64_t, std::int64_t, std::int64_t) const {}
};

/// A 64-bit mix of an ordered pair (splitmix64's finaliser): the pair sets of g and gᵀ are compared by the sums of
/// this over their entries.
KOKKOS_INLINE_FUNCTION std::uint64_t pair_hash(std::uint64_t i, std::uint64_t j) {
  std::uint64_t x = (i << 32) ^ j ^ 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Sums pair_hash(i, j) - pair_hash(j, i) over g's entries: zero for a symmetric pattern (rows without repeats),
/// nonzero otherwise but with chance 2^-64. One pass, no search, no transpose (an exact search of each (j, i) cost
/// 5.5 ms of a 12 ms count on ca-CondMat, one thread).
template <class ExecSpace, class Rows, class Cols>
struct AsymmetryHash {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  GraphRows<ExecSpace> shape;
  Rows rows;
  Cols cols;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m, std::uint64_t& sum) const {
    const std::int64_t first = static_cast<std::int64_t>(m.league_rank()) * shape.team_rows;
    std::uint64_t team_sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(m, shape.team_rows),
        [&](const int t, std::uint64_t& s) {
          const std::int64_t i = first + t;
          if (i >= shape.rows) return;
          const std::int64_t begin = rows(i), end = rows(i + 1);
          std::uint64_t row_sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, end - begin),
              [&](const std::int64_t x, std::uint64_t& h) {
                const std::uint64_t j = static_cast<std::uint64_t>(cols(begin + x));
                h += pair_hash(static_cast<std::uint64_t>(i), j) - pair_hash(j, static_cast<std::uint64_t>(i));
              },
              row_sum);
          s += row_sum;
        },
        team_sum);
    Kokkos::single(Kokkos::PerTeam(m), [&]() { sum += team_sum; });
  }
};

/// Whether vertex j comes before vertex i in the order (degree, index).
template <class Rows, class Ordinal>
KOKKOS_INLINE_FUNCTION bool before(const Rows& rows, Ordinal j, Ordinal i) {
  const auto dj = rows(j + 1) - rows(j), di = rows(i + 1) - rows(i);
  return dj < di || (dj == di && j < i);
}

/// Row i of L: its neighbours before it (sizes, then with offsets the columns in their order). The sizes pass marks
/// each entry of g that L keeps, so that the fill reads those marks in g's order instead of every neighbour's degree
/// again (a load a row apart for each entry: on CPUs the pass's cache misses).
template <class ExecSpace, class Rows, class Cols, class LRows, class LCols, class Sizes, class Kept>
struct LowerByDegree {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  GraphRows<ExecSpace> shape;
  Rows rows;
  Cols cols;
  LRows l_rows;
  LCols l_cols;
  Sizes sizes;
  Kept kept;
  bool fill = false;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    using Ordinal = typename Cols::non_const_value_type;
    shape.for_rows(m, [&](const std::int64_t row) {
      const auto i = static_cast<Ordinal>(row);
      const std::int64_t begin = rows(i), end = rows(i + 1);
      if (!fill) {
        std::int64_t n = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(m, end - begin),
            [&](const std::int64_t x, std::int64_t& c) {
              const bool keep = before(rows, cols(begin + x), i);
              kept(begin + x) = keep;
              c += keep;
            },
            n);
        Kokkos::single(Kokkos::PerThread(m), [&]() { sizes(i) = n; });
        return;
      }
      const std::int64_t out = l_rows(i);
      Kokkos::parallel_scan(Kokkos::ThreadVectorRange(m, end - begin),
                            [&](const std::int64_t x, std::int64_t& at, const bool final) {
                              if (kept(begin + x)) {
                                if (final) l_cols(out + at) = cols(begin + x);
                                ++at;
                              }
                            });
    });
  }
};

/// Throws unless g is square, has sorted rows without repeats and holds (j, i) wherever it holds (i, j).
template <class ExecSpace, class GMatrix>
void check_undirected(const ExecSpace& exec, const char* function, const GMatrix& g) {
  KOKKOSSPGEMM_REQUIRE(g.num_rows() == g.num_cols(), DimensionMismatch, function,
                       "a graph's adjacency matrix must be square, not " << g.num_rows() << " x " << g.num_cols());
  check_csr_sorted_unique(exec, function, "the graph", g);
  std::uint64_t asymmetry = 0;
  if (g.num_rows() > 0) {
    using F = AsymmetryHash<ExecSpace, std::decay_t<decltype(g.row_map())>, std::decay_t<decltype(g.entries())>>;
    const GraphRows<ExecSpace> shape(g.num_rows(), static_cast<std::int64_t>(g.nnz()));
    Kokkos::parallel_reduce("KokkosSpGEMM::Triangles::symmetric", shape.policy(exec),
                            F{shape, g.row_map(), g.entries()}, asymmetry);
  }
  KOKKOSSPGEMM_REQUIRE(asymmetry == 0, InvalidInput, function,
                       "the graph is not structurally symmetric (some entry (i, j) has no (j, i)): an undirected "
                       "graph needs both");
}

/// L: row i holds i's neighbours that come before i in the order (degree, index), columns sorted, values 1 (the
/// strictly lower triangle of g with its vertices sorted by degree, made without permuting g). Each row then holds
/// at most sqrt(2m) entries for m edges, which bounds the products of L·L on power-law graphs.
template <class ExecSpace, class GMatrix>
CsrMatrix<char, typename GMatrix::ordinal_type, typename GMatrix::offset_type, typename ExecSpace::memory_space>
lower_by_degree(const ExecSpace& exec, const GMatrix& g) {
  using Ordinal = typename GMatrix::ordinal_type;
  using L = CsrMatrix<char, Ordinal, typename GMatrix::offset_type, typename ExecSpace::memory_space>;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> sizes(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Triangles::sizes"), g.num_rows());
  typename L::row_map_type rows(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::L::row_map"),
                                static_cast<std::size_t>(g.num_rows()) + 1);
  // The entries' marks from the library's cache (a temporary of this call; no device allocation).
  const std::size_t g_nnz = g.entries().extent(0);
  Workspace<ExecSpace> workspace(exec, sizeof(WorkspaceGrain) + g_nnz);
  const auto kept = workspace.template take<unsigned char>("KokkosSpGEMM::Triangles::kept", g_nnz);
  using F = LowerByDegree<ExecSpace, std::decay_t<decltype(g.row_map())>, std::decay_t<decltype(g.entries())>,
                          typename L::row_map_type, typename L::entries_type, decltype(sizes), decltype(kept)>;
  const GraphRows<ExecSpace> shape(g.num_rows(), static_cast<std::int64_t>(g.nnz()));
  if (g.num_rows() > 0) {
    Kokkos::parallel_for("KokkosSpGEMM::Triangles::lower_sizes", shape.policy(exec),
                         F{shape, g.row_map(), g.entries(), rows, {}, sizes, kept, false});
  }
  const std::int64_t nnz = row_map_from_sizes(exec, "triangle_count", rows, sizes);
  typename L::entries_type cols(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::L::entries"), nnz);
  typename L::values_type vals(Kokkos::view_alloc(exec, "KokkosSpGEMM::L::values"), nnz);
  if (g.num_rows() > 0) {
    Kokkos::parallel_for("KokkosSpGEMM::Triangles::lower", shape.policy(exec),
                         F{shape, g.row_map(), g.entries(), rows, cols, sizes, kept, true});
  }
  return L(g.num_rows(), g.num_cols(), rows, cols, vals);
}
}  // namespace Impl

/// The number of triangles of an undirected graph: g's pattern (values are ignored) must be square, structurally
/// symmetric, with sorted rows without repeats; self-loops are ignored. Throws DimensionMismatch (not square),
/// InvalidInput (malformed, unsorted or repeated columns, not symmetric).
template <class ExecSpace, class GMatrix>
std::int64_t triangle_count(const ExecSpace& exec, const GMatrix& g) {
  Impl::ProfilingRegion region("KokkosSpGEMM::triangle_count");
  std::int64_t count = 0;
  Impl::translate_allocation_failure("triangle_count", [&] {
    Impl::check_undirected(exec, "triangle_count", g);
    const auto l = Impl::lower_by_degree(exec, g);
    count = Impl::walk_masked_products(exec, "KokkosSpGEMM::Triangles::count", l, l, l.row_map(), l.entries(),
                                       Impl::CountAction(), false);
  });
  return count;
}

}  // namespace KokkosSpGEMM

#endif
