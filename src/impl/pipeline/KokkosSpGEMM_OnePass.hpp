// The one-shot product on host threads in one pass: the dense accumulator takes ranges of rows, checks A as it reads
// it and writes each row of C once, the rows of a range one after the other, into the range's part of a buffer from
// the temporary cache (each part as long as its rows' products); C is then allocated at its exact size and filled
// by a copy of the parts. Where C fits the buffer, this replaces the symbolic phase's count of every row (a pass over
// A and B as long as the numeric one's, less the values) with a copy of C.
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
#include <impl/pipeline/KokkosSpGEMM_WorkRanges.hpp>

#include <cstdint>
#include <limits>

namespace KokkosSpGEMM {
namespace Impl {

/// The one pass's ranges of rows: range w holds rows [first(w), first(w + 1)) and the buffer's slots from base(w)
/// (its rows' products, at least its entries of C); the pass leaves in written(w) and bad(w) the entries it wrote
/// and the bad rows and entries of A it met. longest: the most products of a row.
template <class Space>
struct OnePassRanges {
  Kokkos::View<std::int64_t*, Space> first, base, written, bad;
  std::int64_t count = 0, capacity = 0, longest = 0, bad_total = 0;
};

/// Cuts A's rows into `count` ranges of about equal work and gives each its slots: its rows' products, or where
/// B's rows hold one entry each (unit_b) and A's entries are checked later, its entries of A. Rows that break the
/// CSR rules, and in the products, columns of A that name no row of B, are counted in bad_total.
template <class ExecSpace, class AMatrix, class BMatrix>
OnePassRanges<typename ExecSpace::memory_space> one_pass_ranges(const ExecSpace& exec, const AMatrix& a,
                                                                const BMatrix& b, std::int64_t count,
                                                                bool entries_of_a) {
  using Ordinal = typename AMatrix::ordinal_type;
  using Space = typename ExecSpace::memory_space;
  using View = Kokkos::View<std::int64_t*, Space>;
  OnePassRanges<Space> r;
  const Ordinal rows = a.num_rows();
  r.count = count;
  r.first = balanced_ranges(exec, rows, count,
                            EntryWeight<typename AMatrix::row_map_type, RowsInOrder<Ordinal>>{
                                a.row_map(), RowsInOrder<Ordinal>{}, 0, entry_weight(b.row_map(), b.entries())});
  r.base = View(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::OnePass::base"), count + 1);
  r.written = View(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::OnePass::written"), count);
  r.bad = View(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::OnePass::bad"), count);
  View longest(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::OnePass::longest"), count);
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto b_rows = b.row_map();
  const std::size_t a_nnz = a.nnz();
  const auto b_n = static_cast<std::make_unsigned_t<Ordinal>>(b.num_rows());
  const auto first = r.first, slots = r.base, bad = r.bad;
  Kokkos::parallel_for(
      "KokkosSpGEMM::OnePass::products", Range<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, count),
      KOKKOS_LAMBDA(const std::int64_t w) {
        std::int64_t sum = 0, most = 0, wrong = 0;
        for (std::int64_t i = first(w); i < first(w + 1); ++i) {
          if (!csr_offsets_ok(a_rows, a_nnz, static_cast<Ordinal>(i), rows)) {
            ++wrong;
            continue;
          }
          std::int64_t row = 0;
          if (entries_of_a) {
            row = static_cast<std::int64_t>(a_rows(i + 1) - a_rows(i));
          } else {
            for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
              const Ordinal k = a_cols(e);
              if (static_cast<std::make_unsigned_t<Ordinal>>(k) < b_n) {
                row += static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k));
              } else {
                ++wrong;
              }
            }
          }
          sum += row;
          most = row > most ? row : most;
        }
        slots(w) = sum;
        longest(w) = most;
        bad(w) = wrong;
      });
  exec.fence();
  for (std::int64_t w = 0; w < count; ++w) {
    const std::int64_t slots_w = r.base(w);
    r.base(w) = r.capacity;
    r.capacity += slots_w;
    r.longest = max_of(r.longest, longest(w));
    r.bad_total += r.bad(w);
  }
  r.base(count) = r.capacity;
  return r;
}

/// The rows of C by ranges, a range a work item (one_pass_ranges): each row accumulated by the dense kernel's numeric
/// rows (with A's check where nothing checked A before), and written after the rows before it in its range, the
/// range's row map relative to its base.
template <class Kernel, class RowMap>
struct OnePassRows {
  using Ordinal = typename Kernel::Ordinal;
  using Scalar = typename Kernel::Scalar;
  using Space = typename RowMap::memory_space;
  Kernel k;
  RowMap row_map;
  Kokkos::View<Ordinal*, Space> cols;
  Kokkos::View<Scalar*, Space> vals;
  OnePassRanges<Space> ranges;
  bool check_a = true;  // false where one_pass_ranges checked A's entries

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t w) const {
    const std::int64_t begin = ranges.first(w), end = ranges.first(w + 1);
    std::int64_t used = 0, bad = 0;
    if (begin < end) {
      const int id = k.token.acquire();
      char* chunk = k.pool.chunk(id);
      const typename Kernel::Parts p = k.parts(chunk);
      const typename Kernel::ACheck check = k.a_check(check_a);
      Ordinal* const out_cols = cols.data() + ranges.base(w);
      Scalar* const out_vals = vals.data() + ranges.base(w);
      for (std::int64_t row = begin; row < end; ++row) {
        used += k.template accumulate<true>(static_cast<Ordinal>(row), p, k.next_stamp(chunk, p.stamps),
                                            out_cols + used, out_vals + used, check, &bad);
        row_map(row + 1) = static_cast<typename RowMap::non_const_value_type>(used);
      }
      k.token.release(id);
    }
    ranges.written(w) = used;
    ranges.bad(w) = bad;
  }
};

/// sampled_compression counts about this many rows, evenly spaced: a sample's cost stays small beside the pass.
constexpr std::int64_t one_pass_sample_rows = 256;

/// The one pass trades the count of every product for a copy of C. Where B and its stamps fit a core's cache
/// (Tuning::one_pass_cached_b_bytes) the count runs from the cache, and where the products barely compress (below
/// this many an entry of C) C is nearly as long as they are: the copy then costs more than the count saves
/// (docs/performance.md, v58).
constexpr double one_pass_min_compression = 1.25;

/// Products an entry of C over a sample of rows, counted on the pool's chunks (k: a one pass kernel, whose chunks'
/// stamps the count leaves ready for its rows; check_a: A's columns not checked yet, so checked here before they
/// index B); 0 where the sample has no product.
template <class ExecSpace, class Kernel>
double sampled_compression(const ExecSpace& exec, const Kernel& k, std::int64_t rows, bool check_a) {
  using Ordinal = typename Kernel::Ordinal;
  const std::int64_t stride = max_of<std::int64_t>(1, rows / one_pass_sample_rows);
  std::int64_t products = 0, columns = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::OnePass::sample", Range<ExecSpace>(exec, 0, (rows + stride - 1) / stride),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, std::int64_t& distinct) {
        const int id = k.token.acquire();
        char* chunk = k.pool.chunk(id);
        const typename Kernel::Parts p = k.parts(chunk);
        std::int64_t bad = 0;
        distinct += k.template count_columns<true, false>(static_cast<Ordinal>(i * stride), p.stamps,
                                                          k.next_stamp(chunk, p.stamps), k.a_check(check_a), sum, bad);
        k.token.release(id);
      },
      products, columns);
  return columns > 0 ? static_cast<double>(products) / static_cast<double>(columns) : 0.0;
}

/// C = A*B in one pass (OnePassRows) where the one-shot runs on host threads with the dense accumulator and no memory
/// budget, and the products (at least nnz(C) entries: the buffer) fit Tuning::one_pass_max_bytes. Returns false, with
/// C untouched, where it does not apply (the caller then counts first); throws InvalidInput for a malformed A, as the
/// count would (B is checked first). Sorted or not as asked, like the numeric phase.
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
    if (s.memory_budget_bytes > 0 || s.one_pass_max_bytes == 0 || concurrency(exec) > s.one_pass_max_threads ||
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
    // Rows of B of one entry give a product an entry of A, whose columns the pass then checks; else the ranges'
    // products are counted (graphs' hub rows of B take many more than the mean predicts), which checks A. Where B is
    // A, B's rows were not checked apart: A must pass that check before any row of B is read. A bad A is left to the
    // count, which names the problem.
    const bool entries_of_a = unit_b && !OperandItems<AMatrix, BMatrix>::same_arrays(a, b);
    const std::int64_t items = concurrency(exec) == 1 ? 1 : work_range_count(exec, rows, dense_rows_per_item);
    const auto ranges = one_pass_ranges(exec, a, b, items, entries_of_a);
    if (ranges.bad_total > 0 || ranges.capacity > most) return false;

    const auto row_map = fresh_view<typename CMatrix::row_map_type>(exec, "KokkosSpGEMM::Symbolic::C_row_map",
                                                                    static_cast<std::size_t>(rows) + 1);
    CMatrix out(static_cast<Ordinal>(rows), b.num_cols(), row_map, typename CMatrix::entries_type(),
                typename CMatrix::values_type());
    using Views = MultiplyViews<AMatrix, BMatrix, CMatrix>;
    using Kernel = DenseRowKernel<ExecSpace, true, Views, RowsInOrder<Ordinal>>;
    using BranchFreeKernel = DenseRowKernel<ExecSpace, true, Views, RowsInOrder<Ordinal>, false, false, true>;
    // One pool serves both: BranchFree changes no part of a chunk's layout.
    Views v(a, b, out);
    v.unit_b = unit_b;
    const Ordinal width = b.num_cols();
    // A row's touched list holds its distinct columns: at most its products and B's columns.
    const std::int64_t bound = min_of<std::int64_t>(width, ranges.longest);
    const std::size_t chunk = Kernel::chunk_bytes(width, bound);
    const Kokkos::Experimental::UniqueToken<ExecSpace> token(exec);
    const std::int64_t chunks = token.size();
    // The chunks first, apart from the buffer: a sample may decline the pass before the buffer is taken.
    Workspace<ExecSpace> chunk_space(
        exec, static_cast<std::size_t>(chunks) * (MemoryPool<Space>::stride(chunk) + sizeof(int)) + 1024);
    const MemoryPool<Space> pool(exec, chunk_space, chunks, chunk, false);
    pool.zero_chunk_prefixes(exec, Kernel::zeroed_bytes(width));
    const auto with_pool = [&](auto kernel) {
      kernel.pool = pool;
      kernel.token = token;
      kernel.by_token = true;
      return kernel;
    };
    const Kernel kernel = with_pool(Kernel{v, RowsInOrder<Ordinal>{}, 0, width, bound, pool, s.sorted});
    // Rows of very unequal products (a graph's) go without a branch on new columns where they compress within
    // dense_branch_free's bounds, as the numeric phase decides it after the count; nnz(C) is not known before the
    // pass, so the compression is a sample's.
    const bool spread = s.algorithm == Algorithm::Auto && !unit_b &&
                        ranges.longest * rows >= dense_branch_free_spread * ranges.capacity;
    const std::size_t b_bytes = b.nnz() * entry_bytes + static_cast<std::size_t>(b.num_rows() + 1) * sizeof(Offset) +
                                static_cast<std::size_t>(width) * sizeof(typename Kernel::Stamp);
    const bool cached_b = b_bytes <= s.one_pass_cached_b_bytes;
    const double compression = spread || cached_b ? sampled_compression(exec, kernel, rows, entries_of_a) : 0.0;
    if (cached_b && compression < one_pass_min_compression) return false;
    Workspace<ExecSpace> workspace(exec, static_cast<std::size_t>(ranges.capacity) * entry_bytes + 1024);
    const Kokkos::View<Ordinal*, Space> buffer_cols =
        workspace.template take<Ordinal>("KokkosSpGEMM::OnePass::entries", std::size_t(ranges.capacity));
    const Kokkos::View<Scalar*, Space> buffer_vals =
        workspace.template take<Scalar>("KokkosSpGEMM::OnePass::values", std::size_t(ranges.capacity));
    const auto pass = [&](auto k) {
      return OnePassRows<decltype(k), typename CMatrix::row_map_type>{k,           row_map, buffer_cols,
                                                                      buffer_vals, ranges,  entries_of_a};
    };
    const bool branch_free =
        spread && compression > 0 &&
        dense_branch_free(s, rows, ranges.capacity, ranges.longest,
                          static_cast<std::int64_t>(static_cast<double>(ranges.capacity) / compression));
    exec.fence();
    row_map(0) = 0;
    Range<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(exec, 0, items);
    policy.set_chunk_size(1);
    if (branch_free) {
      Kokkos::parallel_for(
          "KokkosSpGEMM::OnePass::dense_rows_branch_free", policy,
          pass(with_pool(BranchFreeKernel{v, RowsInOrder<Ordinal>{}, 0, width, bound, pool, s.sorted})));
    } else {
      Kokkos::parallel_for("KokkosSpGEMM::OnePass::dense_rows", policy, pass(kernel));
    }
    exec.fence();
    // The ranges' places in C.
    std::int64_t nnz = 0, bad = 0;
    const Kokkos::View<std::int64_t*, Space> to(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::OnePass::to"), items);
    for (std::int64_t w = 0; w < items; ++w) {
      to(w) = nnz;
      nnz += ranges.written(w);
      bad += ranges.bad(w);
    }
    if (bad > 0) check_operands_of_a(exec, "spgemm_symbolic", a, b, bad);
    const auto cols =
        fresh_view<typename CMatrix::entries_type>(exec, "KokkosSpGEMM::C::entries", static_cast<std::size_t>(nnz));
    const auto vals =
        fresh_view<typename CMatrix::values_type>(exec, "KokkosSpGEMM::C::values", static_cast<std::size_t>(nnz));
    Kokkos::parallel_for(
        "KokkosSpGEMM::OnePass::copy", Range<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, items),
        KOKKOS_LAMBDA(const std::int64_t w) {
          const std::int64_t from = ranges.base(w), at = to(w), n = ranges.written(w);
          for (std::int64_t j = 0; j < n; ++j) {
            cols(at + j) = buffer_cols(from + j);
            vals(at + j) = buffer_vals(from + j);
          }
          if (at != 0) {
            for (std::int64_t i = ranges.first(w); i < ranges.first(w + 1); ++i) {
              row_map(i + 1) += static_cast<Offset>(at);
            }
          }
        });
    exec.fence();  // the buffer goes back to the cache with the workspace
    c = CMatrix(static_cast<Ordinal>(rows), b.num_cols(), row_map, cols, vals);
    return true;
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
