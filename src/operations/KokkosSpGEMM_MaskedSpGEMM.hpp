// Masked products C⟨M⟩ = A ⊕.⊗ B (only entries in M's structure) and C⟨¬M⟩ (only entries outside it), over any
// semiring, with symbolic/numeric reuse. Data flow:
//   plain mask:      mark the mask entries some product reaches -> row sizes -> C's row map and columns (M's, kept
//                    where marked)
//   complemented:    A·B's pattern (the pipeline's any-pair product) minus M's row -> C's row map and columns
//   numeric (both):  C's values at the identity -> every product added at its column's place in C's row
// (impl/accumulate/KokkosSpGEMM_MaskedRows.hpp). A product outside the mask is dropped when it is formed, before
// any accumulation; a row of C never holds more than its mask row.
#ifndef KOKKOSSPGEMM_MASKEDSPGEMM_HPP
#define KOKKOSSPGEMM_MASKEDSPGEMM_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_Semirings.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <impl/accumulate/KokkosSpGEMM_MaskedRows.hpp>
#include <impl/accumulate/KokkosSpGEMM_SemiringValue.hpp>
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
/// fill with values of any semiring. Scalar, Ordinal and Offset are C's.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class MaskedHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;

  explicit MaskedHandle(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_state{options, tuning} {}

  const Options& options() const { return m_state.options; }
  bool has_analysis() const { return m_state.done; }
  MaskKind kind() const { return m_state.kind; }
  /// nnz(C), known after the symbolic phase.
  std::int64_t nnz() const { return m_state.nnz; }
  /// Products a_ik b_kj that land in C (the masked product's work).
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
  };
  State m_state;
};

namespace Impl {

/// Mask rows must be sorted without repeats (each product searches its row).
template <class ExecSpace, class MMatrix>
void check_mask_rows(const ExecSpace& exec, const char* function, const char* name, const MMatrix& m) {
  const auto row_map = m.row_map();
  const auto cols = m.entries();
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad = none;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::Masked::mask_rows_sorted", Range<ExecSpace>(exec, 0, m.num_rows()),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& first_bad) {
        for (auto e = row_map(i) + 1; e < row_map(i + 1); ++e) {
          if (cols(e) <= cols(e - 1)) {
            if (i < first_bad) first_bad = i;
            return;
          }
        }
      },
      Kokkos::Min<std::int64_t>(bad));
  KOKKOSSPGEMM_REQUIRE(bad == none, InvalidInput, function,
                       "row " << bad << " of " << name
                              << " is not sorted by column or repeats a column: it needs sorted rows without repeats "
                                 "(KokkosSpGEMM::sort_rows sorts them)");
}

template <class ExecSpace, class AMatrix, class BMatrix, class MMatrix>
void check_masked_operands(const ExecSpace& exec, const char* function, const AMatrix& a, const BMatrix& b,
                           const Mask<MMatrix>& m) {
  static_assert(std::is_same<typename MMatrix::ordinal_type, typename AMatrix::ordinal_type>::value,
                "KokkosSpGEMM: the mask must have A's ordinal type");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename MMatrix::memory_space>::accessible,
                "KokkosSpGEMM: the mask must be accessible from the execution space");
  KOKKOSSPGEMM_REQUIRE(m.kind == MaskKind::Plain || m.kind == MaskKind::Complement, InvalidInput, function,
                       "the mask's kind must be Plain or Complement");
  check_operands(exec, function, a, b);
  KOKKOSSPGEMM_REQUIRE(m.matrix.num_rows() == a.num_rows() && m.matrix.num_cols() == b.num_cols(), DimensionMismatch,
                       function,
                       "the mask is " << m.matrix.num_rows() << " x " << m.matrix.num_cols() << " but C = A*B is "
                                      << a.num_rows() << " x " << b.num_cols());
  check_csr(exec, function, "the mask", m.matrix);
  check_mask_rows(exec, function, "the mask", m.matrix);
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
                  const Flags& hit, const Vals& vals, CMatrix& c) {
  using Ordinal = typename CMatrix::ordinal_type;
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> sizes(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Masked::row_sizes"), c.num_rows());
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::row_sizes", Range<ExecSpace>(exec, 0, c.num_rows()), KOKKOS_LAMBDA(const Ordinal i) {
        std::int64_t n = 0;
        for (auto p = m_rows(i); p < m_rows(i + 1); ++p) n += hit(p);
        sizes(i) = n;
      });
  const std::int64_t nnz = row_map_from_sizes(exec, function, c.row_map(), sizes);
  c.set_entries(typename CMatrix::entries_type(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::entries"), nnz));
  c.set_values(typename CMatrix::values_type(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::values"), nnz));
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

/// Walks row i of a pattern P against row i of the mask M (both sorted): keep(col, n) for the n-th column of P's row
/// outside M's; returns how many there were.
template <class PRows, class PCols, class MRows, class MCols>
struct RowDifference {
  PRows pr;
  PCols pc;
  MRows mr;
  MCols mc;
  template <class Ordinal, class Keep>
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(Ordinal i, const Keep& keep) const {
    auto q = mr(i);
    const auto q_end = mr(i + 1);
    std::int64_t n = 0;
    for (auto e = pr(i); e < pr(i + 1); ++e) {
      const auto col = pc(e);
      while (q < q_end && mc(q) < col) ++q;
      if (q < q_end && mc(q) == col) continue;
      keep(col, n++);
    }
    return n;
  }
};

/// Complemented mask: C's structure is A·B's pattern less the mask's row (both sorted: a merge per row).
template <class ExecSpace, class AMatrix, class BMatrix, class MMatrix, class CMatrix>
void complement_mask_structure(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const MMatrix& m, CMatrix& c,
                               const Options& options, const Tuning& tuning) {
  using Ordinal = typename CMatrix::ordinal_type;
  using Offset = typename CMatrix::offset_type;
  using Pattern = CsrMatrix<bool, Ordinal, Offset, typename ExecSpace::memory_space>;
  // The pattern of A·B: any-pair on boolean stand-ins for A's and B's values (never read: pair ignores them).
  Kokkos::View<bool*, typename ExecSpace::memory_space> a_flags("KokkosSpGEMM::Masked::a_flags", a.nnz());
  Kokkos::View<bool*, typename ExecSpace::memory_space> b_flags("KokkosSpGEMM::Masked::b_flags", b.nnz());
  const CsrMatrix<bool, Ordinal, typename AMatrix::offset_type, typename ExecSpace::memory_space> ap(
      a.num_rows(), a.num_cols(), a.row_map(), a.entries(), a_flags);
  const CsrMatrix<bool, Ordinal, typename BMatrix::offset_type, typename ExecSpace::memory_space> bp(
      b.num_rows(), b.num_cols(), b.row_map(), b.entries(), b_flags);
  Options pattern_options = options;
  pattern_options.sorted = true;
  const Pattern p = spgemm<Offset>(exec, ap, bp, Semirings::AnyPair<bool>(), pattern_options, tuning);
  const auto p_rows = p.row_map();
  const auto p_cols = p.entries();
  const auto m_rows = m.row_map();
  const auto m_cols = m.entries();
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> sizes(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Masked::row_sizes"), c.num_rows());
  const RowDifference<decltype(p_rows), decltype(p_cols), decltype(m_rows), decltype(m_cols)> diff{p_rows, p_cols,
                                                                                                   m_rows, m_cols};
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::complement_sizes", Range<ExecSpace>(exec, 0, c.num_rows()),
      KOKKOS_LAMBDA(const Ordinal i) { sizes(i) = diff(i, [](Ordinal, std::int64_t) {}); });
  const std::int64_t nnz = row_map_from_sizes(exec, "masked_spgemm_symbolic", c.row_map(), sizes);
  c.set_entries(typename CMatrix::entries_type(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::entries"), nnz));
  const auto c_rows = c.row_map();
  const auto c_cols = c.entries();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Masked::complement_columns", Range<ExecSpace>(exec, 0, c.num_rows()),
      KOKKOS_LAMBDA(const Ordinal i) {
        const auto out = c_rows(i);
        diff(i, [&](Ordinal col, std::int64_t n) { c_cols(out + n) = col; });
      });
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
  using Space = typename ExecSpace::memory_space;
  Kokkos::View<Scalar*, Space> vals(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Masked::gathered"), m.nnz());
  Kokkos::View<unsigned char*, Space> hit(Kokkos::view_alloc(exec, "KokkosSpGEMM::Masked::hit"), m.nnz());
  const auto m_rows = m.row_map();
  const auto m_cols = m.entries();
  const auto w = semiring_operand<Semiring>(vals);
  Kokkos::deep_copy(exec, w, typename decltype(w)::value_type());
  walk_masked_products(exec, "KokkosSpGEMM::Masked::one_pass", semiring_operand<Semiring>(a),
                       semiring_operand<Semiring>(b), m_rows, m_cols, GatherAction<decltype(w), decltype(hit)>{w, hit},
                       deterministic);
  c = CMatrix();
  c.set_dimensions(a.num_rows(), b.num_cols());
  c.set_row_map(
      typename CMatrix::row_map_type(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::row_map"),
                                     static_cast<std::size_t>(a.num_rows()) + 1));
  copy_reached(exec, "masked_spgemm", m_rows, m_cols, hit, vals, c);
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
    c = CMatrix();
    c.set_dimensions(a.num_rows(), b.num_cols());
    c.set_row_map(typename CMatrix::row_map_type(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::row_map"),
        static_cast<std::size_t>(a.num_rows()) + 1));
    if (m.kind == MaskKind::Plain) {
      st.products = Impl::plain_mask_structure(exec, a, b, m.matrix, c, st.options.deterministic);
    } else {
      Impl::complement_mask_structure(exec, a, b, m.matrix, c, st.options, st.tuning);
      st.products = -1;  // counted by the first numeric call
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
  if (m.kind == MaskKind::Complement) {
    MaskedHandle<ExecSpace, Scalar, Ordinal, Offset> handle(options, tuning);
    masked_spgemm(exec, handle, m, a, b, c, semiring);
    return c;
  }
  // A plain mask in one pass: values gathered at the mask's positions, then the entries reached copied out.
  static_assert(std::is_same<typename Semiring::value_type, Scalar>::value,
                "KokkosSpGEMM: the semiring's value_type must be the matrices' scalar type");
  Impl::check_types<ExecSpace, Handle<ExecSpace, Scalar, Ordinal, Offset>, AMatrix, BMatrix, CMatrix>();
  Impl::ProfilingRegion region("KokkosSpGEMM::masked_spgemm");
  Impl::check_masked_operands(exec, "masked_spgemm", a, b, m);
  Impl::translate_allocation_failure(
      "masked_spgemm", [&] { Impl::plain_mask_one_pass<Semiring>(exec, a, b, m.matrix, c, options.deterministic); });
  return c;
}

}  // namespace KokkosSpGEMM

#endif
