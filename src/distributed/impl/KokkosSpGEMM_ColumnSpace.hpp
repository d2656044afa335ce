// Column spaces of a distributed product. The local product runs over the union U of the global columns of B's
// local rows and of the imported rows, ordered as Tpetra orders a column map (the columns this rank owns in the
// domain map first, in domain-map order, then the others grouped by owning rank, by global index within a rank).
// C's column map keeps the columns of U that occur in C, in U's order, so C's rows stay sorted when relabelled.
#ifndef KOKKOSSPGEMM_COLUMNSPACE_HPP
#define KOKKOSSPGEMM_COLUMNSPACE_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <Teuchos_Array.hpp>
#include <Teuchos_CommHelpers.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_Map.hpp>

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <vector>

namespace KokkosSpGEMM {
namespace Distributed {
namespace Impl {

/// A map's global and local indices, by arithmetic where the map is contiguous (every map on one rank, rows
/// distributed by contiguous blocks), as Tpetra's own lookups compute them there, and otherwise global indices from
/// the map's own array and local ones through Tpetra's lookup: a call an index was the cost of the symbolic call's
/// walks over A's and B's columns (docs/performance.md, v46 and v68).
template <class Map>
class IndexLookup {
 public:
  using LO = typename Map::local_ordinal_type;
  using GO = typename Map::global_ordinal_type;
  explicit IndexLookup(const Map& map)
      : m_map(map),
        m_size(static_cast<GO>(KokkosSpGEMM::Impl::tpetra_local_num_elements(map))),
        m_contiguous(map.isContiguous() && m_size > 0),
        m_first(m_contiguous ? map.getMinGlobalIndex() : GO(0)),
        m_list(m_contiguous || m_size == 0 ? nullptr : KokkosSpGEMM::Impl::tpetra_local_element_list(map)) {}
  /// The global index of local index lid (lid < the map's local size).
  GO global(LO lid) const { return m_contiguous ? m_first + static_cast<GO>(lid) : m_list[lid]; }
  /// The local index of global index g, or Teuchos::OrdinalTraits<LO>::invalid() where this rank lacks it.
  LO local(GO g) const {
    if (!m_contiguous) return m_map.getLocalElement(g);
    return g >= m_first && g - m_first < m_size ? static_cast<LO>(g - m_first) : Teuchos::OrdinalTraits<LO>::invalid();
  }

 private:
  const Map& m_map;
  GO m_size = 0;
  bool m_contiguous = false;
  GO m_first = 0;
  const GO* m_list = nullptr;
};

/// Collective. The global indices `gids` (duplicates allowed) in column-map order over `domain`. Throws
/// DimensionMismatch (on every rank) when a column is in no rank's part of the domain map.
template <class Map>
std::vector<typename Map::global_ordinal_type> column_map_order(const Map& domain,
                                                                std::vector<typename Map::global_ordinal_type> gids) {
  using GO = typename Map::global_ordinal_type;
  using LO = typename Map::local_ordinal_type;
  // The owned columns are marked by local index (no sort of them: they are most of a column map); only the remote
  // ones are sorted, and duplicates dropped.
  const IndexLookup<Map> lookup(domain);
  std::vector<unsigned char> is_owned(KokkosSpGEMM::Impl::tpetra_local_num_elements(domain), 0);
  std::vector<GO> remote;
  for (const GO g : gids) {
    const LO lid = lookup.local(g);
    if (lid != Teuchos::OrdinalTraits<LO>::invalid()) {
      is_owned[static_cast<std::size_t>(lid)] = 1;
    } else {
      remote.push_back(g);
    }
  }
  if (!std::is_sorted(remote.begin(), remote.end())) std::sort(remote.begin(), remote.end());
  remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
  std::vector<LO> owned;
  for (std::size_t lid = 0; lid < is_owned.size(); ++lid) {
    if (is_owned[lid]) owned.push_back(static_cast<LO>(lid));
  }
  Teuchos::Array<int> pids(remote.size());
  const auto status =
      domain.getRemoteIndexList(Teuchos::ArrayView<const GO>(remote.data(), remote.size()), pids());  // collective
  int missing = status == Tpetra::IDNotPresent ? 1 : 0, any_missing = 0;
  Teuchos::reduceAll<int, int>(*domain.getComm(), Teuchos::REDUCE_MAX, missing, Teuchos::outArg(any_missing));
  KOKKOSSPGEMM_REQUIRE(any_missing == 0, DimensionMismatch, "Distributed::multiply",
                       "a column of B (or of an imported row of B) is not in B's domain map on any rank");
  std::vector<std::tuple<int, GO>> by_rank(remote.size());
  for (std::size_t k = 0; k < remote.size(); ++k) by_rank[k] = std::make_tuple(pids[k], remote[k]);
  std::sort(by_rank.begin(), by_rank.end());
  std::vector<GO> order;
  order.reserve(owned.size() + remote.size());
  for (const LO lid : owned) order.push_back(lookup.global(lid));
  for (const auto& t : by_rank) order.push_back(std::get<1>(t));
  return order;
}

/// Collective. A map of the given global indices, in that order, on `like`'s communicator and index base.
template <class Map>
Teuchos::RCP<const Map> map_of(const Map& like, const std::vector<typename Map::global_ordinal_type>& gids) {
  using GO = typename Map::global_ordinal_type;
  return Teuchos::rcp(new Map(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                              Teuchos::ArrayView<const GO>(gids.data(), gids.size()), like.getIndexBase(),
                              like.getComm()));
}

}  // namespace Impl
}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
