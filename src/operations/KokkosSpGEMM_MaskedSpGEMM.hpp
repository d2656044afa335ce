// Masked products C⟨M⟩ = A ⊕.⊗ B (only entries in M's structure) and C⟨¬M⟩ (only entries outside it), over any
// semiring, with symbolic/numeric reuse. Data flow:
//   plain mask:      mark the mask entries some product reaches -> row sizes -> C's row map and columns (M's, kept
//                    where marked)
//   complemented:    A·B (the unmasked product's pipeline, rows sorted) -> its entries outside M's row (CPUs: a
//                    merge a row, row sizes scanned; GPUs: a search an entry, flags scanned) -> C's row map,
//                    columns and (one-shot) values; the one-shot where Auto or Hash runs: the pipeline with M's
//                    rows in each row's accumulator (MultiplyViews::mask_rows: stamped into the CPU dense rows;
//                    counted in the binned rows' tables, then erased before they write), so C⟨¬M⟩ comes out
//                    directly
//   numeric (plain): C's values at the identity -> every product added at its column's place in C's row
//   numeric (complemented): the unmasked product's reuse call -> C's values gathered from A·B's kept places
// (impl/accumulate/KokkosSpGEMM_MaskedRows.hpp). Under a plain mask a product outside the mask is dropped when it
// is formed, before any accumulation, and a row of C never holds more than its mask row. A complemented mask bounds
// nothing before the products are formed (C's row is A·B's less a few entries), so its products run the unmasked
// kernels, every accumulator and reuse of the pipeline, and M is applied to A·B's rows (inside the rows where the
// one-shot runs Auto or Hash).
#ifndef KOKKOSSPGEMM_MASKEDSPGEMM_HPP
#define KOKKOSSPGEMM_MASKEDSPGEMM_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_Semirings.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <impl/accumulate/KokkosSpGEMM_MaskedRows.hpp>
#include <impl/accumulate/KokkosSpGEMM_SemiringValue.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <operations/KokkosSpGEMM_SemiringProducts.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

/// Which entries of A·B a masked product keeps: those in M's structure (Plain) or those outside it (Complement).
enum class MaskKind { None, Plain, Complement };

/// A mask: a matrix whose structure (not values) selects C's entries. Its rows must be sorted without repeats.
template <class MMatrix>
struct Mask {
  MMatrix matrix;
  MaskKind kind = MaskKind::Plain;
};

/// C⟨M⟩: keep the entries of A·B in M's structure.
template <class MMatrix>
Mask<MMatrix> mask(const MMatrix& m) {
  return Mask<MMatrix>{m, MaskKind::Plain};
}
/// C⟨¬M⟩: keep the entries of A·B outside M's structure.
template <class MMatrix>
Mask<MMatrix> complement(const MMatrix& m) {
  return Mask<MMatrix>{m, MaskKind::Complement};
}

/// The analysis of one masked product's structure (A, B and M): C's row map and columns, which its numeric calls
/// fill with values of any semiring. Scalar, Ordinal and Offset are C's. For a complemented mask it also keeps, between
/// calls, the unmasked product's analysis and A·B (whose numeric calls make C's values) and a place in A·B an entry
/// of C.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class MaskedHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;

  explicit MaskedHandle(const Options& options = Options(), const Tuning& tuning = Tuning()) {
    m_state.options = options;
    m_state.tuning = tuning;
  }

  const Options& options() const { return m_state.options; }
  bool has_analysis() const { return m_state.done; }
  MaskKind kind() const { return m_state.kind; }
  /// nnz(C), known after the symbolic phase.
  std::int64_t nnz() const { return m_state.nnz; }
  /// Products a_ik b_kj that land in C (the masked product's work); a complemented mask's are all of A·B's.
  std::int64_t products() const { return m_state.products; }
  void reset() { *this = MaskedHandle(m_state.options, m_state.tuning); }

 private:
  friend struct Impl::HandleAccess;
  struct State {
    Options options;
    Tuning tuning;
    bool done = false;
    MaskKind kind = MaskKind::None;
    std::int64_t nnz = 0, products = 0;
    std::int64_t a_rows = -1, a_cols = -1, a_nnz = -1, b_cols = -1, b_nnz = -1, m_nnz = -1;
    const void* c_entries = nullptr;  // the columns the symbolic phase wrote
    // Complemented masks: the unmasked product's analysis and matrix, and for each entry of C its place in A·B.
    Handle<ExecSpace, Scalar, Ordinal, Offset> full;
    CsrMatrix<Scalar, Ordinal, Offset, memory_space> full_c;
    Kokkos::View<Offset*, memory_space> kept;
  };
  State m_state;
};

namespace Impl {

/// check_masked_operands' checks that need no pass over the arrays: the kind, the dimensions (DimensionMismatch), and
/// whether A, B and M have the shapes of CSR matrices with rows (false: a pass cannot rely on them, and
/// check_masked_operands names the problem).
template <class AMatrix, class BMatrix, class MMatrix>
bool masked_operand_shapes(const char* function, const AMatrix& a, const BMatrix& b, const Mask<MMatrix>& m) {
  KOKKOSSPGEMM_REQUIRE(m.kind == MaskKind::Plain || m.kind == MaskKind::Complement, InvalidInput, function,
                       "the mask's kind must be Plain or Complement");
  const bool shapes = check_operand_shapes(function, a, b);
  KOKKOSSPGEMM_REQUIRE(m.matrix.num_rows() == a.num_rows() && m.matrix.num_cols() == b.num_cols(), DimensionMismatch,
                       function,
                       "the mask is " << m.matrix.num_rows() << " x " << m.matrix.num_cols() << " but C = A*B is "
                                      << a.num_rows() << " x " << b.num_cols());
  return shapes && m.matrix.values().extent(0) == m.matrix.entries().extent(0) &&
         m.matrix.row_map().extent(0) == static_cast<std::size_t>(m.matrix.num_rows()) + 1;
}

template <class ExecSpace, class AMatrix, class BMatrix, class MMatrix>
void check_masked_operands(const ExecSpace& exec, const char* function, const AMatrix& a, const BMatrix& b,
                           const Mask<MMatrix>& m) {
  static_assert(std::is_same<typename MMatrix::ordinal_type, typename AMatrix::ordinal_type>::value,
                "KokkosSpGEMM: the mask must have A's ordinal type");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename MMatrix::memory_space>::accessible,
                "KokkosSpGEMM: the mask must be accessible from the execution space");
  masked_operand_shapes(function, a, b, m);  // the kind and the dimensions, before any pass
  // Where M is A's very arrays and as wide (a triangle count's L·L⟨L⟩), M's pass checks all that A's would: B's part
  // alone then (nothing where B is A too).
  bool a_is_m = false;
  if constexpr (std::is_same<typename MMatrix::row_map_type::non_const_value_type,
                             typename AMatrix::row_map_type::non_const_value_type>::value) {
    a_is_m = a.num_rows() == m.matrix.num_rows() && a.num_cols() == m.matrix.num_cols() &&
             a.row_map().data() == m.matrix.row_map().data() && a.row_map().extent(0) == m.matrix.row_map().extent(0) &&
             a.entries().data() == m.matrix.entries().data() && a.entries().extent(0) == m.matrix.entries().extent(0);
  }
  if (a_is_m) {
    check_operands_past_a(exec, function, a, b);
  } else {
    check_operands(exec, function, a, b);
  }
  check_csr_sorted_unique(exec, function, "the mask", m.matrix);
}

/// C's row map from row sizes (exclusive scan); returns nnz(C), refused past C's offset type.
template <class ExecSpace, class RowMap, class Sizes>
std::int64_t row_map_from_sizes(const ExecSpace& exec, const char* function, const RowMap& row_map,
                                const Sizes& sizes) {
  using Offset = typename RowMap::non_const_value_type;
  const std::int64_t rows = static_cast<std::int64_t>(sizes.extent(0));
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Masked::row_map", Range<ExecSpace>(exec, 0, rows + 1),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
        if (final) row_map(i) = static_cast<Offset>(sum);
        if (i < rows) sum += sizes(i);
      },
      total);
  KOKKOSSPGEMM_REQUIRE(total <= static_cast<std::int64_t>(std::numeric_limits<Offset>::max()), IndexOverflow, function,
                       "nnz(C) = " << total << " does not fit C's offset type: use a 64-bit Offset");
  return total;
}

/// C's entries from the mask entries reached (hit): row sizes, row map (C's, allocated), columns in M's order and,
/// when vals has M's entries, values; C gets entries and values of nnz(C).
template <class ExecSpace, class MRows, class MCols, class Flags, class Vals, class CMatrix>
void copy_reached(const ExecSpace& exec, const char* function, const MRows& m_rows, const MCols& m_cols,
                  const Flags& hit, const Vals& vals, CMatrix& c, Workspace<ExecSpace>* ws = nullptr) {
  using Ordinal = typename CMatrix::ordinal_type;
  const auto sizes =
      ws != nullptr
          ? ws->template take<std::int64_t>("KokkosSpGEMM::Masked::row_sizes", c.num_rows())
          : Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>(
                Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Masked::row_sizes"), c.num_rows());
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::row_sizes", Range<ExecSpace>(exec, 0, c.num_rows()), KOKKOS_LAMBDA(const Ordinal i) {
        std::int64_t n = 0;
        for (auto p = m_rows(i); p < m_rows(i + 1); ++p) n += hit(p);
        sizes(i) = n;
      });
  const std::int64_t nnz = row_map_from_sizes(exec, function, c.row_map(), sizes);
  c.set_entries(fresh_view<typename CMatrix::entries_type>(exec, "KokkosSpGEMM::C::entries", nnz));
  c.set_values(fresh_view<typename CMatrix::values_type>(exec, "KokkosSpGEMM::C::values", nnz));
  const bool with_values = vals.extent(0) > 0;
  const auto c_rows = c.row_map();
  const auto c_cols = c.entries();
  const auto c_vals = c.values();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::copy_out", Range<ExecSpace>(exec, 0, c.num_rows()), KOKKOS_LAMBDA(const Ordinal i) {
        auto out = c_rows(i);
        for (auto p = m_rows(i); p < m_rows(i + 1); ++p) {
          if (hit(p)) {
            c_cols(out) = m_cols(p);
            if (with_values) c_vals(out) = vals(p);
            ++out;
          }
        }
      });
}

/// Plain mask: C's structure is the mask's entries that some product reaches.
template <class ExecSpace, class AMatrix, class BMatrix, class MMatrix, class CMatrix>
std::int64_t plain_mask_structure(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const MMatrix& m,
                                  CMatrix& c, bool deterministic) {
  Kokkos::View<unsigned char*, typename ExecSpace::memory_space> hit(
      Kokkos::view_alloc(exec, "KokkosSpGEMM::Masked::hit"), m.nnz());
  const auto m_rows = m.row_map();
  const auto m_cols = m.entries();
  const std::int64_t products = walk_masked_products(exec, "KokkosSpGEMM::Masked::mark", a, b, m_rows, m_cols,
                                                     MarkAction<decltype(hit)>{hit}, deterministic);
  copy_reached(exec, "masked_spgemm_symbolic", m_rows, m_cols, hit,
               Kokkos::View<typename CMatrix::scalar_type*, typename ExecSpace::memory_space>(), c);
  return products;
}

/// The entries of P (A·B, sorted rows) outside M's rows (sorted), rows a thread (CPUs): walk(i, f) calls f(e, n) for
/// the n-th entry e of P's row i that M's row lacks and returns how many there were. With `bits` (a bit a column of
/// P a thread, zero between rows) M's row is set in the thread's bits and each entry of P tests its bit; without, the
/// two rows are merged, whose branches mispredict about once an entry (the merge cost 7 ns an entry on ca-CondMat's
/// triangles, as much as the product).
template <class PRows, class PCols, class MRows, class MCols>
struct RowsOutsideMask {
  PRows p_rows;
  PCols p_cols;
  MRows m_rows;
  MCols m_cols;
  template <class F>
  KOKKOS_INLINE_FUNCTION std::int64_t walk(const std::int64_t i, std::uint64_t* bits, const F& f) const {
    // Raw pointers: the views' members would be reloaded after each store f makes.
    const auto* const pc = p_cols.data();
    const auto* const mc = m_cols.data();
    std::int64_t q = m_rows(i);
    const std::int64_t q_end = m_rows(i + 1), e_end = p_rows(i + 1);
    std::int64_t n = 0;
    if (bits) {
      for (std::int64_t x = q; x < q_end; ++x) bits[mc[x] >> 6] |= std::uint64_t(1) << (mc[x] & 63);
      for (std::int64_t e = p_rows(i); e < e_end; ++e) {
        const auto col = pc[e];
        if ((bits[col >> 6] >> (col & 63)) & 1) continue;
        f(e, n++);
      }
      for (std::int64_t x = q; x < q_end; ++x) bits[mc[x] >> 6] = 0;
      return n;
    }
    for (std::int64_t e = p_rows(i); e < e_end; ++e) {
      const auto col = pc[e];
      while (q < q_end && mc[q] < col) ++q;
      if (q < q_end && mc[q] == col) continue;
      f(e, n++);
    }
    return n;
  }
};

/// Flags the entries of P outside M's rows, a vector lane an entry searching its column in M's row (R-MAT's long
/// rows of P stay balanced): place(e) = 1 when kept, 0 when M has the column. GPUs.
template <class ExecSpace, class PRows, class PCols, class MRows, class MCols, class Places>
struct FlagOutsideMask {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  GraphRows<ExecSpace> shape;
  PRows p_rows;
  PCols p_cols;
  MRows m_rows;
  MCols m_cols;
  Places place;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    shape.for_rows(m, [&](const std::int64_t i) {
      const std::int64_t begin = p_rows(i), end = p_rows(i + 1);
      const std::int64_t m_begin = m_rows(i), m_end = m_rows(i + 1);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, end - begin), [&](const std::int64_t x) {
        place(begin + x) = find_sorted(m_cols, m_begin, m_end, p_cols(begin + x)) < 0 ? 1 : 0;
      });
    });
  }
};

/// C's entries, values and kept places of nnz(C) each (kept only when asked for).
template <class ExecSpace, class CMatrix, class Kept>
void allocate_outside(const ExecSpace& exec, CMatrix& c, Kept* kept, std::int64_t nnz) {
  c.set_entries(fresh_view<typename CMatrix::entries_type>(exec, "KokkosSpGEMM::C::entries", nnz));
  c.set_values(fresh_view<typename CMatrix::values_type>(exec, "KokkosSpGEMM::C::values", nnz));
  if (kept) *kept = Kept(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Masked::kept"), nnz);
}

/// CPUs: per row a count, a scan of the counts into C's row map, per row a copy (rows a thread, chunks of 64, each
/// thread with its bits while the bits of all threads take at most 64 MiB).
template <class ExecSpace, class PMatrix, class MMatrix, class CMatrix, class Kept>
void outside_mask_by_rows(const ExecSpace& exec, const PMatrix& pm, const MMatrix& m, CMatrix& c, bool with_values,
                          Kept* kept) {
  using Offset = typename CMatrix::offset_type;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const std::int64_t rows = pm.num_rows();
  const auto p_rows = pm.row_map();
  const auto p_cols = pm.entries();
  const auto p_vals = pm.values();
  const RowsOutsideMask<typename PMatrix::row_map_type, typename PMatrix::entries_type, typename MMatrix::row_map_type,
                        typename MMatrix::entries_type>
      outside{p_rows, p_cols, m.row_map(), m.entries()};
  const Kokkos::Experimental::UniqueToken<ExecSpace> tokens(exec);
  const std::int64_t words = (static_cast<std::int64_t>(pm.num_cols()) + 63) / 64;
  const std::size_t bits_bytes = static_cast<std::size_t>(tokens.size()) * static_cast<std::size_t>(words) * 8;
  const bool with_bits = bits_bytes <= (std::size_t(64) << 20);
  // The row sizes and column bits come from the library's cache of temporaries.
  Workspace<ExecSpace> workspace(
      exec, 512 + static_cast<std::size_t>(rows) * sizeof(std::int64_t) + (with_bits ? bits_bytes : 0));
  const auto bits = workspace.template take_zeroed<std::uint64_t>(
      "KokkosSpGEMM::Masked::bits", with_bits ? static_cast<std::size_t>(tokens.size() * words) : 0);
  const auto sizes = workspace.template take<std::int64_t>("KokkosSpGEMM::Masked::row_sizes", rows);
  constexpr std::int64_t chunk = 64;
  const Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(exec, (rows + chunk - 1) / chunk, 1);
  // Each work item's rows with its thread's bits (none without bits).
  const auto for_rows = [=](const Member& team, const auto& f) {
    const int token = tokens.acquire();
    std::uint64_t* const own = with_bits ? bits.data() + token * words : nullptr;
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * chunk;
    const std::int64_t last = rows - first < chunk ? rows : first + chunk;
    for (std::int64_t i = first; i < last; ++i) f(i, own);
    tokens.release(token);
  };
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::outside_sizes", policy, KOKKOS_LAMBDA(const Member& team) {
        for_rows(team, [&](const std::int64_t i, std::uint64_t* own) {
          sizes(i) = outside.walk(i, own, [](std::int64_t, std::int64_t) {});
        });
      });
  allocate_outside(exec, c, kept, row_map_from_sizes(exec, "masked_spgemm", c.row_map(), sizes));
  const auto c_rows = c.row_map();
  const auto c_cols = c.entries();
  const auto c_vals = c.values();
  const bool with_kept = kept != nullptr;
  const Kept k = kept ? *kept : Kept();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::copy_outside", policy, KOKKOS_LAMBDA(const Member& team) {
        for_rows(team, [&](const std::int64_t i, std::uint64_t* own) {
          const std::int64_t out = c_rows(i), p_begin = p_rows(i), p_len = p_rows(i + 1) - p_begin;
          auto* const cc = c_cols.data() + out;
          auto* const cv = c_vals.data() + out;
          Offset* const kk = with_kept ? k.data() + out : nullptr;
          const auto* const pc = p_cols.data() + p_begin;
          const auto* const pv = p_vals.data() + p_begin;
          if (static_cast<std::int64_t>(c_rows(i + 1)) - out == p_len) {  // nothing dropped: a straight copy
            for (std::int64_t x = 0; x < p_len; ++x) cc[x] = pc[x];
            if (with_values) {
              for (std::int64_t x = 0; x < p_len; ++x) cv[x] = pv[x];
            }
            if (with_kept) {
              for (std::int64_t x = 0; x < p_len; ++x) kk[x] = static_cast<Offset>(p_begin + x);
            }
            return;
          }
          outside.walk(i, own, [&](const std::int64_t e, const std::int64_t n) {
            cc[n] = pc[e - p_begin];
            if (with_values) cv[n] = pv[e - p_begin];
            if (with_kept) kk[n] = static_cast<Offset>(e);
          });
        });
      });
}

/// GPUs: a flag an entry of P, their scan (each kept entry's place in C), C's row map at P's row starts, a copy an
/// entry.
template <class ExecSpace, class PMatrix, class MMatrix, class CMatrix, class Kept>
void outside_mask_by_entries(const ExecSpace& exec, const PMatrix& pm, const MMatrix& m, CMatrix& c, bool with_values,
                             Kept* kept) {
  using Offset = typename CMatrix::offset_type;
  const std::int64_t rows = pm.num_rows();
  const std::int64_t p_nnz = static_cast<std::int64_t>(pm.nnz());
  const auto p_rows = pm.row_map();
  const auto p_cols = pm.entries();
  const auto p_vals = pm.values();
  // The flags come from the library's cache of temporaries.
  Workspace<ExecSpace> workspace(exec, 512 + (static_cast<std::size_t>(p_nnz) + 1) * sizeof(Offset));
  const auto place =
      workspace.template take<Offset>("KokkosSpGEMM::Masked::place", static_cast<std::size_t>(p_nnz) + 1);
  const GraphRows<ExecSpace> shape(rows, p_nnz);
  using Flag = FlagOutsideMask<ExecSpace, decltype(p_rows), decltype(p_cols), typename MMatrix::row_map_type,
                               typename MMatrix::entries_type, decltype(place)>;
  Kokkos::parallel_for("KokkosSpGEMM::Masked::outside_mask", shape.policy(exec),
                       Flag{shape, p_rows, p_cols, m.row_map(), m.entries(), place});
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Masked::places", Range<ExecSpace>(exec, 0, p_nnz + 1),
      KOKKOS_LAMBDA(const std::int64_t e, std::int64_t& sum, const bool final) {
        const std::int64_t flag = e < p_nnz ? static_cast<std::int64_t>(place(e)) : 0;
        if (final) place(e) = static_cast<Offset>(sum);
        sum += flag;
      },
      total);
  allocate_outside(exec, c, kept, total);
  const auto c_rows = c.row_map();
  const auto c_cols = c.entries();
  const auto c_vals = c.values();
  const bool with_kept = kept != nullptr;
  const Kept k = kept ? *kept : Kept();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::row_map", Range<ExecSpace>(exec, 0, rows + 1),
      KOKKOS_LAMBDA(const std::int64_t i) { c_rows(i) = place(p_rows(i)); });
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::copy_outside", Range<ExecSpace>(exec, 0, p_nnz), KOKKOS_LAMBDA(const std::int64_t e) {
        const Offset at = place(e);
        if (place(e + 1) == at) return;
        c_cols(at) = p_cols(e);
        if (with_values) c_vals(at) = p_vals(e);
        if (with_kept) k(at) = static_cast<Offset>(e);
      });
}

/// C = the entries of P (A·B, sorted rows, C's offset type) outside M's rows, with P's values when with_values, and
/// kept (each entry's place in P) when kept is given; C gets fresh arrays. One wait, for nnz(C).
template <class ExecSpace, class PMatrix, class MMatrix, class CMatrix, class Kept>
void entries_outside_mask(const ExecSpace& exec, const PMatrix& pm, const MMatrix& m, CMatrix& c, bool with_values,
                          Kept* kept) {
  c = CMatrix();
  c.set_dimensions(pm.num_rows(), pm.num_cols());
  c.set_row_map(
      typename CMatrix::row_map_type(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::row_map"),
                                     static_cast<std::size_t>(pm.num_rows()) + 1));
  if constexpr (BackendTraits<ExecSpace>::is_gpu) {
    outside_mask_by_entries(exec, pm, m, c, with_values, kept);
  } else {
    outside_mask_by_rows(exec, pm, m, c, with_values, kept);
  }
}

/// Complemented mask, symbolic: the unmasked product's analysis (kept for the numeric calls) and its columns (an
/// any-pair call: no value loaded), then C's structure and each entry's place in A·B.
template <class ExecSpace, class State, class AMatrix, class BMatrix, class MMatrix, class CMatrix>
void complement_mask_structure(const ExecSpace& exec, State& st, const AMatrix& a, const BMatrix& b, const MMatrix& m,
                               CMatrix& c) {
  using Scalar = typename CMatrix::scalar_type;
  Options full_options = st.options;
  full_options.sorted = true;              // C's rows come out in A·B's order
  full_options.synchronous_checks = true;  // a numeric call's errors are its own (the masked handle has no verify)
  st.full = decltype(st.full)(full_options, st.tuning);
  spgemm_symbolic(exec, st.full, a, b, st.full_c);
  spgemm_numeric(exec, st.full, a, b, st.full_c, Semirings::AnyPair<Scalar>());
  entries_outside_mask(exec, st.full_c, m, c, false, &st.kept);
}

/// Complemented mask, numeric: the unmasked product's numeric call on its analysis (its reuse), then C's values
/// gathered from their places in A·B. (Takes the state's parts, not the state: nvcc refuses a kernel under a template
/// argument that is a private type.)
template <class Semiring, class ExecSpace, class FullHandle, class FullMatrix, class Kept, class AMatrix, class BMatrix,
          class CMatrix>
void complement_mask_values(const ExecSpace& exec, FullHandle& full, FullMatrix& full_c, const Kept& kept,
                            const AMatrix& a, const BMatrix& b, CMatrix& c) {
  spgemm_numeric(exec, full, a, b, full_c, Semiring());
  const auto from = full_c.values();
  const auto to = c.values();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::gather_kept", Range<ExecSpace>(exec, 0, static_cast<std::int64_t>(kept.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t p) { to(p) = from(kept(p)); });
}

/// The numeric phase on C's known structure: values at the identity, then every product added at its column's
/// place in C's row (dropped where C's row lacks it).
template <class Semiring, class ExecSpace, class AMatrix, class BMatrix, class CMatrix>
std::int64_t masked_numeric_values(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, CMatrix& c,
                                   bool deterministic) {
  const auto cs = semiring_operand<Semiring>(c);
  Kokkos::deep_copy(exec, cs.values(), typename decltype(cs)::scalar_type());
  return walk_masked_products(exec, "KokkosSpGEMM::Masked::numeric", semiring_operand<Semiring>(a),
                              semiring_operand<Semiring>(b), cs.row_map(), cs.entries(),
                              AddAction<typename decltype(cs)::values_type>{cs.values()}, deterministic);
}

/// Values of C gathered at the mask's positions with a flag for the positions reached (the one-pass plain mask).
template <class Vals, class Flags>
struct GatherAction {
  static constexpr bool uses_position = true;
  Vals vals;
  Flags hit;
  template <bool Atomic, class Ops>
  KOKKOS_INLINE_FUNCTION void operator()(const Ops& o, std::int64_t p, std::int64_t e, std::int64_t jb) const {
    accumulate<Atomic>(&vals(p), o.a_vals(e) * o.b_vals(jb));
    hit(p) = 1;
  }
};

/// One-shot C⟨M⟩ = A·B for a plain mask in one walk of the products: values at the identity a mask entry, every
/// product added at its column's place in M's row, then the entries reached copied out in M's (sorted) order.
/// C gets fresh arrays.
template <class Semiring, class ExecSpace, class AMatrix, class BMatrix, class MMatrix, class CMatrix>
void plain_mask_one_pass(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const MMatrix& m, CMatrix& c,
                         bool deterministic) {
  using Scalar = typename CMatrix::scalar_type;
  using Ordinal = typename CMatrix::ordinal_type;
  // The temporaries in one block from the library's cache: each on its own cost a device allocation and a free
  // that waits for the device, more than the walk on small graphs.
  const std::size_t grains = 5 * sizeof(WorkspaceGrain);
  Workspace<ExecSpace> ws(exec, grains + static_cast<std::size_t>(m.nnz()) * (sizeof(Scalar) + 1) +
                                    static_cast<std::size_t>(a.nnz()) * sizeof(Ordinal) +
                                    static_cast<std::size_t>(a.num_rows()) * sizeof(std::int64_t));
  const auto vals = ws.template take<Scalar>("KokkosSpGEMM::Masked::gathered", m.nnz());
  const auto hit = ws.template take_zeroed<unsigned char>("KokkosSpGEMM::Masked::hit", m.nnz());
  const auto m_rows = m.row_map();
  const auto m_cols = m.entries();
  const auto w = semiring_operand<Semiring>(vals);
  Kokkos::deep_copy(exec, w, typename decltype(w)::value_type());
  walk_masked_products(exec, "KokkosSpGEMM::Masked::one_pass", semiring_operand<Semiring>(a),
                       semiring_operand<Semiring>(b), m_rows, m_cols, GatherAction<decltype(w), decltype(hit)>{w, hit},
                       deterministic, &ws, false);
  c = CMatrix();
  c.set_dimensions(a.num_rows(), b.num_cols());
  c.set_row_map(
      typename CMatrix::row_map_type(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::row_map"),
                                     static_cast<std::size_t>(a.num_rows()) + 1));
  copy_reached(exec, "masked_spgemm", m_rows, m_cols, hit, vals, c, &ws);
}

}  // namespace Impl

/// Symbolic phase of C⟨M⟩ = A·B (or C⟨¬M⟩): gives C its row map and column indices (sorted rows), which is the
/// pattern-only masked product; spgemm_masked_numeric then fills the values. Throws DimensionMismatch (A·B's shape
/// and the mask's differ, or A's columns and B's rows), InvalidInput (malformed CSR, mask rows unsorted or
/// repeated), IndexOverflow.
template <class ExecSpace, class S, class O, class F, class MMatrix, class AMatrix, class BMatrix, class CMatrix>
void masked_spgemm_symbolic(const ExecSpace& exec, MaskedHandle<ExecSpace, S, O, F>& handle, const Mask<MMatrix>& m,
                            const AMatrix& a, const BMatrix& b, CMatrix& c) {
  Impl::check_types<ExecSpace, Handle<ExecSpace, S, O, F>, AMatrix, BMatrix, CMatrix>();
  Impl::ProfilingRegion region("KokkosSpGEMM::masked_spgemm_symbolic");
  Impl::check_masked_operands(exec, "masked_spgemm_symbolic", a, b, m);
  handle.reset();
  auto& st = Impl::state(handle);
  Impl::translate_allocation_failure("masked_spgemm_symbolic", [&] {
    if (m.kind == MaskKind::Plain) {
      c = CMatrix();
      c.set_dimensions(a.num_rows(), b.num_cols());
      c.set_row_map(typename CMatrix::row_map_type(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::row_map"),
          static_cast<std::size_t>(a.num_rows()) + 1));
      st.products = Impl::plain_mask_structure(exec, a, b, m.matrix, c, st.options.deterministic);
    } else {
      Impl::complement_mask_structure(exec, st, a, b, m.matrix, c);
      st.products = st.full.products();
    }
    if (c.values().extent(0) != c.entries().extent(0)) {
      c.set_values(typename CMatrix::values_type(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::values"), c.entries().extent(0)));
    }
  });
  st.kind = m.kind;
  st.nnz = static_cast<std::int64_t>(c.entries().extent(0));
  st.a_rows = a.num_rows();
  st.a_cols = a.num_cols();
  st.a_nnz = static_cast<std::int64_t>(a.nnz());
  st.b_cols = b.num_cols();
  st.b_nnz = static_cast<std::int64_t>(b.nnz());
  st.m_nnz = static_cast<std::int64_t>(m.matrix.nnz());
  st.c_entries = c.entries().data();
  st.done = true;
}

/// Numeric phase of C⟨M⟩ = A ⊕.⊗ B (or C⟨¬M⟩) on the structure the symbolic phase gave C: A and B may have new
/// values (same structures, same mask). Throws HandleMismatch (no analysis, other shapes or entry counts, or a C
/// that is not the one the symbolic phase filled).
template <class ExecSpace, class S, class O, class F, class MMatrix, class AMatrix, class BMatrix, class CMatrix,
          class Semiring = Semirings::PlusTimes<S>>
void masked_spgemm_numeric(const ExecSpace& exec, MaskedHandle<ExecSpace, S, O, F>& handle, const Mask<MMatrix>& m,
                           const AMatrix& a, const BMatrix& b, CMatrix& c, const Semiring& = Semiring()) {
  Impl::check_types<ExecSpace, Handle<ExecSpace, S, O, F>, AMatrix, BMatrix, CMatrix>();
  static_assert(std::is_same<typename Semiring::value_type, typename CMatrix::scalar_type>::value,
                "KokkosSpGEMM: the semiring's value_type must be C's scalar type");
  Impl::ProfilingRegion region("KokkosSpGEMM::masked_spgemm_numeric");
  auto& st = Impl::state(handle);
  KOKKOSSPGEMM_REQUIRE(st.done, HandleMismatch, "masked_spgemm_numeric",
                       "the handle holds no analysis: call masked_spgemm_symbolic first");
  KOKKOSSPGEMM_REQUIRE(st.kind == m.kind && st.a_rows == a.num_rows() && st.a_cols == a.num_cols() &&
                           st.a_nnz == static_cast<std::int64_t>(a.nnz()) && st.b_cols == b.num_cols() &&
                           st.b_nnz == static_cast<std::int64_t>(b.nnz()) &&
                           st.m_nnz == static_cast<std::int64_t>(m.matrix.nnz()),
                       HandleMismatch, "masked_spgemm_numeric",
                       "A, B or the mask differ in shape, entry count or kind from the analysed ones: run "
                       "masked_spgemm_symbolic again");
  KOKKOSSPGEMM_REQUIRE(st.c_entries == c.entries().data() && c.entries().extent(0) == static_cast<std::size_t>(st.nnz),
                       HandleMismatch, "masked_spgemm_numeric",
                       "C is not the matrix masked_spgemm_symbolic filled (its columns are the analysis)");
  if (c.values().extent(0) != static_cast<std::size_t>(st.nnz)) {
    c.set_values(typename CMatrix::values_type(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::values"), st.nnz));
  }
  if (m.kind == MaskKind::Complement) {  // the unmasked product's numeric call checks A and B
    Impl::translate_allocation_failure("masked_spgemm_numeric", [&] {
      Impl::complement_mask_values<Semiring>(exec, st.full, st.full_c, st.kept, a, b, c);
    });
    return;
  }
  Impl::check_operands(exec, "masked_spgemm_numeric", a, b);
  Impl::translate_allocation_failure("masked_spgemm_numeric", [&] {
    st.products = Impl::masked_numeric_values<Semiring>(exec, a, b, c, st.options.deterministic);
  });
}

/// Both phases of a masked product on a handle.
template <class ExecSpace, class S, class O, class F, class MMatrix, class AMatrix, class BMatrix, class CMatrix,
          class Semiring = Semirings::PlusTimes<S>>
void masked_spgemm(const ExecSpace& exec, MaskedHandle<ExecSpace, S, O, F>& handle, const Mask<MMatrix>& m,
                   const AMatrix& a, const BMatrix& b, CMatrix& c, const Semiring& semiring = Semiring()) {
  masked_spgemm_symbolic(exec, handle, m, a, b, c);
  masked_spgemm_numeric(exec, handle, m, a, b, c, semiring);
}

/// One-shot C⟨M⟩ = A ⊕.⊗ B (mask(M)) or C⟨¬M⟩ = A ⊕.⊗ B (complement(M)); rows of C sorted.
template <class COffset = void, class ExecSpace, class MMatrix, class AMatrix, class BMatrix,
          class Semiring = Semirings::PlusTimes<typename AMatrix::scalar_type>>
auto masked_spgemm(const ExecSpace& exec, const Mask<MMatrix>& m, const AMatrix& a, const BMatrix& b,
                   const Semiring& semiring = Semiring(), const Options& options = Options(),
                   const Tuning& tuning = Tuning()) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  using Scalar = typename AMatrix::scalar_type;
  using Ordinal = typename AMatrix::ordinal_type;
  using CMatrix = CsrMatrix<Scalar, Ordinal, Offset, typename ExecSpace::memory_space>;
  CMatrix c;
  static_assert(std::is_same<typename Semiring::value_type, Scalar>::value,
                "KokkosSpGEMM: the semiring's value_type must be the matrices' scalar type");
  Impl::check_types<ExecSpace, Handle<ExecSpace, Scalar, Ordinal, Offset>, AMatrix, BMatrix, CMatrix>();
  Impl::ProfilingRegion region("KokkosSpGEMM::masked_spgemm");
  if (m.kind == MaskKind::Complement) {
    Options sorted = options;
    sorted.sorted = true;
    Handle<ExecSpace, Scalar, Ordinal, Offset> full_handle(sorted, tuning);
    auto& st = Impl::state(full_handle);
    st.single_use = true;
    // Where the product takes the CPU dense rows, M's rows go into them: they leave its columns out of C as they
    // count and write (no A·B formed, no pass over it). No pass checks the operands before: the count checks A and
    // M as it reads them, as the unmasked product's count checks A (docs/performance.md, v63); a flaw found there is
    // named by the full check. Where the rows are binned (GPUs; CPUs past the dense rows' width) and take the hash
    // family, each symbolic row counts M's columns in its table (C's row is A·B's less them) and each numeric row
    // erases them before it writes: no A·B either, after one pass that checks the operands (on GPUs, the deferred
    // check of A and B with M's added).
    if constexpr (std::is_same<typename MMatrix::row_map_type::non_const_value_type, Offset>::value &&
                  std::is_same<typename MMatrix::memory_space, typename ExecSpace::memory_space>::value) {
      const bool dense = Impl::dense_accumulator_for<ExecSpace>(st.settings, b.num_cols());
      const bool binned = (st.settings.algorithm == Algorithm::Auto || st.settings.algorithm == Algorithm::Hash) &&
                          !st.settings.deterministic;
      if ((dense || binned) && st.settings.memory_budget_bytes == 0 &&
          Impl::masked_operand_shapes("masked_spgemm", a, b, m)) {
        st.complement_rows = m.matrix.row_map();
        st.complement_cols = m.matrix.entries();
        if (dense || BackendTraits<ExecSpace>::is_gpu) {
          // GPUs' binned rows: M's check joins A's and B's on the device, its verdict read with the bins' counts (a
          // pass and a wait less); the full check runs where that found a flaw, and names it.
          if (!dense) st.check_complement = [&] { Impl::check_masked_operands(exec, "masked_spgemm", a, b, m); };
          try {
            Impl::symbolic_phase(exec, full_handle, a, b, c, false);
          } catch (const InvalidInput&) {
            Impl::check_masked_operands(exec, "masked_spgemm", a, b, m);
            throw;
          }
        } else {
          Impl::check_masked_operands(exec, "masked_spgemm", a, b, m);
          Impl::symbolic_phase(exec, full_handle, a, b, c, true);
        }
        Impl::translate_allocation_failure(
            "masked_spgemm", [&] { Impl::semiring_numeric_phase<Semiring>(exec, full_handle, a, b, c, true); });
        return c;
      }
    }
    Impl::check_masked_operands(exec, "masked_spgemm", a, b, m);
    // Elsewhere the unmasked one-shot on operands just checked (rows sorted), then its entries outside M's rows.
    CMatrix full;
    Impl::symbolic_phase(exec, full_handle, a, b, full, true);
    using Kept = Kokkos::View<Offset*, typename ExecSpace::memory_space>;
    Impl::translate_allocation_failure("masked_spgemm", [&] {
      // A·B's columns and values are temporaries: from the library's cache (no device allocation, no fresh pages).
      const std::size_t full_nnz = static_cast<std::size_t>(full_handle.nnz());
      Impl::Workspace<ExecSpace> workspace(exec, 512 + full_nnz * (sizeof(Ordinal) + sizeof(Scalar)));
      full.set_entries(workspace.template take<Ordinal>("KokkosSpGEMM::Masked::full_entries", full_nnz));
      full.set_values(workspace.template take<Scalar>("KokkosSpGEMM::Masked::full_values", full_nnz));
      Impl::semiring_numeric_phase<Semiring>(exec, full_handle, a, b, full, true);
      Impl::entries_outside_mask(exec, full, m.matrix, c, true, static_cast<Kept*>(nullptr));
    });
    return c;
  }
  // A plain mask in one pass: values gathered at the mask's positions, then the entries reached copied out.
  Impl::check_masked_operands(exec, "masked_spgemm", a, b, m);
  Impl::translate_allocation_failure(
      "masked_spgemm", [&] { Impl::plain_mask_one_pass<Semiring>(exec, a, b, m.matrix, c, options.deterministic); });
  return c;
}

}  // namespace KokkosSpGEMM

#endif
