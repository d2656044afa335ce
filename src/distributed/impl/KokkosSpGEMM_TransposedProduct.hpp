// C = Pᵀ·M for distributed P and M with the same row map (a Galerkin product's Pᵀ·(AP)), without forming Pᵀ across
// ranks: each rank multiplies the transpose of its own rows of P by its own rows of M (a partial C whose rows are
// P's columns on this rank), then sends each partial row to the rank that owns that row of C (P's domain map), which
// sums the contributions. On host spaces M = A·P is not formed either: the partial C comes from one pass over the
// local transpose's rows (Impl::TripleRowKernel) with A's local rows and P's local and imported rows. The symbolic
// phase sends lengths, global columns and values and lays C out; numeric calls refresh the local transpose's values
// through its source map, replay the local product, send values only and add them at positions found once.
#ifndef KOKKOSSPGEMM_TRANSPOSEDPRODUCT_HPP
#define KOKKOSSPGEMM_TRANSPOSEDPRODUCT_HPP

#include <KokkosSpGEMM.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <distributed/impl/KokkosSpGEMM_CollectiveErrors.hpp>
#include <distributed/impl/KokkosSpGEMM_ColumnSpace.hpp>
#include <distributed/impl/KokkosSpGEMM_LocalMatrices.hpp>
#include <distributed/impl/KokkosSpGEMM_PhaseTimes.hpp>
#include <impl/accumulate/KokkosSpGEMM_TripleRowKernel.hpp>
#include <operations/KokkosSpGEMM_Transpose.hpp>

#include <Kokkos_Core.hpp>
#include <Teuchos_Array.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Distributor.hpp>
#include <Tpetra_Export.hpp>
#include <Tpetra_Import.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace KokkosSpGEMM {
namespace Distributed {
namespace Impl {

template <class Matrix>
class TransposedProduct {
 public:
  using LO = typename Matrix::local_ordinal_type;
  using GO = typename Matrix::global_ordinal_type;
  using Node = typename Matrix::node_type;
  using S = typename Matrix::impl_scalar_type;
  using Space = typename Node::memory_space;
  using Exec = typename Node::execution_space;
  using local_matrix_type = CsrMatrix<S, LO, std::size_t, Space>;
  using local_handle_type = Handle<Exec, S, LO, std::size_t>;
  using export_type = Tpetra::Export<LO, GO, Node>;
  using map_type = Tpetra::Map<LO, GO, Node>;

  explicit TransposedProduct(const Options& options = Options(), const Tuning& tuning = Tuning())
      : m_local(local_handle_options(options), tuning) {}

  /// Whether the product applies: P's and M's row maps are the same.
  static bool applies(const Matrix& p, const Matrix& m) { return p.getRowMap()->isSameAs(*m.getRowMap()); }

  /// Collective. Makes C = Pᵀ·M (rows: P's domain map; domain map: M's domain map), values included, from the
  /// local product of the transpose of P's rows by M's rows.
  Teuchos::RCP<Matrix> symbolic(const Matrix& p, const Matrix& m) {
    const auto start = std::chrono::steady_clock::now();
    m_times = PhaseTimes();
    using KokkosSpGEMM::Impl::tpetra_local_num_elements;
    const std::size_t n_mc = tpetra_local_num_elements(*m.getColMap());
    const auto p_view = local_view<local_matrix_type>(p, tpetra_local_num_elements(*p.getColMap()));
    const auto m_view = local_view<local_matrix_type>(m, n_mc);
    LocalVerdict verdict;
    run_locally(verdict, [&] {
      m_fused = false;
      m_second_nnz = m_view.nnz();
      Exec exec;
      transpose_rows(exec, p_view);
      spgemm_symbolic(exec, m_local, m_pt.t, m_view, m_partial);
      spgemm_numeric(exec, m_local, m_pt.t, m_view, m_partial);
      exec.fence();
    });
    m_times.local = seconds_since(start);
    agree(*p.getComm(), verdict);
    std::vector<GO> gids(n_mc);
    const IndexLookup<map_type> m_cols(*m.getColMap());
    for (std::size_t j = 0; j < n_mc; ++j) gids[j] = m_cols.global(static_cast<LO>(j));
    return assemble(p, gids, m.getDomainMap(), start);
  }

  /// Collective. Makes C = Pᵀ·A·P as above with M = A·P never formed: the local part is one pass over the rows of
  /// the transpose of P's rows (Impl::TripleRowKernel), with A's local rows over the rows of p_ext (P's local and
  /// received rows), whose columns are the global columns col_gids; domain: P's domain map.
  Teuchos::RCP<Matrix> symbolic(const Matrix& p, const local_matrix_type& a_local, const local_matrix_type& p_ext,
                                const std::vector<GO>& col_gids) {
    const auto start = std::chrono::steady_clock::now();
    m_times = PhaseTimes();
    using KokkosSpGEMM::Impl::tpetra_local_num_elements;
    const auto p_view = local_view<local_matrix_type>(p, tpetra_local_num_elements(*p.getColMap()));
    LocalVerdict verdict;
    run_locally(verdict, [&] {
      m_fused = true;
      m_second_nnz = a_local.nnz();
      Exec exec;
      transpose_rows(exec, p_view);
      KokkosSpGEMM::Impl::triple_rows_product(exec, m_pt.t, a_local, p_ext, m_partial);
      exec.fence();
    });
    m_times.local = seconds_since(start);
    agree(*p.getComm(), verdict);
    return assemble(p, col_gids, p.getDomainMap(), start);
  }

  /// Collective. New values of P and M (same structures on every rank), summed into C in place.
  void numeric(const Matrix& p, const Matrix& m, Matrix& c) {
    using KokkosSpGEMM::Impl::tpetra_local_num_elements;
    const auto m_view = local_view<local_matrix_type>(m, tpetra_local_num_elements(*m.getColMap()));
    numeric_with(p, c, m_view.nnz(), false, [&](Exec& exec) {
      spgemm_numeric(exec, m_local, m_pt.t, m_view, m_partial);
      return true;
    });
  }

  /// Collective. New values of P and A (same structures on every rank; p_ext: P's local and received rows with
  /// their new values) into C in place, M = A·P never formed.
  void numeric(const Matrix& p, const local_matrix_type& a_local, const local_matrix_type& p_ext, Matrix& c) {
    numeric_with(p, c, a_local.nnz(), true, [&](Exec& exec) {
      return KokkosSpGEMM::Impl::triple_rows_refresh(exec, m_pt.t, a_local, p_ext, m_partial);
    });
  }

  /// This rank's times in the last call (fill: laying out C and summing the contributions into it).
  const PhaseTimes& last_times() const { return m_times; }

  const local_handle_type& local_handle() const { return m_local; }

 private:
  /// The transpose of P's local rows, with its source map for numeric calls.
  void transpose_rows(Exec& exec, const local_matrix_type& p_view) {
    m_p_nnz = p_view.nnz();
    m_rows = static_cast<std::size_t>(p_view.num_rows());
    m_pt = transpose_with_source<std::size_t>(exec, p_view);
  }

  /// The partial rows (P's column map) to the owners of C's rows (P's domain map), then C laid out over the
  /// columns they bring (col_gids: the partial product's global columns), made fill-complete with its values.
  Teuchos::RCP<Matrix> assemble(const Matrix& p, const std::vector<GO>& col_gids,
                                const Teuchos::RCP<const map_type>& domain,
                                std::chrono::steady_clock::time_point start) {
    const auto t_import = std::chrono::steady_clock::now();
    m_export = Teuchos::rcp(new export_type(p.getColMap(), p.getDomainMap()));
    const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_partial.row_map());
    const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_partial.entries());
    const auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_partial.values());
    const auto exports = m_export->getExportLIDs();
    m_sent_rows.assign(exports.begin(), exports.end());
    m_send_counts.resize(m_sent_rows.size());
    std::size_t send_total = 0;
    for (std::size_t k = 0; k < m_sent_rows.size(); ++k) {
      const auto r = static_cast<std::size_t>(m_sent_rows[k]);
      m_send_counts[k] = rows(r + 1) - rows(r);
      send_total += m_send_counts[k];
    }
    const auto remote = m_export->getRemoteLIDs();
    m_received_rows.assign(remote.begin(), remote.end());
    Kokkos::View<std::size_t*, Kokkos::HostSpace> send_counts("send_counts", m_sent_rows.size()),
        receive_counts("receive_counts", m_received_rows.size());
    for (std::size_t k = 0; k < m_sent_rows.size(); ++k) send_counts(k) = m_send_counts[k];
    auto& distributor = m_export->getDistributor();
    distributor.doPostsAndWaits(send_counts, 1, receive_counts);
    m_receive_counts.resize(m_received_rows.size());
    std::size_t receive_total = 0;
    for (std::size_t k = 0; k < m_received_rows.size(); ++k) {
      m_receive_counts[k] = receive_counts(k);
      receive_total += receive_counts(k);
    }
    Kokkos::View<GO*, Kokkos::HostSpace> send_gids("send_gids", send_total),
        receive_gids("receive_gids", receive_total);
    m_send_values = Kokkos::View<S*, Kokkos::HostSpace>("send_values", send_total);
    m_receive_values = Kokkos::View<S*, Kokkos::HostSpace>("receive_values", receive_total);
    std::size_t at = 0;
    for (const LO r : m_sent_rows) {
      for (auto e = rows(r); e < rows(r + 1); ++e, ++at) {
        send_gids(at) = col_gids[static_cast<std::size_t>(cols(e))];
        m_send_values(at) = vals(e);
      }
    }
    distributor.doPostsAndWaits(send_gids, m_send_counts(), receive_gids, m_receive_counts());
    distributor.doPostsAndWaits(m_send_values, m_send_counts(), m_receive_values, m_receive_counts());
    m_times.import = seconds_since(t_import);

    // The partial rows this rank keeps: the first getNumSameIDs() rows map to the same local row of C, then the
    // permuted ones.
    const std::size_t same = m_export->getNumSameIDs();
    const auto from = m_export->getPermuteFromLIDs();
    const auto to = m_export->getPermuteToLIDs();
    m_kept_from.resize(same);
    m_kept_to.resize(same);
    for (std::size_t r = 0; r < same; ++r) m_kept_from[r] = m_kept_to[r] = static_cast<LO>(r);
    m_kept_from.insert(m_kept_from.end(), from.begin(), from.end());
    m_kept_to.insert(m_kept_to.end(), to.begin(), to.end());
    const std::size_t n_c = KokkosSpGEMM::Impl::tpetra_local_num_elements(*p.getDomainMap());
    // Every partial row is row r of C and nothing travels (one rank): C's rows are the partial rows with their
    // columns relabelled, and each contribution's place its own index.
    m_in_place = m_sent_rows.empty() && m_received_rows.empty() && from.size() == 0 && same == n_c &&
                 static_cast<std::size_t>(m_partial.num_rows()) == n_c;

    // C's columns: every global column a contribution brings, ordered as a column map over the domain map.
    const std::size_t n_pc = col_gids.size();
    std::vector<char> used(n_pc, 0);
    for (const LO r : m_kept_from) {
      for (auto e = rows(r); e < rows(r + 1); ++e) used[static_cast<std::size_t>(cols(e))] = 1;
    }
    std::vector<GO> gids;
    for (std::size_t j = 0; j < n_pc; ++j) {
      if (used[j]) gids.push_back(col_gids[j]);
    }
    gids.insert(gids.end(), receive_gids.data(), receive_gids.data() + receive_total);
    const std::vector<GO> c_gids = column_map_order(*domain, std::move(gids));
    const auto c_cols = map_of(*p.getColMap(), c_gids);
    std::vector<LO> partial_to_c(n_pc, 0);
    for (std::size_t j = 0; j < n_pc; ++j) {
      if (used[j]) partial_to_c[j] = c_cols->getLocalElement(col_gids[j]);
    }
    std::vector<LO> received_c_cols(receive_total);
    for (std::size_t e = 0; e < receive_total; ++e) received_c_cols[e] = c_cols->getLocalElement(receive_gids(e));

    typename Matrix::local_graph_device_type::row_map_type::non_const_type c_row_map("KokkosSpGEMM::PtAP::rows",
                                                                                     n_c + 1);
    auto c_rows_host = Kokkos::create_mirror_view(c_row_map);
    if (m_in_place && in_place_rows(rows, cols, partial_to_c, c_rows_host)) {
      return in_place_matrix(p, domain, c_cols, c_row_map, c_rows_host, cols, partial_to_c, vals, start);
    }
    m_in_place = false;
    // C's rows: each row's contributions (kept, then received) in one array, sorted and merged by C's column.
    std::vector<std::size_t> start_of(n_c + 1, 0);
    for (std::size_t k = 0; k < m_kept_from.size(); ++k) {
      start_of[static_cast<std::size_t>(m_kept_to[k]) + 1] += rows(m_kept_from[k] + 1) - rows(m_kept_from[k]);
    }
    for (std::size_t k = 0; k < m_received_rows.size(); ++k) {
      start_of[static_cast<std::size_t>(m_received_rows[k]) + 1] += m_receive_counts[k];
    }
    for (std::size_t i = 0; i < n_c; ++i) start_of[i + 1] += start_of[i];
    std::vector<LO> all(start_of[n_c]);
    {
      std::vector<std::size_t> fill(start_of.begin(), start_of.end() - 1);
      for (std::size_t k = 0; k < m_kept_from.size(); ++k) {
        auto& f = fill[static_cast<std::size_t>(m_kept_to[k])];
        for (auto e = rows(m_kept_from[k]); e < rows(m_kept_from[k] + 1); ++e) {
          all[f++] = partial_to_c[static_cast<std::size_t>(cols(e))];
        }
      }
      at = 0;
      for (std::size_t k = 0; k < m_received_rows.size(); ++k) {
        auto& f = fill[static_cast<std::size_t>(m_received_rows[k])];
        for (std::size_t e = 0; e < m_receive_counts[k]; ++e) all[f++] = received_c_cols[at++];
      }
    }
    c_rows_host(0) = 0;
    for (std::size_t i = 0; i < n_c; ++i) {
      const auto begin = all.begin() + static_cast<std::ptrdiff_t>(start_of[i]);
      const auto end = all.begin() + static_cast<std::ptrdiff_t>(start_of[i + 1]);
      if (!std::is_sorted(begin, end)) std::sort(begin, end);  // one rank's rows come sorted
      c_rows_host(i + 1) = c_rows_host(i) + static_cast<std::size_t>(std::unique(begin, end) - begin);
    }
    const std::size_t c_nnz = c_rows_host(n_c);
    typename Matrix::local_graph_device_type::entries_type::non_const_type c_entries("KokkosSpGEMM::PtAP::cols", c_nnz);
    auto c_entries_host = Kokkos::create_mirror_view(c_entries);
    for (std::size_t i = 0; i < n_c; ++i) {
      std::copy(all.begin() + static_cast<std::ptrdiff_t>(start_of[i]),
                all.begin() + static_cast<std::ptrdiff_t>(start_of[i] + c_rows_host(i + 1) - c_rows_host(i)),
                c_entries_host.data() + c_rows_host(i));
    }
    // Each contribution's place in C: a row of C's columns spread over a dense array of C's columns, then read at
    // the columns of the contributions to that row (every one of them is in the row, which is their union).
    std::vector<std::size_t> place(c_gids.size());
    auto spread_row = [&](std::size_t row) {
      for (auto j = c_rows_host(row); j < c_rows_host(row + 1); ++j) {
        place[static_cast<std::size_t>(c_entries_host(j))] = j;
      }
    };
    std::size_t kept_total = 0;
    for (const LO r : m_kept_from) kept_total += rows(r + 1) - rows(r);
    m_kept_positions.resize(kept_total);
    at = 0;
    for (std::size_t k = 0; k < m_kept_from.size(); ++k) {
      const auto r = static_cast<std::size_t>(m_kept_from[k]);
      spread_row(static_cast<std::size_t>(m_kept_to[k]));
      for (auto e = rows(r); e < rows(r + 1); ++e) {
        m_kept_positions[at++] = place[static_cast<std::size_t>(partial_to_c[static_cast<std::size_t>(cols(e))])];
      }
    }
    m_received_positions.resize(receive_total);
    at = 0;
    for (std::size_t k = 0; k < m_received_rows.size(); ++k) {
      spread_row(static_cast<std::size_t>(m_received_rows[k]));
      for (std::size_t e = 0; e < m_receive_counts[k]; ++e, ++at) {
        m_received_positions[at] = place[static_cast<std::size_t>(received_c_cols[at])];
      }
    }
    Kokkos::deep_copy(c_row_map, c_rows_host);
    Kokkos::deep_copy(c_entries, c_entries_host);
    return finish_matrix(p, domain, c_cols, c_row_map, c_entries, vals, start);
  }

  /// With m_in_place: C's row offsets are the partial's, its rows' columns the partial's relabelled, which must
  /// stay sorted (the relabelling keeps the column-map order of col_gids; false, for the general layout, where a
  /// row would not).
  template <class Rows, class Cols, class CRows>
  static bool in_place_rows(const Rows& rows, const Cols& cols, const std::vector<LO>& partial_to_c,
                            const CRows& c_rows) {
    if (rows.extent(0) == 0) {  // a partial product without rows may have no offsets at all
      c_rows(0) = 0;
      return true;
    }
    for (std::size_t i = 0; i + 1 < rows.extent(0); ++i) {
      c_rows(i) = rows(i);
      for (auto e = rows(i) + 1; e < rows(i + 1); ++e) {
        if (partial_to_c[static_cast<std::size_t>(cols(e - 1))] >= partial_to_c[static_cast<std::size_t>(cols(e))]) {
          return false;
        }
      }
    }
    c_rows(rows.extent(0) - 1) = rows(rows.extent(0) - 1);
    return true;
  }

  template <class RowMap, class CRows, class Cols, class Values>
  Teuchos::RCP<Matrix> in_place_matrix(const Matrix& p, const Teuchos::RCP<const map_type>& domain,
                                       const Teuchos::RCP<const map_type>& c_cols, const RowMap& c_row_map,
                                       const CRows& c_rows_host, const Cols& cols, const std::vector<LO>& partial_to_c,
                                       const Values& vals, std::chrono::steady_clock::time_point start) {
    const std::size_t c_nnz = c_rows_host(c_rows_host.extent(0) - 1);
    typename Matrix::local_graph_device_type::entries_type::non_const_type c_entries(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::PtAP::cols"), c_nnz);
    auto c_entries_host = Kokkos::create_mirror_view(c_entries);
    for (std::size_t e = 0; e < c_nnz; ++e) c_entries_host(e) = partial_to_c[static_cast<std::size_t>(cols(e))];
    m_kept_positions.clear();
    m_received_positions.clear();
    Kokkos::deep_copy(c_row_map, c_rows_host);
    Kokkos::deep_copy(c_entries, c_entries_host);
    return finish_matrix(p, domain, c_cols, c_row_map, c_entries, vals, start);
  }

  /// C from its layout, its values summed from the contributions, made fill-complete.
  template <class RowMap, class Entries, class Values>
  Teuchos::RCP<Matrix> finish_matrix(const Matrix& p, const Teuchos::RCP<const map_type>& domain,
                                     const Teuchos::RCP<const map_type>& c_cols, const RowMap& c_row_map,
                                     const Entries& c_entries, const Values& vals,
                                     std::chrono::steady_clock::time_point start) {
    typename Matrix::local_matrix_device_type::values_type c_values(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::PtAP::values"), c_entries.extent(0));
    auto c = Teuchos::rcp(new Matrix(p.getDomainMap(), c_cols, c_row_map, c_entries, c_values));
    add_contributions(*c, vals);
    const auto c_import = Teuchos::rcp(new Tpetra::Import<LO, GO, Node>(domain, c_cols));
    c->expertStaticFillComplete(domain, p.getDomainMap(), c_import);
    m_c = c.get();
    m_times.total = seconds_since(start);
    m_times.fill = m_times.total - m_times.local - m_times.import;
    return c;
  }

  /// A numeric call: checks, the local product (local: false when it found a changed structure), then the partial
  /// rows' values to their owners, summed into C.
  template <class Local>
  void numeric_with(const Matrix& p, Matrix& c, std::size_t second_nnz, bool fused, Local&& local) {
    const auto start = std::chrono::steady_clock::now();
    m_times = PhaseTimes();
    const char* function = "Distributed::galerkin_numeric";
    using KokkosSpGEMM::Impl::tpetra_local_num_elements;
    const auto p_view = local_view<local_matrix_type>(p, tpetra_local_num_elements(*p.getColMap()));
    const char* changed = fused ? "P's or A's local structure changed since the symbolic phase"
                                : "P's or A*P's local structure changed since the symbolic phase";
    LocalVerdict verdict;
    run_locally(verdict, [&] {
      KOKKOSSPGEMM_REQUIRE(&c == m_c && fused == m_fused, KokkosSpGEMM::HandleMismatch, function,
                           "Ac is not the matrix this handle's symbolic phase made");
      KOKKOSSPGEMM_REQUIRE(p_view.nnz() == m_p_nnz && second_nnz == m_second_nnz &&
                               static_cast<std::size_t>(p_view.num_rows()) == m_rows,
                           KokkosSpGEMM::HandleMismatch, function, changed);
      Exec exec;
      refresh_transpose_values(exec, m_pt, p_view);
      const bool same = local(exec);
      exec.fence();
      KOKKOSSPGEMM_REQUIRE(same, KokkosSpGEMM::HandleMismatch, function, changed);
    });
    m_times.local = seconds_since(start);
    agree(*p.getComm(), verdict);
    const auto t_import = std::chrono::steady_clock::now();
    const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_partial.row_map());
    const auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_partial.values());
    std::size_t at = 0;
    for (const LO r : m_sent_rows) {
      for (auto e = rows(r); e < rows(r + 1); ++e) m_send_values(at++) = vals(e);
    }
    auto& distributor = m_export->getDistributor();
    distributor.doPosts(m_send_values, m_send_counts(), m_receive_values, m_receive_counts());
    distributor.doWaits();
    m_times.import = seconds_since(t_import);
    add_contributions(c, vals);
    m_times.total = seconds_since(start);
    m_times.fill = m_times.total - m_times.local - m_times.import;
  }

  /// C's values = the kept partial rows' values + the received ones, at the positions found by symbolic.
  template <class Values>
  void add_contributions(Matrix& c, const Values& partial) {
    auto values = c.getLocalValuesView();
    auto host = Kokkos::create_mirror_view(values);
    if (m_in_place) {  // each contribution's place is its own index
      for (std::size_t e = 0; e < host.extent(0); ++e) host(e) = partial(e);
      Kokkos::deep_copy(values, host);
      return;
    }
    Kokkos::deep_copy(host, S(0));
    const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_partial.row_map());
    std::size_t at = 0;
    for (const LO r : m_kept_from) {
      for (auto e = rows(r); e < rows(r + 1); ++e) host(m_kept_positions[at++]) += partial(e);
    }
    for (std::size_t e = 0; e < m_received_positions.size(); ++e) {
      host(m_received_positions[e]) += m_receive_values(e);
    }
    Kokkos::deep_copy(values, host);
  }

  local_handle_type m_local;
  TransposeWithSource<S, LO, std::size_t, Space> m_pt;
  local_matrix_type m_partial;
  Teuchos::RCP<const export_type> m_export;
  std::vector<LO> m_sent_rows, m_received_rows, m_kept_from, m_kept_to;
  Teuchos::Array<std::size_t> m_send_counts, m_receive_counts;
  std::vector<std::size_t> m_kept_positions, m_received_positions;
  Kokkos::View<S*, Kokkos::HostSpace> m_send_values, m_receive_values;
  // nnz of P's local rows and of the second operand's (M's, or A's in one pass), and P's local rows.
  std::size_t m_p_nnz = 0, m_second_nnz = 0, m_rows = 0;
  bool m_fused = false;
  bool m_in_place = false;  // C's layout is the partial's (one rank): no positions kept
  const Matrix* m_c = nullptr;
  PhaseTimes m_times;
};

}  // namespace Impl
}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
