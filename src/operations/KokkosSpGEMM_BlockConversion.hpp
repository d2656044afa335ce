// Between point CSR and block BSR: to_bsr groups a CSR matrix's entries into b x b blocks (on the host: the
// distinct block columns of b rows at a time), to_csr expands every stored block into b x b entries (on the
// execution space, one point row a thread), and the block graph of a BSR matrix as a CSR matrix for the scalar
// pipeline.
#ifndef KOKKOSSPGEMM_BLOCKCONVERSION_HPP
#define KOKKOSSPGEMM_BLOCKCONVERSION_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_BsrMatrix.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace KokkosSpGEMM {

namespace Impl {

/// Throws InvalidInput unless m has a block size of at least 1 and block_size^2 values a stored block; the block
/// graph itself is checked with the operands of a product (check_operands) or by check_csr.
template <class Matrix>
void check_bsr_shape(const char* function, const char* name, const Matrix& m) {
  KOKKOSSPGEMM_REQUIRE(m.block_size() >= 1, InvalidInput, function,
                       name << " has block size " << m.block_size() << "; a block size is at least 1");
  const std::size_t bb = static_cast<std::size_t>(m.block_size()) * static_cast<std::size_t>(m.block_size());
  KOKKOSSPGEMM_REQUIRE(m.values().extent(0) == m.nnz_blocks() * bb, InvalidInput, function,
                       name << " has " << m.nnz_blocks() << " blocks of " << m.block_size() << " x " << m.block_size()
                            << " but " << m.values().extent(0) << " values (expected " << m.nnz_blocks() * bb << ")");
}

/// The block graph of m as a CSR matrix whose values are `values` (at least nnz_blocks() of them; the scalar
/// pipeline reads them, the block product ignores the results).
template <class Matrix, class Values>
auto block_graph(const Matrix& m, const Values& values) {
  using Csr = CsrMatrix<typename Matrix::scalar_type, typename Matrix::ordinal_type, typename Matrix::offset_type,
                        typename Matrix::memory_space>;
  return Csr(m.num_block_rows(), m.num_block_cols(), m.row_map(), m.entries(),
             Kokkos::subview(values, std::make_pair(std::size_t(0), m.nnz_blocks())));
}

}  // namespace Impl

/// A (rows and columns multiples of block_size) as a BSR matrix in the execution space's memory space: a block is
/// stored wherever A has an entry in it, the rest of the block as zeros; duplicates are summed; block rows sorted by
/// column. Runs on the host (A is copied there). Throws InvalidInput (block_size < 1, a dimension not a multiple of
/// it, A not a CSR matrix) and IndexOverflow (blocks beyond Offset).
template <class ExecSpace, class S, class O, class F, class M>
BsrMatrix<S, O, F, typename ExecSpace::memory_space> to_bsr(const ExecSpace& exec, const CsrMatrix<S, O, F, M>& a_any,
                                                            int block_size) {
  KOKKOSSPGEMM_REQUIRE(block_size >= 1, InvalidInput, "to_bsr",
                       "block size " << block_size << "; a block size is at least 1");
  KOKKOSSPGEMM_REQUIRE(a_any.num_rows() % block_size == 0 && a_any.num_cols() % block_size == 0, InvalidInput, "to_bsr",
                       "A is " << a_any.num_rows() << " x " << a_any.num_cols() << ", not a whole number of "
                               << block_size << " x " << block_size << " blocks");
  const auto a = to_host(a_any);
  Impl::check_csr(Kokkos::DefaultHostExecutionSpace(), "to_bsr", "A", a);
  const O block_rows = a.num_rows() / block_size;
  const O block_cols = a.num_cols() / block_size;
  const std::size_t bb = static_cast<std::size_t>(block_size) * block_size;
  std::vector<std::int64_t> row_map(static_cast<std::size_t>(block_rows) + 1, 0);
  std::vector<O> cols;
  std::vector<O> row;
  for (O bi = 0; bi < block_rows; ++bi) {
    row.clear();
    for (O r = bi * block_size; r < (bi + 1) * block_size; ++r) {
      for (auto e = a.row_map()(r); e < a.row_map()(r + 1); ++e) row.push_back(a.entries()(e) / block_size);
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    cols.insert(cols.end(), row.begin(), row.end());
    row_map[bi + 1] = static_cast<std::int64_t>(cols.size());
  }
  KOKKOSSPGEMM_REQUIRE(cols.size() <= static_cast<std::uint64_t>(std::numeric_limits<F>::max()), IndexOverflow,
                       "to_bsr", cols.size() << " blocks do not fit the " << sizeof(F) * 8 << "-bit offset type");
  BsrMatrix<S, O, F, Kokkos::HostSpace> out("KokkosSpGEMM::to_bsr", block_rows, block_cols, block_size, cols.size());
  for (std::size_t i = 0; i < row_map.size(); ++i) out.row_map()(i) = static_cast<F>(row_map[i]);
  for (std::size_t e = 0; e < cols.size(); ++e) out.entries()(e) = cols[e];
  Kokkos::deep_copy(out.values(), S());
  for (O r = 0; r < a.num_rows(); ++r) {
    const O bi = r / block_size;
    const auto begin = cols.begin() + row_map[bi];
    const auto end = cols.begin() + row_map[bi + 1];
    for (auto e = a.row_map()(r); e < a.row_map()(r + 1); ++e) {
      const O c = a.entries()(e);
      const std::size_t pos = static_cast<std::size_t>(std::lower_bound(begin, end, c / block_size) - cols.begin());
      out.values()(pos * bb + static_cast<std::size_t>(r % block_size) * block_size + c % block_size) += a.values()(e);
    }
  }
  return copy_to(exec, out);
}

/// A's point form in the execution space's memory space: every stored block expanded into b x b entries (zeros
/// included), so C's structure is that of the block product; rows sorted when A's block rows are. Throws
/// InvalidInput (A not a BSR matrix) and IndexOverflow (point rows beyond Ordinal, entries beyond Offset).
template <class ExecSpace, class S, class O, class F, class M>
CsrMatrix<S, O, F, typename ExecSpace::memory_space> to_csr(const ExecSpace& exec, const BsrMatrix<S, O, F, M>& a) {
  using Out = CsrMatrix<S, O, F, typename ExecSpace::memory_space>;
  Impl::check_bsr_shape("to_csr", "A", a);
  Impl::check_csr(exec, "to_csr", "A's block graph", Impl::block_graph(a, a.values()));
  const int b = a.block_size();
  const std::int64_t bb = static_cast<std::int64_t>(b) * b;
  KOKKOSSPGEMM_REQUIRE(a.num_rows() <= std::numeric_limits<O>::max() && a.num_cols() <= std::numeric_limits<O>::max(),
                       IndexOverflow, "to_csr",
                       "A is " << a.num_rows() << " x " << a.num_cols() << " points, beyond the ordinal type");
  KOKKOSSPGEMM_REQUIRE(
      static_cast<std::uint64_t>(a.nnz_blocks()) * bb <= static_cast<std::uint64_t>(std::numeric_limits<F>::max()),
      IndexOverflow, "to_csr", a.nnz_blocks() << " blocks of " << bb << " entries do not fit the offset type");
  Out c("KokkosSpGEMM::to_csr", static_cast<O>(a.num_rows()), static_cast<O>(a.num_cols()),
        static_cast<std::size_t>(a.nnz_blocks() * bb));
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto a_vals = a.values();
  const auto c_rows = c.row_map();
  const auto c_cols = c.entries();
  const auto c_vals = c.values();
  Kokkos::parallel_for(
      "KokkosSpGEMM::to_csr", Impl::Range<ExecSpace>(exec, 0, c.num_rows()), KOKKOS_LAMBDA(const O r) {
        const O bi = r / b;
        const int rr = r % b;
        const std::int64_t len = static_cast<std::int64_t>(a_rows(bi + 1) - a_rows(bi));
        const std::int64_t start = static_cast<std::int64_t>(a_rows(bi)) * bb + rr * len * b;
        c_rows(r + 1) = static_cast<F>(start + len * b);
        std::int64_t out = start;
        for (auto e = a_rows(bi); e < a_rows(bi + 1); ++e) {
          for (int cc = 0; cc < b; ++cc, ++out) {
            c_cols(out) = static_cast<O>(a_cols(e) * b + cc);
            c_vals(out) = a_vals(static_cast<std::int64_t>(e) * bb + rr * b + cc);
          }
        }
      });
  return c;
}

}  // namespace KokkosSpGEMM

#endif
