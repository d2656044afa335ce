// The block-sparse-row matrix of the block product: a CSR graph of blocks, each block a dense b x b array.
#ifndef KOKKOSSPGEMM_BSRMATRIX_HPP
#define KOKKOSSPGEMM_BSRMATRIX_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

/// A BSR matrix: num_block_rows x num_block_cols blocks of block_size x block_size scalars. row_map (num_block_rows
/// + 1 offsets) and entries (block columns) form the block graph; values holds nnz_blocks() blocks of
/// block_size^2 scalars, block e at values(e * block_size^2), each block row-major (Kokkos Kernels' layout). Offset
/// indexes blocks; a value's index is computed in 64 bits.
template <class Scalar, class Ordinal = int, class Offset = int,
          class MemorySpace = typename Kokkos::DefaultExecutionSpace::memory_space>
class BsrMatrix {
  static_assert(std::is_integral<Ordinal>::value && std::is_signed<Ordinal>::value,
                "BsrMatrix: Ordinal must be a signed integer type");
  static_assert(std::is_integral<Offset>::value, "BsrMatrix: Offset must be an integer type");

 public:
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using memory_space = MemorySpace;
  using row_map_type = Kokkos::View<Offset*, MemorySpace>;
  using entries_type = Kokkos::View<Ordinal*, MemorySpace>;
  using values_type = Kokkos::View<Scalar*, MemorySpace>;
  using host_type = BsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace>;

  BsrMatrix() = default;

  /// Wraps existing views; values must hold entries.extent(0) * block_size^2 scalars.
  BsrMatrix(Ordinal num_block_rows, Ordinal num_block_cols, int block_size, row_map_type row_map, entries_type entries,
            values_type values)
      : m_num_block_rows(num_block_rows),
        m_num_block_cols(num_block_cols),
        m_block_size(block_size),
        m_row_map(row_map),
        m_entries(entries),
        m_values(values) {}

  /// Allocates a matrix of nnz_blocks blocks; the row map is zeroed, entries and values are left uninitialised.
  BsrMatrix(const std::string& label, Ordinal num_block_rows, Ordinal num_block_cols, int block_size,
            std::size_t nnz_blocks)
      : m_num_block_rows(num_block_rows),
        m_num_block_cols(num_block_cols),
        m_block_size(block_size),
        m_row_map(label + "::row_map", static_cast<std::size_t>(num_block_rows) + 1),
        m_entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::entries"), nnz_blocks),
        m_values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"),
                 nnz_blocks * static_cast<std::size_t>(block_size) * static_cast<std::size_t>(block_size)) {}

  KOKKOS_INLINE_FUNCTION Ordinal num_block_rows() const { return m_num_block_rows; }
  KOKKOS_INLINE_FUNCTION Ordinal num_block_cols() const { return m_num_block_cols; }
  KOKKOS_INLINE_FUNCTION int block_size() const { return m_block_size; }
  /// Point rows and columns (blocks times the block size).
  KOKKOS_INLINE_FUNCTION std::int64_t num_rows() const {
    return static_cast<std::int64_t>(m_num_block_rows) * m_block_size;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t num_cols() const {
    return static_cast<std::int64_t>(m_num_block_cols) * m_block_size;
  }
  /// Stored blocks (the extent of entries()).
  KOKKOS_INLINE_FUNCTION std::size_t nnz_blocks() const { return m_entries.extent(0); }

  KOKKOS_INLINE_FUNCTION const row_map_type& row_map() const { return m_row_map; }
  KOKKOS_INLINE_FUNCTION const entries_type& entries() const { return m_entries; }
  KOKKOS_INLINE_FUNCTION const values_type& values() const { return m_values; }

  void set_values(values_type values) { m_values = values; }

 private:
  Ordinal m_num_block_rows = 0;
  Ordinal m_num_block_cols = 0;
  int m_block_size = 1;
  row_map_type m_row_map;
  entries_type m_entries;
  values_type m_values;
};

/// A deep copy of A in memory space Space.
template <class Space, class S, class O, class F, class M>
BsrMatrix<S, O, F, typename Space::memory_space> copy_to(const Space&, const BsrMatrix<S, O, F, M>& a) {
  using Out = BsrMatrix<S, O, F, typename Space::memory_space>;
  typename Out::row_map_type row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Bsr::row_map"),
                                     a.row_map().extent(0));
  typename Out::entries_type entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Bsr::entries"),
                                     a.entries().extent(0));
  typename Out::values_type values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Bsr::values"),
                                   a.values().extent(0));
  Kokkos::deep_copy(row_map, a.row_map());
  Kokkos::deep_copy(entries, a.entries());
  Kokkos::deep_copy(values, a.values());
  return Out(a.num_block_rows(), a.num_block_cols(), a.block_size(), row_map, entries, values);
}

/// A host copy of A.
template <class S, class O, class F, class M>
BsrMatrix<S, O, F, Kokkos::HostSpace> to_host(const BsrMatrix<S, O, F, M>& a) {
  return copy_to(Kokkos::DefaultHostExecutionSpace(), a);
}

}  // namespace KokkosSpGEMM

#endif
