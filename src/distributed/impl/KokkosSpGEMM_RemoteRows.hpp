// The rows of B that A's column map needs and another rank owns. The symbolic phase builds a Tpetra::Import from
// B's row map to those rows and sends, per row, its length, then its columns (as global indices) and values; a
// numeric phase sends only the values, through the same plan, posted before the local work and waited for after
// it. The received rows are kept in the order the plan receives them (grouped by sending rank).
#ifndef KOKKOSSPGEMM_REMOTEROWS_HPP
#define KOKKOSSPGEMM_REMOTEROWS_HPP

#include <compat/KokkosSpGEMM_Compat.hpp>
#include <distributed/impl/KokkosSpGEMM_ColumnSpace.hpp>

#include <Kokkos_Core.hpp>
#include <Teuchos_Array.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_Distributor.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>

#include <cstddef>
#include <vector>

namespace KokkosSpGEMM {
namespace Distributed {
namespace Impl {

template <class Matrix>
class RemoteRows {
 public:
  using LO = typename Matrix::local_ordinal_type;
  using GO = typename Matrix::global_ordinal_type;
  using Node = typename Matrix::node_type;
  using Scalar = typename Matrix::impl_scalar_type;
  using map_type = Tpetra::Map<LO, GO, Node>;
  using import_type = Tpetra::Import<LO, GO, Node>;
  using host_offsets = Kokkos::View<std::size_t*, Kokkos::HostSpace>;
  using host_gids = Kokkos::View<GO*, Kokkos::HostSpace>;
  using host_values = Kokkos::View<Scalar*, Kokkos::HostSpace>;

  /// Collective. remote_gids: the global rows this rank needs and does not own in B's row map, in the order of A's
  /// columns. Where no rank needs any (one rank, or block-diagonal operands), no Import is made: its setup's
  /// collective rounds cost more than the one reduction that finds this. Where B's row map is A's domain map, A's own
  /// Import (domain to column map) already knows who sends each of those rows, and the plan is its remote part, as
  /// Tpetra's own products take it (no directory lookup, no round of messages).
  void plan(const Matrix& a, const Matrix& b, const std::vector<GO>& remote_gids) {
    const auto row_map = b.getRowMap();
    *this = RemoteRows();
    // One reduction: whether any rank needs rows, and whether on some rank A's Import lacks them.
    const auto a_import = a.getGraph()->getImporter();
    const bool own = !a_import.is_null() && a_import->getNumRemoteIDs() == remote_gids.size();
    const long long mine[2] = {static_cast<long long>(remote_gids.size()), own ? 0 : 1};
    long long all[2] = {0, 0};
    Teuchos::reduceAll<int, long long>(*row_map->getComm(), Teuchos::REDUCE_MAX, 2, mine, all);
    if (all[0] == 0) return;
    m_target = map_of(*row_map, remote_gids);
    if (all[1] == 0 && a.getDomainMap()->isSameAs(*row_map)) {
      m_import = a_import->createRemoteOnlyImport(m_target);
    } else {
      m_import = Teuchos::rcp(new import_type(row_map, m_target));
    }
    const auto export_lids = m_import->getExportLIDs();
    const auto remote_lids = m_import->getRemoteLIDs();
    m_export_lids.assign(export_lids.begin(), export_lids.end());
    m_remote_lids.assign(remote_lids.begin(), remote_lids.end());
    // Every target row is remote (none is owned here), so the Import neither keeps nor permutes rows.
    m_position.assign(remote_gids.size(), 0);
    for (std::size_t r = 0; r < m_remote_lids.size(); ++r) m_position[static_cast<std::size_t>(m_remote_lids[r])] = r;

    const auto local = b.getLocalMatrixHost();
    m_export_counts.resize(m_export_lids.size());
    m_export_total = 0;
    for (std::size_t k = 0; k < m_export_lids.size(); ++k) {
      const auto row = static_cast<std::size_t>(m_export_lids[k]);
      m_export_counts[k] = local.graph.row_map(row + 1) - local.graph.row_map(row);
      m_export_total += m_export_counts[k];
    }
    host_offsets send("KokkosSpGEMM::RemoteRows::send_counts", m_export_lids.size());
    for (std::size_t k = 0; k < m_export_lids.size(); ++k) send(k) = m_export_counts[k];
    host_offsets receive("KokkosSpGEMM::RemoteRows::receive_counts", m_remote_lids.size());
    m_import->getDistributor().doPostsAndWaits(send, 1, receive);
    m_import_counts.resize(m_remote_lids.size());
    m_import_total = 0;
    for (std::size_t r = 0; r < m_remote_lids.size(); ++r) {
      m_import_counts[r] = receive(r);
      m_import_total += receive(r);
    }
  }

  /// Number of rows received, in receiving order.
  std::size_t rows() const { return m_remote_lids.size(); }
  /// Receiving position of the row with local index target_lid in the target map (remote_gids' order).
  std::size_t position(LO target_lid) const { return m_position[static_cast<std::size_t>(target_lid)]; }
  /// Lengths of the received rows, in receiving order.
  const Teuchos::Array<std::size_t>& counts() const { return m_import_counts; }
  std::size_t entries() const { return m_import_total; }
  /// Entries this rank sends (the values a numeric phase sends).
  std::size_t sent_entries() const { return m_export_total; }
  /// Rows this rank sends (local rows of B).
  const std::vector<LO>& sent_rows() const { return m_export_lids; }
  const Teuchos::Array<std::size_t>& sent_counts() const { return m_export_counts; }

  /// Collective. The received rows' columns as global indices, in receiving order.
  host_gids import_columns(const Matrix& b) const {
    const auto local = b.getLocalMatrixHost();
    const auto col_map = b.getColMap();
    host_gids send("KokkosSpGEMM::RemoteRows::send_columns", m_export_total);
    std::size_t at = 0;
    for (const LO row : m_export_lids) {
      for (auto e = local.graph.row_map(row); e < local.graph.row_map(row + 1); ++e) {
        send(at++) = col_map->getGlobalElement(local.graph.entries(e));
      }
    }
    host_gids receive("KokkosSpGEMM::RemoteRows::receive_columns", m_import_total);
    if (!m_import.is_null()) {
      m_import->getDistributor().doPostsAndWaits(send, m_export_counts(), receive, m_import_counts());
    }
    return receive;
  }

  /// Collective, first half: packs the sent rows' values of B and posts them. Call finish_values before
  /// reading `receive` or calling another method of this object.
  void start_values(const Matrix& b, const host_values& receive) {
    const auto local = b.getLocalMatrixHost();
    if (m_send.extent(0) != m_export_total) {
      m_send = host_values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::RemoteRows::send_values"),
                           m_export_total);
    }
    std::size_t at = 0;
    for (const LO row : m_export_lids) {
      for (auto e = local.graph.row_map(row); e < local.graph.row_map(row + 1); ++e) m_send(at++) = local.values(e);
    }
    if (!m_import.is_null()) m_import->getDistributor().doPosts(m_send, m_export_counts(), receive, m_import_counts());
  }
  /// Collective, second half: waits for the values posted by start_values.
  void finish_values() {
    if (!m_import.is_null()) m_import->getDistributor().doWaits();
  }

 private:
  Teuchos::RCP<const map_type> m_target;
  Teuchos::RCP<const import_type> m_import;
  std::vector<LO> m_export_lids, m_remote_lids;
  std::vector<std::size_t> m_position;
  Teuchos::Array<std::size_t> m_export_counts, m_import_counts;
  std::size_t m_export_total = 0, m_import_total = 0;
  host_values m_send;
};

}  // namespace Impl
}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
