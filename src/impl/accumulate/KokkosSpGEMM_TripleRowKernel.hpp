// Rows of a triple product Ac = R*A*P in one pass over R's rows, with no intermediate product stored: row i of Ac
// sums R(i,k) * A(k,l) * P(l,:) over row i of R and the rows of A it names, in a dense accumulator per thread (a
// stamp and a value per column of P), as the host kernels of Tpetra and hypre do. It recomputes a row of A*P for
// every entry of R that names it, so it pays where R's columns are short (tentative prolongators: one entry a row
// of P), and it needs a thread's P.num_cols() slots: a host kernel.
#ifndef KOKKOSSPGEMM_TRIPLEROWKERNEL_HPP
#define KOKKOSSPGEMM_TRIPLEROWKERNEL_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <impl/accumulate/KokkosSpGEMM_RowSort.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace KokkosSpGEMM {
namespace Impl {

/// The passes over R's rows: Count writes each row's size of Ac (at ac_rows(i + 1)); Fill writes its sorted columns
/// and values; Refresh writes values over columns in place; Bounded writes a row's size, sorted columns and values
/// at once, one after the other into its work item's region of the buffers (triple_bounds), which a compaction
/// copies into Ac.
enum class TriplePass { Count, Fill, Refresh, Bounded };

/// The longest row of m (0 for a matrix without rows).
template <class ExecSpace, class Matrix>
std::int64_t longest_row(const ExecSpace& exec, const Matrix& m) {
  const auto rows = m.row_map();
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::TripleRows::longest_row", Kokkos::RangePolicy<ExecSpace>(exec, 0, std::int64_t(m.num_rows())),
      KOKKOS_LAMBDA(const std::int64_t l, std::int64_t& most) {
        const auto len = static_cast<std::int64_t>(rows(l + 1) - rows(l));
        most = len > most ? len : most;
      },
      Kokkos::Max<std::int64_t>(longest));
  return m.num_rows() > 0 ? longest : 0;
}

template <class ExecSpace, TriplePass Pass, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
struct TripleRowKernel {
  using Ordinal = typename AcMatrix::ordinal_type;
  using Scalar = typename AcMatrix::scalar_type;
  using Space = typename ExecSpace::memory_space;

  /// Rows a work item takes: a token taken once serves a block of short rows.
  static constexpr std::int64_t rows_per_item = 16;
  /// Insertion sort of a row's columns up to this many moves an entry (rows of stencil-like coarse operators come
  /// in few sorted runs); past it, the quicksort.
  static constexpr std::int64_t insertion_moves_per_entry = 8;

  RMatrix r;
  AMatrix a;
  PMatrix p;
  typename AcMatrix::row_map_type ac_rows;
  typename AcMatrix::entries_type ac_cols;
  typename AcMatrix::values_type ac_vals;
  // Per token: the row (plus one, unique to it: no slot is ever cleared) that last touched each column of P, and
  // that column's sum in the row.
  Kokkos::View<Ordinal**, Kokkos::LayoutRight, Space> stamps;
  Kokkos::View<Scalar**, Kokkos::LayoutRight, Space> sums;
  Kokkos::View<int, Space> missed;  // a column of Ac that no product reached (a changed structure)
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  // Bounded: work item t's region of the buffers (ac_cols, ac_vals) starts at region(t), with room for its rows'
  // bounds and one more entry.
  Kokkos::View<const std::int64_t*, Space> region;
  bool unit_p = false;  // every row of P holds one entry (tentative prolongators): its entry l is row l's

  /// A pass's kernel with its workspace: a stamp (zeroed) and, but for Count, a sum per column of P and token.
  /// unit_p: rows_of_one_entry of P.
  static TripleRowKernel make(const ExecSpace& exec, const RMatrix& r, const AMatrix& a, const PMatrix& p, bool unit_p,
                              const typename AcMatrix::row_map_type& ac_rows,
                              const typename AcMatrix::entries_type& ac_cols = {},
                              const typename AcMatrix::values_type& ac_vals = {}) {
    TripleRowKernel k{r, a, p, ac_rows, ac_cols, ac_vals};
    k.token = Kokkos::Experimental::UniqueToken<ExecSpace>(exec);
    const auto tokens = static_cast<std::size_t>(k.token.size());
    const auto width = static_cast<std::size_t>(p.num_cols());
    k.stamps = decltype(k.stamps)("KokkosSpGEMM::TripleRows::stamps", tokens, width);
    if (Pass != TriplePass::Count) {
      k.sums = decltype(k.sums)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::TripleRows::sums"),
                                tokens, width);
    }
    k.missed = decltype(k.missed)("KokkosSpGEMM::TripleRows::missed");
    k.unit_p = unit_p;
    return k;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item) const {
    const std::int64_t begin = item * rows_per_item;
    const std::int64_t rows = r.num_rows();
    const std::int64_t end = begin + rows_per_item < rows ? begin + rows_per_item : rows;
    const int t = token.acquire();
    Ordinal* stamp = &stamps(t, 0);
    std::int64_t at = 0;
    if constexpr (Pass == TriplePass::Bounded) at = region(item);
    for (std::int64_t i = begin; i < end; ++i) {
      if constexpr (Pass == TriplePass::Count) {
        count(static_cast<Ordinal>(i), stamp);
      } else if constexpr (Pass == TriplePass::Bounded) {
        at += bounded(static_cast<Ordinal>(i), stamp, &sums(t, 0), ac_cols.data() + at, ac_vals.data() + at);
      } else {
        accumulate(static_cast<Ordinal>(i), stamp, &sums(t, 0));
      }
    }
    token.release(t);
  }

  /// Calls f(column, R(i,k) * A(k,l) * P(l,column)) for each product of row i (Count's calls leave the values unused,
  /// and the compiler their loads).
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_product(const Ordinal i, F&& f) const {
    const auto* r_rows = r.row_map().data();
    const Ordinal* r_cols = r.entries().data();
    const auto* r_vals = r.values().data();
    const auto* a_rows = a.row_map().data();
    const Ordinal* a_cols = a.entries().data();
    const auto* a_vals = a.values().data();
    const auto* p_rows = p.row_map().data();
    const Ordinal* p_cols = p.entries().data();
    const auto* p_vals = p.values().data();
    if (unit_p) {  // no loop over a row of P: its bounds were a load and a branch a product
      for (auto e = r_rows[i]; e < r_rows[i + 1]; ++e) {
        const Ordinal k = r_cols[e];
        const Scalar rv = r_vals[e];
        for (auto g = a_rows[k]; g < a_rows[k + 1]; ++g) {
          const Ordinal l = a_cols[g];
          f(p_cols[l], rv * a_vals[g] * p_vals[l]);
        }
      }
      return;
    }
    for (auto e = r_rows[i]; e < r_rows[i + 1]; ++e) {
      const Ordinal k = r_cols[e];
      const Scalar rv = r_vals[e];
      for (auto g = a_rows[k]; g < a_rows[k + 1]; ++g) {
        const Ordinal l = a_cols[g];
        const Scalar ra = rv * a_vals[g];
        for (auto h = p_rows[l]; h < p_rows[l + 1]; ++h) f(p_cols[h], ra * p_vals[h]);
      }
    }
  }

  /// With unit_p, calls f(column, sum) for each run of products of row i into one column, in their order: a
  /// stencil's neighbours fall into one aggregate, and their sum in a register spares the dense sum's chain of
  /// stores and reloads. Otherwise for_each_product (P's rows send consecutive products to distinct columns).
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_run(const Ordinal i, F&& f) const {
    if (!unit_p) {
      for_each_product(i, f);
      return;
    }
    bool started = false;
    Ordinal column = 0;
    Scalar run = Scalar();
    for_each_product(i, [&](const Ordinal col, const Scalar x) {
      if (started && col == column) {
        run += x;
        return;
      }
      if (started) f(column, run);
      started = true;
      column = col;
      run = x;
    });
    if (started) f(column, run);
  }

  KOKKOS_INLINE_FUNCTION void count(const Ordinal i, Ordinal* stamp) const {
    const Ordinal s = i + 1;
    std::int64_t n = 0;
    for_each_run(i, [&](const Ordinal col, const Scalar) {
      n += stamp[col] != s;
      stamp[col] = s;
    });
    ac_rows(i + 1) = static_cast<typename AcMatrix::offset_type>(n);
  }

  /// Adds x at col, starting the column's sum where the row has not yet reached it; returns whether it had not.
  KOKKOS_INLINE_FUNCTION static bool add(Ordinal* stamp, Scalar* sum, const Ordinal s, const Ordinal col,
                                         const Scalar x) {
    if (stamp[col] != s) {
      stamp[col] = s;
      sum[col] = x;
      return true;
    }
    sum[col] += x;
    return false;
  }

  /// Writes row i at cols and vals; returns its size.
  KOKKOS_INLINE_FUNCTION std::int64_t bounded(const Ordinal i, Ordinal* stamp, Scalar* sum, Ordinal* cols,
                                              Scalar* vals) const {
    const Ordinal s = i + 1;
    std::int64_t n = 0;
    // The region has room for one entry past the row's distinct columns: each run stores its column at n, which
    // only a new column keeps.
    for_each_run(i, [&](const Ordinal col, const Scalar x) {
      cols[n] = col;
      n += add(stamp, sum, s, col, x);
    });
    if (!insertion_sorted(cols, n, insertion_moves_per_entry)) {
      sort_row_sequential(cols, static_cast<Scalar*>(nullptr), n);
    }
    for (std::int64_t j = 0; j < n; ++j) vals[j] = sum[cols[j]];
    ac_rows(i + 1) = static_cast<typename AcMatrix::offset_type>(n);
    return n;
  }

  KOKKOS_INLINE_FUNCTION void accumulate(const Ordinal i, Ordinal* stamp, Scalar* sum) const {
    const Ordinal s = i + 1;
    Ordinal* cols = ac_cols.data() + ac_rows(i);
    Scalar* vals = ac_vals.data() + ac_rows(i);
    const std::int64_t size = ac_rows(i + 1) - ac_rows(i);
    std::int64_t n = 0;
    for_each_run(i, [&](const Ordinal col, const Scalar x) {
      if constexpr (Pass == TriplePass::Fill) {
        if (add(stamp, sum, s, col, x)) {
          if (n < size) cols[n] = col;
          ++n;
        }
      } else {
        n += add(stamp, sum, s, col, x);
      }
    });
    if constexpr (Pass == TriplePass::Fill) {
      if (!insertion_sorted(cols, size, insertion_moves_per_entry)) {
        sort_row_sequential(cols, static_cast<Scalar*>(nullptr), size);
      }
    }
    bool ok = n == size;
    for (std::int64_t j = 0; j < size; ++j) {
      const Ordinal col = cols[j];
      const bool reached = stamp[col] == s;
      ok = ok && reached;
      vals[j] = reached ? sum[col] : Scalar();
    }
    if (!ok) missed() = 1;
  }

  void run(const ExecSpace& exec) const {
    const std::int64_t items = (static_cast<std::int64_t>(r.num_rows()) + rows_per_item - 1) / rows_per_item;
    Kokkos::parallel_for("KokkosSpGEMM::TripleRows",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, items), *this);
  }
};

/// The regions of the one-pass route (TriplePass::Bounded), a work item of TripleRowKernel's rows each: region(t) to
/// region(t + 1) holds the bounds of item t's rows (a row's products: R's entries' rows of A times P's longest row,
/// at most P's columns) and one entry more; region(items) is the total. An item's rows lie one after the other in
/// it, as they will in Ac, so that the compaction copies an item at once.
template <class Kernel, class ExecSpace, class RMatrix, class AMatrix, class PMatrix>
Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> triple_bounds(const ExecSpace& exec, const RMatrix& r,
                                                                            const AMatrix& a, const PMatrix& p,
                                                                            std::int64_t longest) {
  const auto r_rows = r.row_map();
  const auto r_cols = r.entries();
  const auto a_rows = a.row_map();
  const std::int64_t n = r.num_rows(), width = p.num_cols();
  constexpr std::int64_t per_item = Kernel::rows_per_item;
  const std::int64_t items = (n + per_item - 1) / per_item;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> region(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::TripleRows::region"), std::size_t(items) + 1);
  Kokkos::parallel_scan(
      "KokkosSpGEMM::TripleRows::region", Kokkos::RangePolicy<ExecSpace>(exec, 0, items + 1),
      KOKKOS_LAMBDA(const std::int64_t t, std::int64_t& partial, const bool final) {
        std::int64_t room = 0;
        if (t < items) {
          const std::int64_t end = (t + 1) * per_item < n ? (t + 1) * per_item : n;
          for (std::int64_t i = t * per_item; i < end; ++i) {
            std::int64_t bound = 0;
            for (auto e = r_rows(i); e < r_rows(i + 1); ++e) {
              const auto k = r_cols(e);
              bound += static_cast<std::int64_t>(a_rows(k + 1) - a_rows(k));
            }
            bound *= longest;
            room += bound < width ? bound : width;
          }
          room += 1;
        }
        if (final) region(t) = partial;
        partial += room;
      });
  return region;
}

/// Bytes of buffers past which triple_rows_product counts the rows first instead of writing them into regions of
/// their bounds: the temporary cache's limit (its blocks stay warm between calls), or A's own arrays where larger.
template <class AMatrix>
std::size_t triple_one_pass_bytes(const AMatrix& a) {
  const std::size_t a_bytes = static_cast<std::size_t>(a.nnz()) *
                              (sizeof(typename AMatrix::ordinal_type) + sizeof(typename AMatrix::scalar_type));
  return a_bytes > default_temporary_cache_bytes ? a_bytes : default_temporary_cache_bytes;
}

/// How triple_rows_product lays out Ac: one pass into regions of the rows' bounds where they fit
/// triple_one_pass_bytes (Auto), always (OnePass), or a count pass first (Counted).
enum class TripleRoute { Auto, OnePass, Counted };

/// Ac = R*A*P (Ac's structure and values; rows sorted) through TripleRowKernel. Ac's views are allocated here. In one
/// pass each row is written into its region of the bounds and a copy compacts them (the work of a count pass saved
/// for a copy of Ac); counted, a count pass sizes the rows first.
template <class ExecSpace, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
void triple_rows_product(const ExecSpace& exec, const RMatrix& r, const AMatrix& a, const PMatrix& p, AcMatrix& ac,
                         TripleRoute route = TripleRoute::Auto) {
  using Offset = typename AcMatrix::offset_type;
  using Ordinal = typename AcMatrix::ordinal_type;
  using Scalar = typename AcMatrix::scalar_type;
  KOKKOSSPGEMM_REQUIRE(r.num_cols() == a.num_rows() && a.num_cols() == p.num_rows(), DimensionMismatch,
                       "triple_rows_product",
                       "R is " << r.num_rows() << " x " << r.num_cols() << ", A is " << a.num_rows() << " x "
                               << a.num_cols() << ", P is " << p.num_rows() << " x " << p.num_cols());
  const typename AcMatrix::row_map_type rows("KokkosSpGEMM::TripleRows::row_map", std::size_t(r.num_rows()) + 1);
  const bool unit_p = rows_of_one_entry(exec, p.row_map(), p.nnz());
  using Bounded = TripleRowKernel<ExecSpace, TriplePass::Bounded, RMatrix, AMatrix, PMatrix, AcMatrix>;
  const auto region = triple_bounds<Bounded>(exec, r, a, p, unit_p ? 1 : longest_row(exec, p));
  const std::int64_t items = static_cast<std::int64_t>(region.extent(0)) - 1;
  std::int64_t bounded = 0;
  Kokkos::deep_copy(exec, bounded, Kokkos::subview(region, std::size_t(items)));
  exec.fence();
  const bool one_pass =
      route == TripleRoute::OnePass ||
      (route == TripleRoute::Auto &&
       static_cast<std::size_t>(bounded) * (sizeof(Ordinal) + sizeof(Scalar)) <= triple_one_pass_bytes(a));
  Workspace<ExecSpace> workspace(exec, one_pass ? std::size_t(bounded) * (sizeof(Ordinal) + sizeof(Scalar)) + 1024 : 0);
  typename AcMatrix::entries_type buffer_cols;
  typename AcMatrix::values_type buffer_vals;
  if (one_pass) {
    buffer_cols = workspace.template take<Ordinal>("KokkosSpGEMM::TripleRows::buffer_entries", std::size_t(bounded));
    buffer_vals = workspace.template take<Scalar>("KokkosSpGEMM::TripleRows::buffer_values", std::size_t(bounded));
    auto k = Bounded::make(exec, r, a, p, unit_p, rows, buffer_cols, buffer_vals);
    k.region = region;
    k.run(exec);
  } else {
    TripleRowKernel<ExecSpace, TriplePass::Count, RMatrix, AMatrix, PMatrix, AcMatrix>::make(exec, r, a, p, unit_p,
                                                                                             rows)
        .run(exec);
  }
  Offset total = 0;
  Kokkos::parallel_scan(
      "KokkosSpGEMM::TripleRows::row_map", Kokkos::RangePolicy<ExecSpace>(exec, 0, std::int64_t(r.num_rows()) + 1),
      KOKKOS_LAMBDA(const std::int64_t i, Offset& partial, const bool final) {
        partial += rows(i);  // rows(i) holds the size of row i - 1 (rows(0) is 0)
        if (final) rows(i) = partial;
      },
      total);
  const typename AcMatrix::entries_type cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::TripleRows::entries"), std::size_t(total));
  const typename AcMatrix::values_type vals(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::TripleRows::values"), std::size_t(total));
  if (one_pass) {
    const std::int64_t rows_n = r.num_rows();
    Kokkos::parallel_for(
        "KokkosSpGEMM::TripleRows::compact", Kokkos::RangePolicy<ExecSpace>(exec, 0, items),
        KOKKOS_LAMBDA(const std::int64_t t) {
          const std::int64_t first = t * Bounded::rows_per_item;
          const std::int64_t last = first + Bounded::rows_per_item < rows_n ? first + Bounded::rows_per_item : rows_n;
          const std::int64_t from = region(t), to = static_cast<std::int64_t>(rows(first));
          const std::int64_t n = static_cast<std::int64_t>(rows(last)) - to;
          for (std::int64_t j = 0; j < n; ++j) {
            cols(to + j) = buffer_cols(from + j);
            vals(to + j) = buffer_vals(from + j);
          }
        });
    exec.fence();  // the buffers go back to the cache with the workspace
  } else {
    TripleRowKernel<ExecSpace, TriplePass::Fill, RMatrix, AMatrix, PMatrix, AcMatrix>::make(exec, r, a, p, unit_p, rows,
                                                                                            cols, vals)
        .run(exec);
  }
  ac = AcMatrix(r.num_rows(), p.num_cols(), rows, cols, vals);
}

/// New values of R, A and P (same structures) into ac's values. False when a column of Ac was not reached (a
/// structure changed): ac's values are then not valid.
template <class ExecSpace, class RMatrix, class AMatrix, class PMatrix, class AcMatrix>
bool triple_rows_refresh(const ExecSpace& exec, const RMatrix& r, const AMatrix& a, const PMatrix& p, AcMatrix& ac) {
  if (r.num_cols() != a.num_rows() || a.num_cols() != p.num_rows() || ac.num_rows() != r.num_rows() ||
      ac.num_cols() != p.num_cols()) {
    return false;
  }
  const auto k = TripleRowKernel<ExecSpace, TriplePass::Refresh, RMatrix, AMatrix, PMatrix, AcMatrix>::make(
      exec, r, a, p, rows_of_one_entry(exec, p.row_map(), p.nnz()), ac.row_map(), ac.entries(), ac.values());
  k.run(exec);
  int missed = 0;
  Kokkos::deep_copy(exec, missed, k.missed);
  exec.fence();
  return missed == 0;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
