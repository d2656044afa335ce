// C = A*B on BSR matrices (b x b blocks). The symbolic phase runs the block graphs through the scalar pipeline
// unchanged (C's block structure, rows sorted); the numeric phase multiplies and adds dense blocks with C's
// structure known (impl/accumulate/KokkosSpGEMM_BlockRowKernel.hpp): on GPUs rows are binned by length so that each
// bin's teams get scratch for a hash of the row's columns and its blocks; on CPUs a thread a row adds into C.
#ifndef KOKKOSSPGEMM_BLOCKSPGEMM_HPP
#define KOKKOSSPGEMM_BLOCKSPGEMM_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_BsrMatrix.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <impl/accumulate/KokkosSpGEMM_BlockRowKernel.hpp>
#include <impl/memory/KokkosSpGEMM_Workspace.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowBins.hpp>
#include <operations/KokkosSpGEMM_BlockConversion.hpp>
#include <operations/KokkosSpGEMM_Transpose.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace KokkosSpGEMM {

/// Analysis of C = A*B on blocks for one structure of A and B (new values reuse it). Scalar, Ordinal and Offset are
/// C's.
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
class BsrHandle {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using matrix_type = BsrMatrix<Scalar, Ordinal, Offset, memory_space>;

  explicit BsrHandle(const Options& options = Options(), const Tuning& tuning = Tuning()) : m_state{options, tuning} {}

  const Options& options() const { return m_state.options; }
  const Tuning& tuning() const { return m_state.tuning; }
  bool has_analysis() const { return m_state.done; }
  int block_size() const { return m_state.block_size; }
  /// Blocks of C.
  std::int64_t nnz_blocks() const { return m_state.c_nnzb; }
  /// Block products (each b^3 multiply-adds: the flop count is 2 b^3 times this).
  std::int64_t block_products() const { return m_state.products; }
  /// Bytes kept between calls (the GPU kernels' row permutation).
  std::size_t kept_bytes() const { return m_state.bins.perm.span() * sizeof(Ordinal); }

  void reset() { *this = BsrHandle(options(), tuning()); }

  std::string describe() const {
    std::ostringstream s;
    s << "KokkosSpGEMM BSR handle on " << BackendTraits<ExecSpace>::name() << ": ";
    if (!m_state.done) return s.str() + "(no analysis yet)\n";
    s << m_state.block_size << " x " << m_state.block_size << " blocks, " << m_state.c_nnzb << " blocks of C, "
      << m_state.products << " block products; ";
    if (m_state.launches.empty()) {
      s << "a thread a row";
    } else {
      for (const auto& l : m_state.launches) {
        s << "[rows up to " << l.longest << ": " << l.rows << " rows, " << l.team_size << " x " << l.vector_length
          << (l.capacity > 0 ? ", scratch hash " + std::to_string(l.capacity) : std::string(", in C")) << "] ";
      }
    }
    s << "; kept " << kept_bytes() << " B\n";
    return s.str();
  }

 private:
  friend struct Impl::HandleAccess;

  // One kernel launch of the GPU numeric phase: a bin of rows of C.
  struct Launch {
    std::int64_t first = 0, rows = 0;
    int longest = 0, capacity = 0, team_size = 1, vector_length = 1;
    std::size_t scratch = 0;
  };
  // The analysis: made by the functions below through Impl::HandleAccess, not part of the API.
  struct State {
    Options options;
    Tuning tuning;
    bool done = false;
    int block_size = 0;
    std::int64_t a_rows = -1, a_cols = -1, a_nnzb = -1, b_cols = -1, b_nnzb = -1, c_nnzb = 0, products = 0;
    bool serial = true;  // a thread a row (CPUs, deterministic)
    Impl::RowBins<Ordinal, memory_space> bins;
    std::vector<Launch> launches;
    Kokkos::View<unsigned long long, memory_space> misses;
    Kokkos::View<long long, memory_space> next_row;  // the thread-a-row kernel's shared row counter
  };
  State m_state;
};

namespace Impl {

/// C's row lengths, the size bound bin_rows groups rows by.
template <class RowMap>
struct BlockRowLength {
  RowMap rows;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    return static_cast<std::int64_t>(rows(i + 1) - rows(i));
  }
};

/// to(e) = from(source(e))^T for every block.
template <class ExecSpace, class Source, class From, class To>
void gather_transposed_blocks(const ExecSpace& exec, const Source& source, const From& from, const To& to, int b) {
  const std::int64_t bb = static_cast<std::int64_t>(b) * b;
  Kokkos::parallel_for(
      "KokkosSpGEMM::Bsr::transpose_blocks", Impl::Range<ExecSpace>(exec, 0, to.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t x) {
        const std::int64_t e = x / bb;
        const int rc = static_cast<int>(x % bb);
        to(x) = from(static_cast<std::int64_t>(source(e)) * bb + (rc % b) * b + rc / b);
      });
}

template <class AMatrix, class BMatrix>
void check_block_operands(const char* function, const AMatrix& a, const BMatrix& b) {
  check_bsr_shape(function, "A", a);
  check_bsr_shape(function, "B", b);
  KOKKOSSPGEMM_REQUIRE(a.block_size() == b.block_size(), DimensionMismatch, function,
                       "A has " << a.block_size() << " x " << a.block_size() << " blocks and B " << b.block_size()
                                << " x " << b.block_size() << ": a block product needs one block size");
}

/// The GPU numeric phase's launches: C's rows binned by length; each bin's teams hash the row's columns and hold
/// its blocks in scratch where they fit, else add into C.
template <class ExecSpace, class BHandle>
void plan_block_launches(const ExecSpace& exec, BHandle& h, const typename BHandle::matrix_type& c) {
  using Ordinal = typename BHandle::ordinal_type;
  using Views =
      BlockProductViews<typename BHandle::matrix_type, typename BHandle::matrix_type, typename BHandle::matrix_type>;
  using Kernel = BlockTeamRows<ExecSpace, Views, Kokkos::View<Ordinal*, typename ExecSpace::memory_space>, 0>;
  auto& st = state(h);
  Workspace<ExecSpace> workspace(exec, 0);
  st.bins = bin_rows(exec, workspace, c.num_block_rows(),
                     BlockRowLength<typename BHandle::matrix_type::row_map_type>{c.row_map()});
  const int bb = st.block_size * st.block_size;
  std::int64_t scratch_max = std::min<std::int64_t>(Impl::Teams<ExecSpace>::scratch_size_max(0),
                                                    BackendTraits<ExecSpace>::scratch_bytes_per_team);
  if (h.tuning().scratch_bytes > 0) scratch_max = std::min<std::int64_t>(scratch_max, h.tuning().scratch_bytes);
  constexpr int vector_length = BackendTraits<ExecSpace>::max_vector_length;
  st.launches.clear();
  for (int bin = 1; bin < num_row_bins; ++bin) {  // bin 0: rows of C without blocks
    if (st.bins.count(bin) == 0) continue;
    typename std::decay_t<decltype(st.launches)>::value_type l;
    l.first = st.bins.offsets[bin];
    l.rows = st.bins.count(bin);
    l.longest = static_cast<int>(std::min<std::int64_t>(row_bin_bound(bin), std::numeric_limits<int>::max() / 4));
    l.capacity = static_cast<int>(bit_ceil_u64(2 * static_cast<std::uint64_t>(l.longest)));
    l.scratch = Kernel::scratch_bytes(l.capacity, l.longest, bb);
    if (static_cast<std::int64_t>(l.scratch) > scratch_max) {
      l.capacity = 0;
      l.scratch = Kernel::scratch_bytes(0, 0, bb);
    }
    // A warp for every 32 elements of the row's blocks, up to 8: the lanes share the row's block products.
    const std::int64_t elements = static_cast<std::int64_t>(l.longest) * bb;
    l.vector_length = vector_length;
    l.team_size = BackendTraits<ExecSpace>::is_gpu
                      ? static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(8, elements / 32)))
                      : 1;
    st.launches.push_back(l);
  }
}

}  // namespace Impl

/// Symbolic phase of C = A*B on blocks: checks A and B (one block size, inner dimensions, well-formed block graphs),
/// multiplies the block graphs with the scalar pipeline to give C its block structure (rows sorted), allocates C's
/// values and plans the numeric phase. Throws DimensionMismatch, InvalidInput, IndexOverflow, OutOfMemory.
template <class ExecSpace, class S, class O, class F, class FA, class MA, class FB, class MB>
void spgemm_symbolic(const ExecSpace& exec, BsrHandle<ExecSpace, S, O, F>& h, const BsrMatrix<S, O, FA, MA>& a,
                     const BsrMatrix<S, O, FB, MB>& b, BsrMatrix<S, O, F, typename ExecSpace::memory_space>& c) {
  using Space = typename ExecSpace::memory_space;
  Impl::ProfilingRegion region("KokkosSpGEMM::bsr_spgemm_symbolic");
  Impl::check_block_operands("spgemm_symbolic", a, b);
  h.reset();
  auto& st = Impl::state(h);
  // The scalar pipeline multiplies the block graphs; its values (ones) are dropped.
  Kokkos::View<S*, Space> ones(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Bsr::ones"),
                               std::max(a.nnz_blocks(), b.nnz_blocks()));
  Kokkos::deep_copy(exec, ones, S(1));
  Options graph_options = h.options();
  graph_options.sorted = true;
  graph_options.deterministic = false;
  graph_options.algorithm = Algorithm::Auto;
  Handle<ExecSpace, S, O, F> graph(graph_options, h.tuning());
  Impl::state(graph).single_use = true;
  CsrMatrix<S, O, F, Space> c_graph;
  const auto a_graph = Impl::block_graph(a, ones);
  const auto b_graph = Impl::block_graph(b, ones);
  spgemm_symbolic(exec, graph, a_graph, b_graph, c_graph);
  Impl::numeric_phase(exec, graph, a_graph, b_graph, c_graph, true);
  const int bs = a.block_size();
  const std::size_t bb = static_cast<std::size_t>(bs) * bs;
  Impl::translate_allocation_failure("spgemm_symbolic", [&] {
    c = BsrMatrix<S, O, F, Space>(c_graph.num_rows(), c_graph.num_cols(), bs, c_graph.row_map(), c_graph.entries(),
                                  Impl::fresh_view<typename BsrMatrix<S, O, F, Space>::values_type>(
                                      exec, "KokkosSpGEMM::Bsr::C::values", c_graph.nnz() * bb));
  });
  st.block_size = bs;
  st.a_rows = a.num_block_rows();
  st.a_cols = a.num_block_cols();
  st.a_nnzb = static_cast<std::int64_t>(a.nnz_blocks());
  st.b_cols = b.num_block_cols();
  st.b_nnzb = static_cast<std::int64_t>(b.nnz_blocks());
  st.c_nnzb = static_cast<std::int64_t>(c.nnz_blocks());
  st.products = graph.products();
  st.misses = Kokkos::View<unsigned long long, Space>("KokkosSpGEMM::Bsr::misses");
  st.next_row = Kokkos::View<long long, Space>("KokkosSpGEMM::Bsr::next_row");
  const BlockRows rows = h.tuning().block_rows;
  st.serial = h.options().deterministic || rows == BlockRows::Threads ||
              (rows == BlockRows::Auto && !BackendTraits<ExecSpace>::is_gpu);
  if (!st.serial) Impl::plan_block_launches(exec, h, c);
  st.done = true;
}

namespace Impl {
/// spgemm_numeric; checked: A and B are the views the symbolic phase of the same call just checked (their block
/// graphs need no second pass).
template <class ExecSpace, class S, class O, class F, class FA, class MA, class FB, class MB>
void block_numeric_phase(const ExecSpace& exec, BsrHandle<ExecSpace, S, O, F>& h, const BsrMatrix<S, O, FA, MA>& a,
                         const BsrMatrix<S, O, FB, MB>& b, BsrMatrix<S, O, F, typename ExecSpace::memory_space>& c,
                         bool checked) {
  using Space = typename ExecSpace::memory_space;
  using AM = BsrMatrix<S, O, FA, MA>;
  using BM = BsrMatrix<S, O, FB, MB>;
  using CM = BsrMatrix<S, O, F, Space>;
  using Views = Impl::BlockProductViews<AM, BM, CM>;
  Impl::ProfilingRegion region("KokkosSpGEMM::bsr_spgemm_numeric");
  auto& st = Impl::state(h);
  KOKKOSSPGEMM_REQUIRE(h.has_analysis(), HandleMismatch, "spgemm_numeric",
                       "the handle holds no analysis: call spgemm_symbolic first");
  Impl::check_block_operands("spgemm_numeric", a, b);
  KOKKOSSPGEMM_REQUIRE(
      a.block_size() == st.block_size && c.block_size() == st.block_size, DimensionMismatch, "spgemm_numeric",
      "block size " << a.block_size() << " (A), " << c.block_size() << " (C); the analysis was of " << st.block_size);
  KOKKOSSPGEMM_REQUIRE(st.a_rows == a.num_block_rows() && st.a_cols == a.num_block_cols() &&
                           st.a_nnzb == static_cast<std::int64_t>(a.nnz_blocks()) && st.b_cols == b.num_block_cols() &&
                           st.b_nnzb == static_cast<std::int64_t>(b.nnz_blocks()),
                       HandleMismatch, "spgemm_numeric",
                       "A and B differ in structure from the analysed pair: run spgemm_symbolic again");
  KOKKOSSPGEMM_REQUIRE(c.num_block_rows() == a.num_block_rows() && c.num_block_cols() == b.num_block_cols() &&
                           static_cast<std::int64_t>(c.nnz_blocks()) == st.c_nnzb &&
                           c.values().extent(0) == c.nnz_blocks() * static_cast<std::size_t>(st.block_size) *
                                                       static_cast<std::size_t>(st.block_size),
                       HandleMismatch, "spgemm_numeric", "C is not the block matrix spgemm_symbolic made");
  if (!checked) {
    Impl::check_operands(exec, "spgemm_numeric", Impl::block_graph(a, a.values()), Impl::block_graph(b, b.values()));
  }
  Kokkos::deep_copy(exec, st.misses, 0ull);
  const Views v(a, b, c, st.misses);
  Impl::with_block_size(st.block_size, [&](auto size) {
    constexpr int B = decltype(size)::value;
    if (st.serial) {
      using Kernel = Impl::BlockSerialRows<ExecSpace, Views, B>;
      Kokkos::deep_copy(exec, st.next_row, 0ll);
      // A thread a row: as many one-thread teams as the space runs at once, each with its map of C's columns on
      // CPUs (a GPU's resident teams would need that much memory each).
      const O columns = !BackendTraits<ExecSpace>::is_gpu && c.num_block_cols() <= h.tuning().dense_max_columns
                            ? c.num_block_cols()
                            : O(0);
      const std::int64_t rows = c.num_block_rows();
      const int league = static_cast<int>(std::max<std::int64_t>(
          1, std::min<std::int64_t>(BackendTraits<ExecSpace>::is_gpu ? (rows + 15) / 16 : exec.concurrency(),
                                    (rows + Kernel::rows_per_take - 1) / Kernel::rows_per_take)));
      Kokkos::parallel_for("KokkosSpGEMM::Bsr::numeric_rows",
                           Impl::Teams<ExecSpace>(exec, league, 1, 1)
                               .set_scratch_size(1, Kokkos::PerTeam(Kernel::scratch_bytes(columns))),
                           Kernel{v, st.next_row, rows, columns});
      return;
    }
    using Kernel = Impl::BlockTeamRows<ExecSpace, Views, decltype(st.bins.perm), B>;
    for (const auto& l : st.launches) {
      Impl::Teams<ExecSpace> policy(exec, static_cast<int>(l.rows), l.team_size, l.vector_length);
      Kokkos::parallel_for("KokkosSpGEMM::Bsr::numeric_team_rows",
                           policy.set_scratch_size(0, Kokkos::PerTeam(l.scratch)),
                           Kernel{v, st.bins.perm, l.first, l.capacity, l.longest});
    }
  });
  unsigned long long missed = 0;
  Kokkos::deep_copy(exec, Kokkos::View<unsigned long long, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&missed),
                    st.misses);
  exec.fence();
  KOKKOSSPGEMM_REQUIRE(missed == 0, HandleMismatch, "spgemm_numeric",
                       missed << " block products fall outside C's analysed structure (A or B changed structure): "
                                 "run spgemm_symbolic again");
}
}  // namespace Impl

/// Numeric phase: C's blocks from this call's values of A and B (the analysed structures; C as the symbolic phase
/// left it). Throws HandleMismatch (no analysis, another structure, or a product whose block column C lacks),
/// DimensionMismatch (block sizes), InvalidInput (malformed A or B).
template <class ExecSpace, class S, class O, class F, class FA, class MA, class FB, class MB>
void spgemm_numeric(const ExecSpace& exec, BsrHandle<ExecSpace, S, O, F>& h, const BsrMatrix<S, O, FA, MA>& a,
                    const BsrMatrix<S, O, FB, MB>& b, BsrMatrix<S, O, F, typename ExecSpace::memory_space>& c) {
  Impl::block_numeric_phase(exec, h, a, b, c, false);
}

/// C = A*B on blocks through the handle: the symbolic phase when it holds no analysis, then the numeric one.
template <class ExecSpace, class S, class O, class F, class FA, class MA, class FB, class MB>
void spgemm(const ExecSpace& exec, BsrHandle<ExecSpace, S, O, F>& h, const BsrMatrix<S, O, FA, MA>& a,
            const BsrMatrix<S, O, FB, MB>& b, BsrMatrix<S, O, F, typename ExecSpace::memory_space>& c) {
  const bool analysed_now = !h.has_analysis();
  if (analysed_now) spgemm_symbolic(exec, h, a, b, c);
  // The symbolic phase just checked A's and B's block graphs (through the scalar pipeline's operand checks).
  Impl::block_numeric_phase(exec, h, a, b, c, analysed_now);
}

/// One-shot C = A*B on blocks (C has A's offset type unless COffset names another).
template <class COffset = void, class ExecSpace, class S, class O, class FA, class MA, class FB, class MB>
auto spgemm(const ExecSpace& exec, const BsrMatrix<S, O, FA, MA>& a, const BsrMatrix<S, O, FB, MB>& b,
            const Options& options = Options(), const Tuning& tuning = Tuning()) {
  using F = std::conditional_t<std::is_void<COffset>::value, FA, COffset>;
  BsrHandle<ExecSpace, S, O, F> h(options, tuning);
  BsrMatrix<S, O, F, typename ExecSpace::memory_space> c;
  spgemm(exec, h, a, b, c);
  return c;
}

/// A^T on blocks (each block transposed), rows sorted, in the execution space's memory space.
template <class ExecSpace, class S, class O, class F, class M>
BsrMatrix<S, O, F, typename ExecSpace::memory_space> transpose(const ExecSpace& exec, const BsrMatrix<S, O, F, M>& a) {
  Impl::check_bsr_shape("transpose", "A", a);
  const auto graph_t = transpose_with_source(exec, Impl::block_graph(a, a.values()));
  const int b = a.block_size();
  BsrMatrix<S, O, F, typename ExecSpace::memory_space> t(
      graph_t.t.num_rows(), graph_t.t.num_cols(), b, graph_t.t.row_map(), graph_t.t.entries(),
      typename BsrMatrix<S, O, F, typename ExecSpace::memory_space>::values_type(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "KokkosSpGEMM::Bsr::transpose"), a.values().extent(0)));
  Impl::gather_transposed_blocks(exec, graph_t.source, a.values(), t.values(), b);
  return t;
}

}  // namespace KokkosSpGEMM

#endif
