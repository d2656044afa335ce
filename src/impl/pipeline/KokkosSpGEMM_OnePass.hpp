// The one-shot product on one host thread in one pass: the dense accumulator takes the rows in order, checks A as it
// reads it and writes each row of C once, one after the other, into a buffer from the temporary cache; C is then
// allocated at its exact size and filled by a copy. Where C fits the buffer, this replaces the symbolic phase's count
// of every row (a pass over A and B as long as the numeric one's, less the values) with a copy of C.
#ifndef KOKKOSSPGEMM_ONEPASS_HPP
#define KOKKOSSPGEMM_ONEPASS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <impl/accumulate/KokkosSpGEMM_DenseRowKernel.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>
#include <impl/pipeline/KokkosSpGEMM_BinConfig.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <impl/pipeline/KokkosSpGEMM_MultiplyViews.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>

#include <cstdint>
#include <limits>
#include <utility>

namespace KokkosSpGEMM {
namespace Impl {

/// The rows of C in order on one thread (a launch of one work item): each row accumulated by the dense kernel's
/// numeric rows (with A's check where nothing checked A before), and written after the rows before it. done holds
/// nnz(C) and the bad rows and entries of A met.
template <class Kernel, class RowMap>
struct OnePassRows {
  using Ordinal = typename Kernel::Ordinal;
  using Scalar = typename Kernel::Scalar;
  using Space = typename RowMap::memory_space;
  Kernel k;
  RowMap row_map;
  Kokkos::View<Ordinal*, Space> cols;
  Kokkos::View<Scalar*, Space> vals;
  Kokkos::View<std::int64_t[2], Kokkos::HostSpace> done;
  bool check_a = true;  // false where checked_products has checked A

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t) const {
    char* chunk = k.pool.chunk(0);
    const typename Kernel::Parts p = k.parts(chunk);
    const typename Kernel::ACheck check = k.a_check(check_a);
    const std::int64_t rows = static_cast<std::int64_t>(row_map.extent(0)) - 1;
    std::int64_t used = 0, bad = 0;
    row_map(0) = 0;
    for (std::int64_t row = 0; row < rows; ++row) {
      used += k.template accumulate<true>(static_cast<Ordinal>(row), p, k.next_stamp(chunk, p.stamps),
                                          cols.data() + used, vals.data() + used, check, &bad);
      row_map(row + 1) = static_cast<typename RowMap::non_const_value_type>(used);
    }
    done(0) = used;
    done(1) = bad;
  }
};

/// A*B's products (each entry of A times its row of B) and A's rows and entries that break the CSR rules (bad),
/// reading only what keeps them.
template <class ExecSpace, class AMatrix, class BMatrix>
std::pair<std::int64_t, std::int64_t> checked_products(const ExecSpace& exec, const AMatrix& a, const BMatrix& b) {
  using Ordinal = typename AMatrix::ordinal_type;
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto b_rows = b.row_map();
  const std::size_t a_nnz = a.nnz();
  const Ordinal rows = a.num_rows();
  const auto b_n = static_cast<std::make_unsigned_t<Ordinal>>(b.num_rows());
  std::int64_t products = 0, bad = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::OnePass::products", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, std::int64_t& wrong) {
        if (!csr_offsets_ok(a_rows, a_nnz, static_cast<Ordinal>(i), rows)) {
          ++wrong;
          return;
        }
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          const Ordinal k = a_cols(e);
          if (static_cast<std::make_unsigned_t<Ordinal>>(k) < b_n) {
            sum += static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k));
          } else {
            ++wrong;
          }
        }
      },
      products, bad);
  return {products, bad};
}

/// C = A*B in one pass (OnePassRows) where the one-shot runs on one host thread with the dense accumulator and no
/// memory budget, and the products (at least nnz(C) entries: the buffer) fit Tuning::one_pass_max_bytes. Returns
/// false, with C untouched, where it does not apply (the caller then counts first); throws InvalidInput for a
/// malformed A, as the count would (B is checked first). Sorted or not as asked, like the numeric phase.
template <class CMatrix, class ExecSpace, class AMatrix, class BMatrix>
bool one_pass_product(const ExecSpace& exec, const Settings& s, const AMatrix& a, const BMatrix& b, CMatrix& c) {
  using Ordinal = typename CMatrix::ordinal_type;
  using Offset = typename CMatrix::offset_type;
  using Scalar = typename CMatrix::scalar_type;
  using Space = typename ExecSpace::memory_space;
  if constexpr (BackendTraits<ExecSpace>::is_gpu) {
    return false;
  } else {
    const std::int64_t rows = a.num_rows();
    const std::size_t entry_bytes = sizeof(Ordinal) + sizeof(Scalar);
    if (concurrency(exec) != 1 || s.memory_budget_bytes > 0 || s.one_pass_max_bytes == 0 ||
        !dense_accumulator_for<ExecSpace>(s, b.num_cols()) || rows == 0 || a.nnz() == 0 || b.nnz() == 0) {
      return false;
    }
    // The products that B's mean row predicts, before any pass over A or B: a product that counts first checks them
    // again. nnz(C) past C's offset type is left to the count, which reports it.
    const std::int64_t b_rows = max_of<std::int64_t>(1, b.num_rows());
    const std::int64_t expected =
        static_cast<std::int64_t>(a.nnz()) * ((static_cast<std::int64_t>(b.nnz()) + b_rows - 1) / b_rows);
    const auto most = static_cast<std::int64_t>(min_of<std::uint64_t>(
        s.one_pass_max_bytes / entry_bytes,
        min_of<std::uint64_t>(static_cast<std::uint64_t>(std::numeric_limits<Offset>::max()),
                              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))));
    if (expected > most) return false;
    check_operands_past_a(exec, "spgemm_symbolic", a, b);
    const bool unit_b = rows_of_one_entry(exec, b.row_map(), b.nnz());
    // Rows of B of one entry give a product an entry of A; else a pass finds them (graphs' hub rows of B take many
    // more than the mean predicts). Where B is A, B's rows were not checked apart: A must pass that pass's check
    // before any row of B is read (else the count reports it).
    std::int64_t capacity = static_cast<std::int64_t>(a.nnz());
    const bool a_checked = !unit_b || OperandItems<AMatrix, BMatrix>::same_arrays(a, b);
    if (a_checked) {
      const auto [products, bad] = checked_products(exec, a, b);
      if (bad > 0) return false;
      if (!unit_b) capacity = products;
    }
    if (capacity > most) return false;

    const typename CMatrix::row_map_type row_map(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Symbolic::C_row_map"),
        static_cast<std::size_t>(rows) + 1);
    CMatrix out(static_cast<Ordinal>(rows), b.num_cols(), row_map, typename CMatrix::entries_type(),
                typename CMatrix::values_type());
    using Views = MultiplyViews<AMatrix, BMatrix, CMatrix>;
    using Kernel = DenseRowKernel<ExecSpace, true, Views, RowsInOrder<Ordinal>>;
    Views v(a, b, out);
    v.unit_b = unit_b;
    // A row's distinct columns are at most B's columns: the touched list has room for any row.
    const Ordinal width = b.num_cols();
    const std::size_t chunk = Kernel::chunk_bytes(width, width);
    Workspace<ExecSpace> workspace(exec, static_cast<std::size_t>(capacity) * entry_bytes + chunk + 4096);
    OnePassRows<Kernel, typename CMatrix::row_map_type> pass{
        Kernel{v, RowsInOrder<Ordinal>{}, 0, width, width, MemoryPool<Space>(exec, workspace, 1, chunk, false),
               s.sorted},
        row_map, workspace.template take<Ordinal>("KokkosSpGEMM::OnePass::entries", std::size_t(capacity)),
        workspace.template take<Scalar>("KokkosSpGEMM::OnePass::values", std::size_t(capacity)),
        Kokkos::View<std::int64_t[2], Kokkos::HostSpace>("KokkosSpGEMM::OnePass::done")};
    pass.check_a = !a_checked;
    pass.k.pool.zero_chunk_prefixes(exec, Kernel::zeroed_bytes(width));
    Kokkos::parallel_for("KokkosSpGEMM::OnePass::dense_rows", Impl::Range<ExecSpace>(exec, 0, 1), pass);
    exec.fence();
    if (pass.done(1) > 0) check_operands_of_a(exec, "spgemm_symbolic", a, b, pass.done(1));
    const std::int64_t nnz = pass.done(0);
    typename CMatrix::entries_type cols(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::entries"),
        static_cast<std::size_t>(nnz));
    typename CMatrix::values_type vals(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::C::values"),
                                       static_cast<std::size_t>(nnz));
    advise_huge_pages(cols);
    advise_huge_pages(vals);
    const auto head = Kokkos::make_pair(std::size_t(0), static_cast<std::size_t>(nnz));
    Kokkos::deep_copy(exec, cols, Kokkos::subview(pass.cols, head));
    Kokkos::deep_copy(exec, vals, Kokkos::subview(pass.vals, head));
    exec.fence();  // the buffer goes back to the cache with the workspace
    c = CMatrix(static_cast<Ordinal>(rows), b.num_cols(), row_map, cols, vals);
    return true;
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
