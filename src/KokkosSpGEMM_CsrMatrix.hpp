// The compressed-sparse-row matrix every stage reads and writes.
#ifndef KOKKOSSPGEMM_CSRMATRIX_HPP
#define KOKKOSSPGEMM_CSRMATRIX_HPP

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

/// A CSR matrix: row map (num_rows + 1 offsets), column indices and values, in one memory space.
/// Ordinal indexes rows and columns; Offset indexes stored entries (use a 64-bit Offset past 2^31 - 1 entries).
template <class Scalar, class Ordinal = int, class Offset = int,
          class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
class CsrMatrix {
  static_assert(std::is_integral<Ordinal>::value && std::is_signed<Ordinal>::value,
                "CsrMatrix: Ordinal must be a signed integer type");
  static_assert(std::is_integral<Offset>::value, "CsrMatrix: Offset must be an integer type");

 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using memory_space = MemorySpace;
  using row_map_type = Kokkos::View<Offset*, MemorySpace>;
  using entries_type = Kokkos::View<Ordinal*, MemorySpace>;
  using values_type = Kokkos::View<Scalar*, MemorySpace>;
  using host_type = CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace>;

  CsrMatrix() = default;

  /// Wraps existing views; row_map must have num_rows + 1 entries (or 0 when num_rows == 0).
  CsrMatrix(Ordinal num_rows, Ordinal num_cols, row_map_type row_map, entries_type entries, values_type values)
      : m_num_rows(num_rows), m_num_cols(num_cols), m_row_map(row_map), m_entries(entries), m_values(values) {}

  /// Allocates a matrix with nnz entries; the row map is zeroed, entries and values are left uninitialised.
  CsrMatrix(const std::string& label, Ordinal num_rows, Ordinal num_cols, std::size_t nnz)
      : m_num_rows(num_rows),
        m_num_cols(num_cols),
        m_row_map(label + "::row_map", static_cast<std::size_t>(num_rows) + 1),
        m_entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::entries"), nnz),
        m_values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), nnz) {}

  KOKKOS_INLINE_FUNCTION Ordinal num_rows() const { return m_num_rows; }
  KOKKOS_INLINE_FUNCTION Ordinal num_cols() const { return m_num_cols; }
  /// Number of stored entries (the extent of entries()).
  KOKKOS_INLINE_FUNCTION std::size_t nnz() const { return m_entries.extent(0); }

  KOKKOS_INLINE_FUNCTION const row_map_type& row_map() const { return m_row_map; }
  KOKKOS_INLINE_FUNCTION const entries_type& entries() const { return m_entries; }
  KOKKOS_INLINE_FUNCTION const values_type& values() const { return m_values; }

  void set_entries(entries_type entries) { m_entries = entries; }
  void set_values(values_type values) { m_values = values; }
  void set_row_map(row_map_type row_map) { m_row_map = row_map; }
  void set_dimensions(Ordinal num_rows, Ordinal num_cols) {
    m_num_rows = num_rows;
    m_num_cols = num_cols;
  }

 private:
  Ordinal m_num_rows = 0;
  Ordinal m_num_cols = 0;
  row_map_type m_row_map;
  entries_type m_entries;
  values_type m_values;
};

/// A deep copy of A in memory space Space (no copy is shared with A even when the spaces agree).
template <class Space, class S, class O, class F, class M>
CsrMatrix<S, O, F, typename Space::memory_space> copy_to(const Space&, const CsrMatrix<S, O, F, M>& a) {
  using Out = CsrMatrix<S, O, F, typename Space::memory_space>;
  typename Out::row_map_type row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Csr::row_map"),
                                     a.row_map().extent(0));
  typename Out::entries_type entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Csr::entries"),
                                     a.entries().extent(0));
  typename Out::values_type values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Csr::values"),
                                   a.values().extent(0));
  Kokkos::deep_copy(row_map, a.row_map());
  Kokkos::deep_copy(entries, a.entries());
  Kokkos::deep_copy(values, a.values());
  return Out(a.num_rows(), a.num_cols(), row_map, entries, values);
}

/// A host copy of A (for checks, I/O and the reference).
template <class S, class O, class F, class M>
CsrMatrix<S, O, F, Kokkos::HostSpace> to_host(const CsrMatrix<S, O, F, M>& a) {
  return copy_to(Kokkos::DefaultHostExecutionSpace(), a);
}

}  // namespace KokkosSpGEMM

#endif
