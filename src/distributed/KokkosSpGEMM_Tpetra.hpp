// KokkosSpGEMM as the local engine of distributed products of Tpetra::CrsMatrix (MPI). Tpetra keeps the maps, the
// communication and the matrix objects; this header supplies the product and the schedule around it:
//   1. the rows of B that A's column map needs and other ranks own travel to this rank (their lengths, columns and
//      values in the symbolic phase; only values in a numeric phase, posted before the local work);
//   2. our local kernel multiplies A's local rows by B's local rows followed by the imported ones, over the union of
//      their columns ordered as a Tpetra column map;
//   3. C gets A's row map, the columns that occur as its column map, and a static fill-complete (as Tpetra's own
//      Multiply does), so that apply, further products and the Matrix Market writer accept it.
// Errors are collective: every rank throws the same typed error (KokkosSpGEMM_Errors.hpp), none waits forever.
#ifndef KOKKOSSPGEMM_TPETRA_HPP
#define KOKKOSSPGEMM_TPETRA_HPP

#include <KokkosSpGEMM.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <distributed/impl/KokkosSpGEMM_CollectiveErrors.hpp>
#include <distributed/impl/KokkosSpGEMM_ColumnSpace.hpp>
#include <distributed/impl/KokkosSpGEMM_LocalMatrices.hpp>
#include <distributed/impl/KokkosSpGEMM_PhaseTimes.hpp>
#include <distributed/impl/KokkosSpGEMM_RemoteRows.hpp>
#include <distributed/impl/KokkosSpGEMM_TransposedProduct.hpp>

#include <Kokkos_Core.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

namespace KokkosSpGEMM {
namespace Distributed {

namespace Impl {
struct ProductAccess;
}

/// Analysis of C = op(A)*op(B) for one structure of A and B on every rank: the import plan of B's remote rows, the
/// local operands and our local Handle, and C's maps. Numeric calls with new values (same structures) send only
/// the values of B's remote rows and replay the local analysis.
template <class Scalar, class LO, class GO, class Node>
class DistributedHandle {
 public:
  using matrix_type = Tpetra::CrsMatrix<Scalar, LO, GO, Node>;
  using map_type = Tpetra::Map<LO, GO, Node>;
  using impl_scalar_type = typename matrix_type::impl_scalar_type;
  using execution_space = typename Node::execution_space;
  using memory_space = typename Node::memory_space;
  /// The local operands and C's local part: Tpetra's offsets (size_t) and local ordinals.
  using local_matrix_type = CsrMatrix<impl_scalar_type, LO, std::size_t, memory_space>;
  using local_handle_type = Handle<execution_space, impl_scalar_type, LO, std::size_t>;

  /// options.sorted is ignored: C's rows are always sorted, as Tpetra's fill-complete matrices are.
  explicit DistributedHandle(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_options(options), m_tuning(tuning), m_local(sorted(options), tuning) {}

  bool has_analysis() const { return m_done; }
  /// This rank's times in the last call (symbolic or numeric).
  const PhaseTimes& last_times() const { return m_times; }
  /// The local product's analysis (its describe() tells the bins and kernels this rank used).
  const local_handle_type& local_handle() const { return m_local; }
  /// Rows of B this rank receives, their entries, and the entries it sends (per numeric call: values only).
  std::size_t received_rows() const { return m_remote.rows(); }
  std::size_t received_entries() const { return m_remote.entries(); }
  std::size_t sent_entries() const { return m_remote.sent_entries(); }
  /// Forgets the analysis (the next call must be a symbolic one).
  void reset() { *this = DistributedHandle(m_options, m_tuning); }

 private:
  static Options sorted(Options options) {
    options.sorted = true;
    return Impl::local_handle_options(options);
  }
  friend struct Impl::ProductAccess;
  Options m_options;
  Tuning m_tuning;
  local_handle_type m_local;
  Impl::RemoteRows<matrix_type> m_remote;
  bool m_done = false;
  bool m_trans_a = false, m_trans_b = false;
  // What the symbolic phase saw, checked by numeric calls before anything travels.
  std::size_t m_a_rows = 0, m_a_nnz = 0, m_a_cols = 0, m_b_rows = 0, m_b_nnz = 0;
  Kokkos::View<LO*, memory_space> m_a_entries;  // A's local columns relabelled to rows of m_b_local
  bool m_a_same_labels = false;                 // the relabelling is the identity: A's own columns (m_a_entries empty)
  local_matrix_type m_b_local;                  // B's local rows then the received ones, columns in the union space
  local_matrix_type m_c_local;                  // C over the union space (our handle's output)
  Kokkos::View<LO*, memory_space> m_c_entries;  // C's columns in its column map (m_c_local's when nothing dropped)
  Kokkos::View<impl_scalar_type*, Kokkos::HostSpace> m_received;  // the received rows' values
  const matrix_type* m_c = nullptr;
  PhaseTimes m_times;
};

namespace Impl {

/// A distributed product's operands as the local kernel takes them, with op(A) and op(B) kept alive (a transposed
/// operand is a matrix of its own, and the local views are its arrays).
template <class H>
struct LocalOperands {
  Teuchos::RCP<const typename H::matrix_type> a, b;
  std::vector<typename H::matrix_type::global_ordinal_type> union_gids;  // U's columns (symbolic phases only)
  Teuchos::RCP<const typename H::map_type> union_map;
  typename H::local_matrix_type a_local;  // A's local rows, columns relabelled to rows of b_local
  typename H::local_matrix_type b_local;  // B's local rows then the received ones, columns in U
};

struct ProductAccess {
  /// Collective. Steps 1-3 of a symbolic phase: the import of B's remote rows, the union column space and the local
  /// operands (A's columns relabelled to rows of the local B), without the product.
  template <class H>
  static LocalOperands<H> operands(H& h, const typename H::matrix_type& a_in, bool trans_a,
                                   const typename H::matrix_type& b_in, bool trans_b) {
    using matrix_type = typename H::matrix_type;
    using map_type = typename H::map_type;
    using LO = typename matrix_type::local_ordinal_type;
    using GO = typename matrix_type::global_ordinal_type;
    using S = typename H::impl_scalar_type;
    using Space = typename H::memory_space;
    using local_matrix_type = typename H::local_matrix_type;
    using KokkosSpGEMM::Impl::tpetra_local_num_elements;
    const char* function = "Distributed::multiply_symbolic";
    h.reset();
    LocalOperands<H> ops;
    const auto comm = a_in.getComm();
    run_and_agree(*comm, [&] {
      KOKKOSSPGEMM_REQUIRE(a_in.isFillComplete() && b_in.isFillComplete(), InvalidInput, function,
                           "A and B must be fill-complete");
    });
    const auto t_transpose = std::chrono::steady_clock::now();
    ops.a = operand(a_in, trans_a);
    ops.b = operand(b_in, trans_b);
    const matrix_type& a = *ops.a;
    const matrix_type& b = *ops.b;
    h.m_times.transpose = seconds_since(t_transpose);
    // Collective and the same on every rank: Map::isSameAs reduces over the communicator.
    const auto a_domain = a.getDomainMap();
    const auto b_range = b.getRangeMap();
    if (a_domain->getGlobalNumElements() != b_range->getGlobalNumElements() || !a_domain->isSameAs(*b_range)) {
      std::ostringstream s;
      s << "KokkosSpGEMM::" << function << ": op(A)'s domain map (" << a_domain->getGlobalNumElements()
        << " global indices) is not op(B)'s range map (" << b_range->getGlobalNumElements() << ")";
      throw DimensionMismatch(s.str());
    }

    // 1. Which rows of B each column of A needs: a local row of B, or one to receive.
    const auto t_import = std::chrono::steady_clock::now();
    const auto a_cols = a.getColMap();
    const auto b_rows = b.getRowMap();
    const std::size_t n_a_cols = tpetra_local_num_elements(*a_cols);
    const std::size_t n_b_rows = tpetra_local_num_elements(*b_rows);
    std::vector<GO> remote;
    // >= 0: B's local row; < 0: -(1 + index in `remote`). Left empty while column j of A is row j of B for every j
    // (one rank, A's domain map B's row map), where A's own columns serve: a fresh array of A's columns' size cost
    // its pages' first touch.
    std::vector<std::int64_t> source;
    const Impl::IndexLookup<map_type> a_col_index(*a_cols), b_row_index(*b_rows);
    bool same_labels = true;
    for (std::size_t j = 0; j < n_a_cols; ++j) {
      const GO g = a_col_index.global(static_cast<LO>(j));
      const LO row = b_row_index.local(g);
      std::int64_t s = row;
      if (row == Teuchos::OrdinalTraits<LO>::invalid()) {
        s = -1 - static_cast<std::int64_t>(remote.size());
        remote.push_back(g);
      }
      if (same_labels && s == static_cast<std::int64_t>(j)) continue;
      if (same_labels) {
        same_labels = false;
        source.resize(n_a_cols);
        for (std::size_t k = 0; k < j; ++k) source[k] = static_cast<std::int64_t>(k);
      }
      source[j] = s;
    }
    h.m_remote.plan(a, b, remote);
    const auto received_columns = h.m_remote.import_columns(b);
    h.m_received = Kokkos::View<S*, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Distributed::received_values"),
        h.m_remote.entries());
    h.m_remote.start_values(b, h.m_received);
    h.m_remote.finish_values();

    // 2. The union column space U, ordered as a column map over B's domain map.
    const auto b_cols = b.getColMap();
    const std::size_t n_b_cols = tpetra_local_num_elements(*b_cols);
    std::vector<GO> gids;
    gids.reserve(n_b_cols);
    const Impl::IndexLookup<map_type> b_col_index(*b_cols);
    for (std::size_t j = 0; j < n_b_cols; ++j) gids.push_back(b_col_index.global(static_cast<LO>(j)));
    {
      // A received row's columns repeat across rows: only those B's column map lacks, once each.
      std::unordered_set<GO> extra;
      for (std::size_t e = 0; e < received_columns.extent(0); ++e) {
        const GO g = received_columns(e);
        if (b_col_index.local(g) == Teuchos::OrdinalTraits<LO>::invalid()) extra.insert(g);
      }
      gids.insert(gids.end(), extra.begin(), extra.end());
    }
    ops.union_gids = column_map_order(*b.getDomainMap(), std::move(gids));
    const std::vector<GO>& union_gids = ops.union_gids;
    // Where the received rows bring no column B's column map lacks, U is that map (on one rank, always).
    bool same = union_gids.size() == n_b_cols;
    for (std::size_t j = 0; same && j < n_b_cols; ++j) same = union_gids[j] == b_col_index.global(LO(j));
    int differ = same ? 0 : 1, any_differ = 0;
    Teuchos::reduceAll<int, int>(*comm, Teuchos::REDUCE_MAX, differ, Teuchos::outArg(any_differ));
    const Teuchos::RCP<const map_type> union_map = any_differ == 0 ? b_cols : map_of(*b_cols, union_gids);
    ops.union_map = union_map;
    h.m_times.import = seconds_since(t_import);

    // 3. The local operands (local work: failures are agreed on before the next collective call).
    const auto t_local = std::chrono::steady_clock::now();
    LocalVerdict verdict;
    const auto a_view = local_view<local_matrix_type>(a, n_a_cols);
    const auto b_view = local_view<local_matrix_type>(b, n_b_cols);
    run_locally(verdict, [&] {
      h.m_a_rows = static_cast<std::size_t>(a_view.num_rows());
      h.m_a_nnz = a_view.nnz();
      h.m_a_cols = n_a_cols;
      h.m_b_rows = n_b_rows;
      h.m_b_nnz = b_view.nnz();
      const std::size_t n_rows = n_b_rows + h.m_remote.rows();
      const std::size_t nnz = b_view.nnz() + h.m_remote.entries();
      KOKKOSSPGEMM_REQUIRE(n_rows <= static_cast<std::size_t>(std::numeric_limits<LO>::max()) &&
                               union_gids.size() <= static_cast<std::size_t>(std::numeric_limits<LO>::max()),
                           IndexOverflow, function,
                           "B's local and received rows (" << n_rows << ") or their columns (" << union_gids.size()
                                                           << ") exceed the local ordinal type");
      local_matrix_type bl("KokkosSpGEMM::Distributed::B_local", static_cast<LO>(n_rows),
                           static_cast<LO>(union_gids.size()), nnz);
      auto rows = Kokkos::create_mirror_view(bl.row_map());
      auto cols = Kokkos::create_mirror_view(bl.entries());
      const auto b_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b_view.row_map());
      const auto b_entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b_view.entries());
      for (std::size_t i = 0; i <= n_b_rows; ++i) rows(i) = b_host(i);
      if (union_map == b_cols) {
        for (std::size_t e = 0; e < b_view.nnz(); ++e) cols(e) = b_entries(e);
      } else {
        std::vector<LO> union_of_b_col(n_b_cols);
        for (std::size_t j = 0; j < n_b_cols; ++j) {
          union_of_b_col[j] = union_map->getLocalElement(b_cols->getGlobalElement(static_cast<LO>(j)));
        }
        for (std::size_t e = 0; e < b_view.nnz(); ++e) {
          cols(e) = union_of_b_col[static_cast<std::size_t>(b_entries(e))];
        }
      }
      std::size_t at = b_view.nnz();
      for (std::size_t r = 0; r < h.m_remote.rows(); ++r) {
        rows(n_b_rows + r + 1) = rows(n_b_rows + r) + h.m_remote.counts()[r];
      }
      for (std::size_t e = 0; e < received_columns.extent(0); ++e) {
        cols(at++) = union_map->getLocalElement(received_columns(e));
      }
      Kokkos::deep_copy(bl.row_map(), rows);
      Kokkos::deep_copy(bl.entries(), cols);
      h.m_b_local = bl;
      copy_values(h, b_view);

      // Where the relabelling is the identity, A's own columns serve (each call's, never kept: A's arrays are not
      // ours to hold).
      h.m_a_same_labels = same_labels;
      h.m_a_entries = decltype(h.m_a_entries)();
      if (!same_labels) {
        Kokkos::View<LO*, Space> a_entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::A_local"),
                                           a_view.nnz());
        // A's own columns are read, never written (on host backends the mirror is A's array itself).
        const auto a_cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a_view.entries());
        auto a_cols_host = Kokkos::create_mirror_view(a_entries);  // our new array (itself on host)
        for (std::size_t e = 0; e < a_view.nnz(); ++e) {
          const std::int64_t s = source[static_cast<std::size_t>(a_cols(e))];
          a_cols_host(e) =
              s >= 0 ? static_cast<LO>(s) : static_cast<LO>(n_b_rows + h.m_remote.position(static_cast<LO>(-1 - s)));
        }
        Kokkos::deep_copy(a_entries, a_cols_host);
        h.m_a_entries = a_entries;
      }
      ops.a_local = local_matrix_type(a_view.num_rows(), static_cast<LO>(n_rows), a_view.row_map(),
                                      same_labels ? a_view.entries() : h.m_a_entries, a_view.values());
      ops.b_local = h.m_b_local;
    });
    h.m_times.local = seconds_since(t_local);
    agree(*comm, verdict);
    return ops;
  }

  /// Collective. The operands of A*B alone, kept for numeric calls (refreshed_operands), where another kernel
  /// consumes them and no C is made.
  template <class H>
  static LocalOperands<H> analyse_operands(H& h, const typename H::matrix_type& a, const typename H::matrix_type& b) {
    LocalOperands<H> ops = operands(h, a, false, b, false);
    h.m_trans_a = h.m_trans_b = false;
    h.m_c = nullptr;
    h.m_done = true;
    h.m_times.total = h.m_times.transpose + h.m_times.import + h.m_times.local;
    return ops;
  }

  /// Collective. The symbolic phase of C = op(A)*op(B): the operands, the local product, C made fill-complete.
  template <class H>
  static void symbolic(H& h, const typename H::matrix_type& a_in, bool trans_a, const typename H::matrix_type& b_in,
                       bool trans_b, Teuchos::RCP<typename H::matrix_type>& c_out) {
    using matrix_type = typename H::matrix_type;
    using LO = typename matrix_type::local_ordinal_type;
    using GO = typename matrix_type::global_ordinal_type;
    const auto start = std::chrono::steady_clock::now();
    const LocalOperands<H> ops = operands(h, a_in, trans_a, b_in, trans_b);
    const auto comm = a_in.getComm();
    const matrix_type& a = *ops.a;
    const matrix_type& b = *ops.b;
    const std::vector<GO>& union_gids = ops.union_gids;
    const auto t_local = std::chrono::steady_clock::now();
    LocalVerdict verdict;
    run_locally(verdict, [&] {
      typename H::execution_space exec;
      spgemm_symbolic(exec, h.m_local, ops.a_local, h.m_b_local, h.m_c_local);
      spgemm_numeric(exec, h.m_local, ops.a_local, h.m_b_local, h.m_c_local);
      exec.fence();
    });
    h.m_times.local += seconds_since(t_local);
    agree(*comm, verdict);

    // 4. C's column map: the columns of U that occur, in U's order (monotone, so rows stay sorted).
    const auto t_fill = std::chrono::steady_clock::now();
    std::vector<GO> c_gids;
    run_locally(verdict, [&] {
      const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h.m_c_local.entries());
      std::vector<LO> relabel(union_gids.size(), 0);
      for (std::size_t e = 0; e < entries.extent(0); ++e) relabel[static_cast<std::size_t>(entries(e))] = 1;
      LO next = 0;
      for (std::size_t u = 0; u < union_gids.size(); ++u) {
        if (relabel[u]) {
          relabel[u] = next++;
          c_gids.push_back(union_gids[u]);
        }
      }
      if (c_gids.size() == union_gids.size()) {
        h.m_c_entries = h.m_c_local.entries();
      } else {
        auto relabelled = Kokkos::create_mirror_view(Kokkos::HostSpace(), entries);
        for (std::size_t e = 0; e < entries.extent(0); ++e) {
          relabelled(e) = relabel[static_cast<std::size_t>(entries(e))];
        }
        h.m_c_entries = Kokkos::View<LO*, typename H::memory_space>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::Distributed::C_entries"), entries.extent(0));
        Kokkos::deep_copy(h.m_c_entries, relabelled);
      }
    });
    agree(*comm, verdict);
    const auto c_cols = map_of(*ops.union_map, c_gids);  // collective on every rank, whether or not it dropped columns
    const auto c = Teuchos::rcp(
        new matrix_type(a.getRowMap(), c_cols, h.m_c_local.row_map(), h.m_c_entries, h.m_c_local.values()));
    const auto c_import =
        Teuchos::rcp(new Tpetra::Import<LO, GO, typename H::matrix_type::node_type>(b.getDomainMap(), c_cols));
    c->expertStaticFillComplete(b.getDomainMap(), a.getRangeMap(), c_import);
    h.m_times.fill = seconds_since(t_fill);
    h.m_trans_a = trans_a;
    h.m_trans_b = trans_b;
    h.m_c = c.get();
    h.m_done = true;
    c_out = c;
    h.m_times.total = seconds_since(start);
  }

  /// B's local values into the head of the local B, the received values into its tail.
  template <class H, class BView>
  static void copy_values(H& h, const BView& b_view) {
    const auto head = Kokkos::subview(h.m_b_local.values(), std::make_pair(std::size_t(0), b_view.nnz()));
    Kokkos::deep_copy(head, b_view.values());
    const auto tail =
        Kokkos::subview(h.m_b_local.values(), std::make_pair(b_view.nnz(), b_view.nnz() + h.m_received.extent(0)));
    Kokkos::deep_copy(tail, h.m_received);
  }

  /// Collective. The checks of a numeric phase and the values of B's remote rows: the local operands with the new
  /// values (c: the C to refresh; none where the product is not made as a matrix of its own).
  template <class H>
  static LocalOperands<H> refreshed_operands(H& h, const typename H::matrix_type& a_in,
                                             const typename H::matrix_type& b_in, const typename H::matrix_type* c) {
    using matrix_type = typename H::matrix_type;
    using local_matrix_type = typename H::local_matrix_type;
    const char* function = "Distributed::multiply_numeric";
    h.m_times = PhaseTimes();
    const auto comm = a_in.getComm();
    LocalVerdict verdict;
    run_locally(verdict, [&] {
      KOKKOSSPGEMM_REQUIRE(h.m_done, InvalidInput, function, "the handle has no analysis: call multiply_symbolic");
      KOKKOSSPGEMM_REQUIRE(c == h.m_c, KokkosSpGEMM::HandleMismatch, function,
                           "C is not the matrix this handle's symbolic phase made");
      KOKKOSSPGEMM_REQUIRE(a_in.isFillComplete() && b_in.isFillComplete(), InvalidInput, function,
                           "A and B must be fill-complete");
    });
    agree(*comm, verdict);
    const auto t_transpose = std::chrono::steady_clock::now();
    const Teuchos::RCP<const matrix_type> a = operand(a_in, h.m_trans_a);
    const Teuchos::RCP<const matrix_type> b = operand(b_in, h.m_trans_b);
    h.m_times.transpose = seconds_since(t_transpose);
    const std::size_t n_a_cols = KokkosSpGEMM::Impl::tpetra_local_num_elements(*a->getColMap());
    const std::size_t n_b_cols = KokkosSpGEMM::Impl::tpetra_local_num_elements(*b->getColMap());
    const auto a_view = local_view<local_matrix_type>(*a, n_a_cols);
    const auto b_view = local_view<local_matrix_type>(*b, n_b_cols);
    run_locally(verdict, [&] {
      KOKKOSSPGEMM_REQUIRE(static_cast<std::size_t>(a_view.num_rows()) == h.m_a_rows && a_view.nnz() == h.m_a_nnz &&
                               n_a_cols == h.m_a_cols,
                           KokkosSpGEMM::HandleMismatch, function,
                           "A's local structure changed since the symbolic phase (rows "
                               << a_view.num_rows() << ", entries " << a_view.nnz() << ", columns " << n_a_cols
                               << "; analysed " << h.m_a_rows << ", " << h.m_a_nnz << ", " << h.m_a_cols << ")");
      KOKKOSSPGEMM_REQUIRE(static_cast<std::size_t>(b_view.num_rows()) == h.m_b_rows && b_view.nnz() == h.m_b_nnz,
                           KokkosSpGEMM::HandleMismatch, function,
                           "B's local structure changed since the symbolic phase (rows "
                               << b_view.num_rows() << ", entries " << b_view.nnz() << "; analysed " << h.m_b_rows
                               << ", " << h.m_b_nnz << ")");
      // The rows this rank sends must keep their lengths, or the receivers would read other rows' values.
      const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b_view.row_map());
      const auto& sent = h.m_remote.sent_rows();
      for (std::size_t k = 0; k < sent.size(); ++k) {
        const auto row = static_cast<std::size_t>(sent[k]);
        KOKKOSSPGEMM_REQUIRE(rows(row + 1) - rows(row) == h.m_remote.sent_counts()[k], KokkosSpGEMM::HandleMismatch,
                             function, "row " << row << " of B (sent to another rank) changed length");
      }
    });
    agree(*comm, verdict);  // before anything travels: a changed structure anywhere stops every rank here

    const auto t_import = std::chrono::steady_clock::now();
    h.m_remote.start_values(*b, h.m_received);
    double hidden = 0;
    // A rank that receives nothing multiplies by B's own values (the local B is B's rows, in B's order).
    const bool received = h.m_remote.rows() > 0;
    if (received) {
      const auto t_copy = std::chrono::steady_clock::now();
      const auto head = Kokkos::subview(h.m_b_local.values(), std::make_pair(std::size_t(0), b_view.nnz()));
      Kokkos::deep_copy(head, b_view.values());
      hidden = seconds_since(t_copy);
    }
    h.m_remote.finish_values();
    const auto tail =
        Kokkos::subview(h.m_b_local.values(), std::make_pair(b_view.nnz(), b_view.nnz() + h.m_received.extent(0)));
    Kokkos::deep_copy(tail, h.m_received);
    h.m_times.import = seconds_since(t_import) - hidden;

    LocalOperands<H> ops;
    ops.a = a;
    ops.b = b;
    ops.a_local = local_matrix_type(a_view.num_rows(), h.m_b_local.num_rows(), a_view.row_map(),
                                    h.m_a_same_labels ? a_view.entries() : h.m_a_entries, a_view.values());
    ops.b_local = local_matrix_type(h.m_b_local.num_rows(), h.m_b_local.num_cols(), h.m_b_local.row_map(),
                                    h.m_b_local.entries(), received ? h.m_b_local.values() : b_view.values());
    h.m_times.total = h.m_times.transpose + h.m_times.import;  // numeric() adds its local product
    return ops;
  }

  template <class H>
  static void numeric(H& h, const typename H::matrix_type& a_in, const typename H::matrix_type& b_in,
                      typename H::matrix_type& c) {
    using local_matrix_type = typename H::local_matrix_type;
    const auto start = std::chrono::steady_clock::now();
    const LocalOperands<H> ops = refreshed_operands(h, a_in, b_in, &c);
    const auto& a_now = ops.a_local;
    const auto& b_now = ops.b_local;
    const auto t_local = std::chrono::steady_clock::now();
    LocalVerdict verdict;
    run_locally(verdict, [&] {
      // C's values as Tpetra holds them (marked modified where it keeps two copies).
      local_matrix_type c_now(h.m_c_local.num_rows(), h.m_c_local.num_cols(), h.m_c_local.row_map(),
                              h.m_c_local.entries(), c.getLocalValuesView());
      typename H::execution_space exec;
      spgemm_numeric(exec, h.m_local, a_now, b_now, c_now);
      exec.fence();
    });
    h.m_times.local = seconds_since(t_local);
    h.m_times.fill = 0;
    agree(*a_in.getComm(), verdict);
    h.m_times.total = seconds_since(start);
  }
};

}  // namespace Impl

/// Symbolic phase of C = op(A)*op(B): plans and performs the import of B's remote rows, analyses the local product,
/// and makes C (A's row map, B's domain map, A's range map; a column map of the columns that occur), values
/// included, fill-complete. Collective. Throws on every rank: DimensionMismatch (op(A)'s domain map is not op(B)'s
/// range map), InvalidInput (a matrix not fill-complete, malformed local arrays), IndexOverflow, OutOfMemory.
template <class Scalar, class LO, class GO, class Node>
void multiply_symbolic(DistributedHandle<Scalar, LO, GO, Node>& handle,
                       const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a, bool transpose_a,
                       const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& b, bool transpose_b,
                       Teuchos::RCP<Tpetra::CrsMatrix<Scalar, LO, GO, Node>>& c) {
  Impl::ProductAccess::symbolic(handle, a, transpose_a, b, transpose_b, c);
}

/// Numeric phase with new values of A and B (same structures on every rank): only the values of B's remote rows
/// travel, then the local numeric replay writes C's values in place. Collective. Throws HandleMismatch on every rank
/// when any rank's structure changed or C is not the handle's.
template <class Scalar, class LO, class GO, class Node>
void multiply_numeric(DistributedHandle<Scalar, LO, GO, Node>& handle, const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a,
                      const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& b, Tpetra::CrsMatrix<Scalar, LO, GO, Node>& c) {
  Impl::ProductAccess::numeric(handle, a, b, c);
}

/// One-shot C = op(A)*op(B) (Tpetra::MatrixMatrix::Multiply's operands; C is made here, fill-complete).
template <class Scalar, class LO, class GO, class Node>
void multiply(const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a, bool transpose_a,
              const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& b, bool transpose_b,
              Teuchos::RCP<Tpetra::CrsMatrix<Scalar, LO, GO, Node>>& c, const Options& options = Options(),
              const Tuning& tuning = Tuning()) {
  DistributedHandle<Scalar, LO, GO, Node> handle(options, tuning);
  multiply_symbolic(handle, a, transpose_a, b, transpose_b, c);
}

/// Analysis of a Galerkin product Ac = R*A*P, or Pᵀ*A*P with R omitted (Pᵀ formed here, never by the user):
/// AP = A*P, then Ac = R*AP, each a distributed product with its own handle.
template <class Scalar, class LO, class GO, class Node>
class GalerkinHandle {
 public:
  using matrix_type = Tpetra::CrsMatrix<Scalar, LO, GO, Node>;
  using product_handle = DistributedHandle<Scalar, LO, GO, Node>;

  explicit GalerkinHandle(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_options(options), m_tuning(tuning), m_ap(options, tuning), m_rap(options, tuning) {}
  bool has_analysis() const { return m_rap.has_analysis(); }
  const product_handle& ap() const { return m_ap; }
  const product_handle& rap() const { return m_rap; }
  /// Ranks' view of A*P, kept between calls (null where fused()).
  const Teuchos::RCP<matrix_type>& ap_matrix() const { return m_ap_matrix; }

  /// Collective. R == nullptr: Ac = Pᵀ*A*P where P and A share their row map without Pᵀ formed across ranks
  /// (Impl::TransposedProduct): on host spaces, for P of at most fused_max_entries_per_row entries a row, without
  /// A*P formed either (one pass of Impl::TripleRowKernel over A's and P's local and imported rows), else from A*P;
  /// other cases through Tpetra's transposer and two products.
  void symbolic(const matrix_type* r, const matrix_type& a, const matrix_type& p, Teuchos::RCP<matrix_type>& ac) {
    m_r_is_pt = r == nullptr;
    m_ptap = std::make_unique<Impl::TransposedProduct<matrix_type>>(m_options, m_tuning);
    m_ap_matrix = Teuchos::null;
    // isSameAs is collective: every rank takes the same branch.
    const bool shared_rows = m_r_is_pt && p.getRowMap()->isSameAs(*a.getRowMap());
    const double p_per_row = p.getGlobalNumRows() > 0 ? static_cast<double>(p.getGlobalNumEntries()) /
                                                            static_cast<double>(p.getGlobalNumRows())
                                                      : 0.0;
    m_fused =
        shared_rows && !BackendTraits<typename Node::execution_space>::is_gpu && p_per_row <= fused_max_entries_per_row;
    if (m_fused) {
      const auto ops = Impl::ProductAccess::analyse_operands(m_ap, a, p);
      ac = m_ptap->symbolic(p, ops.a_local, ops.b_local, ops.union_gids);
      m_transposed_product = true;
      return;
    }
    multiply_symbolic(m_ap, a, false, p, false, m_ap_matrix);
    m_transposed_product = m_r_is_pt && Impl::TransposedProduct<matrix_type>::applies(p, *m_ap_matrix);
    if (m_transposed_product) {
      ac = m_ptap->symbolic(p, *m_ap_matrix);
    } else {
      multiply_symbolic(m_rap, m_r_is_pt ? p : *r, m_r_is_pt, *m_ap_matrix, false, ac);
    }
  }
  void numeric(const matrix_type* r, const matrix_type& a, const matrix_type& p, matrix_type& ac) {
    run_and_agree_r(a, r);
    if (m_fused) {
      const auto ops = Impl::ProductAccess::refreshed_operands(m_ap, a, p, nullptr);
      m_ptap->numeric(p, ops.a_local, ops.b_local, ac);
      return;
    }
    multiply_numeric(m_ap, a, p, *m_ap_matrix);
    if (m_transposed_product) {
      m_ptap->numeric(p, *m_ap_matrix, ac);
    } else {
      multiply_numeric(m_rap, m_r_is_pt ? p : *r, *m_ap_matrix, ac);
    }
  }
  /// Whether Pᵀ*(AP) ran as a transposed product (no Pᵀ formed across ranks).
  bool transposed_product() const { return m_transposed_product; }
  /// Whether it ran without A*P formed (ap_matrix() is then null).
  bool fused() const { return m_fused; }
  /// This rank's times in the last call's second product, R*(AP).
  const PhaseTimes& rap_times() const { return m_transposed_product ? m_ptap->last_times() : m_rap.last_times(); }

 private:
  void run_and_agree_r(const matrix_type& a, const matrix_type* r) const {
    Impl::run_and_agree(*a.getComm(), [&] {
      KOKKOSSPGEMM_REQUIRE(
          (r == nullptr) == m_r_is_pt, KokkosSpGEMM::HandleMismatch, "Distributed::galerkin_numeric",
          (m_r_is_pt ? "the symbolic phase took R = P^T; pass no R" : "the symbolic phase took an R; pass it again"));
    });
  }
  // The one pass recomputes a row of A*P for each entry of P in that row: it pays for prolongators of about one
  // entry a row (tentative ones), and loses to forming A*P once where P's rows are longer (smoothed ones; measured in
  // docs/performance.md).
  static constexpr double fused_max_entries_per_row = 2;
  Options m_options;
  Tuning m_tuning;
  product_handle m_ap, m_rap;
  std::unique_ptr<Impl::TransposedProduct<matrix_type>> m_ptap;
  Teuchos::RCP<matrix_type> m_ap_matrix;
  bool m_r_is_pt = false, m_transposed_product = false, m_fused = false;
};

/// Ac = R*A*P, made here (symbolic) or refreshed in place with new values (numeric). Collective.
template <class Scalar, class LO, class GO, class Node>
void galerkin_symbolic(GalerkinHandle<Scalar, LO, GO, Node>& handle, const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& r,
                       const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a,
                       const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& p,
                       Teuchos::RCP<Tpetra::CrsMatrix<Scalar, LO, GO, Node>>& ac) {
  handle.symbolic(&r, a, p, ac);
}
/// Ac = Pᵀ*A*P without the user forming Pᵀ.
template <class Scalar, class LO, class GO, class Node>
void galerkin_symbolic(GalerkinHandle<Scalar, LO, GO, Node>& handle, const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a,
                       const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& p,
                       Teuchos::RCP<Tpetra::CrsMatrix<Scalar, LO, GO, Node>>& ac) {
  handle.symbolic(nullptr, a, p, ac);
}
template <class Scalar, class LO, class GO, class Node>
void galerkin_numeric(GalerkinHandle<Scalar, LO, GO, Node>& handle, const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& r,
                      const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a,
                      const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& p, Tpetra::CrsMatrix<Scalar, LO, GO, Node>& ac) {
  handle.numeric(&r, a, p, ac);
}
template <class Scalar, class LO, class GO, class Node>
void galerkin_numeric(GalerkinHandle<Scalar, LO, GO, Node>& handle, const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a,
                      const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& p, Tpetra::CrsMatrix<Scalar, LO, GO, Node>& ac) {
  handle.numeric(nullptr, a, p, ac);
}
/// One-shot Ac = R*A*P.
template <class Scalar, class LO, class GO, class Node>
void galerkin(const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& r, const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a,
              const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& p,
              Teuchos::RCP<Tpetra::CrsMatrix<Scalar, LO, GO, Node>>& ac, const Options& options = Options()) {
  GalerkinHandle<Scalar, LO, GO, Node> handle(options);
  galerkin_symbolic(handle, r, a, p, ac);
}
/// One-shot Ac = Pᵀ*A*P.
template <class Scalar, class LO, class GO, class Node>
void galerkin(const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& a, const Tpetra::CrsMatrix<Scalar, LO, GO, Node>& p,
              Teuchos::RCP<Tpetra::CrsMatrix<Scalar, LO, GO, Node>>& ac, const Options& options = Options()) {
  GalerkinHandle<Scalar, LO, GO, Node> handle(options);
  galerkin_symbolic(handle, a, p, ac);
}

}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
