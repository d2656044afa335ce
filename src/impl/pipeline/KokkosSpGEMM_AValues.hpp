// What the numeric row kernels multiply B's rows by: A's stored values, or those of the Jacobi operand
// I - w D^-1 A computed as they are read (the fused smoothing step: C = (I - w D^-1 A) * P = P - w D^-1 A P with no
// sparse add and no scaled copy of A). The operand's structure is A's, which must hold every diagonal entry
// (operations/KokkosSpGEMM_Jacobi.hpp inserts the missing ones once and finds each row's diagonal).
#ifndef KOKKOSSPGEMM_AVALUES_HPP
#define KOKKOSSPGEMM_AVALUES_HPP

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// A's values as stored.
struct StoredValues {
  static constexpr bool stored = true;
  template <class Vals, class Ordinal, class AOffset>
  KOKKOS_INLINE_FUNCTION auto value(const Vals& vals, Ordinal, AOffset e) const {
    return vals(e);
  }
  /// The values of a block of rows (RowChunks.hpp): first_row and first_entry are the block's first row and entry.
  StoredValues block(std::int64_t, std::int64_t) const { return *this; }
  /// One row's part, taken once a row where a kernel's loop must not reload views (the CPU dense accumulator):
  /// row(i)(a, e) is value(vals, i, e) for a = vals(e).
  struct Row {
    template <class Scalar, class AOffset>
    KOKKOS_INLINE_FUNCTION Scalar operator()(const Scalar& a, AOffset) const {
      return a;
    }
  };
  template <class Ordinal>
  KOKKOS_INLINE_FUNCTION Row row(Ordinal) const {
    return Row();
  }
};

/// The entries of I - w D^-1 A: -w dinv(i) a_ik, plus 1 at the row's diagonal entry diagonal(i) (its first one when
/// A has duplicates: the identity is added once). first_row, first_entry: where A's row 0 and entry 0 are in the
/// whole matrix (a block of rows under a memory budget).
template <class Scalar, class Offset, class MemorySpace>
struct JacobiValues {
  static constexpr bool stored = false;
  Kokkos::View<const Scalar*, MemorySpace> dinv;
  Kokkos::View<const Offset*, MemorySpace> diagonal;
  Scalar omega = Scalar();
  std::int64_t first_row = 0, first_entry = 0;

  template <class Vals, class Ordinal, class AOffset>
  KOKKOS_INLINE_FUNCTION Scalar value(const Vals& vals, Ordinal i, AOffset e) const {
    return row(i)(vals(e), e);
  }
  /// Row i's scale -w dinv(i) and diagonal entry, taken once a row (see StoredValues::Row).
  struct Row {
    Scalar scale;
    std::int64_t diagonal_entry;
    template <class AOffset>
    KOKKOS_INLINE_FUNCTION Scalar operator()(const Scalar& a, AOffset e) const {
      const Scalar scaled = scale * a;
      return static_cast<std::int64_t>(e) == diagonal_entry ? scaled + Scalar(1) : scaled;
    }
  };
  template <class Ordinal>
  KOKKOS_INLINE_FUNCTION Row row(Ordinal i) const {
    const std::int64_t r = first_row + i;
    return Row{-omega * dinv(r), static_cast<std::int64_t>(diagonal(r)) - first_entry};
  }
  JacobiValues block(std::int64_t row, std::int64_t entry) const {
    JacobiValues b = *this;
    b.first_row += row;
    b.first_entry += entry;
    return b;
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
