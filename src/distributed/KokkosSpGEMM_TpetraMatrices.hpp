// Distributed matrices for tests, benchmarks and the tool: row maps of several layouts and a global matrix held on
// rank 0 spread over them (Tpetra's Matrix Market reader does the same: one rank reads, an Export distributes).
#ifndef KOKKOSSPGEMM_TPETRAMATRICES_HPP
#define KOKKOSSPGEMM_TPETRAMATRICES_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <Teuchos_Array.hpp>
#include <Teuchos_CommHelpers.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Export.hpp>
#include <Tpetra_Map.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace KokkosSpGEMM {
namespace Distributed {

/// How rows are spread over ranks.
enum class RowLayout {
  Contiguous,  ///< Tpetra's uniform contiguous map
  Cyclic,      ///< row i on rank i mod P
  Random,      ///< a seeded random permutation, cut in P nearly equal parts
  FirstEmpty   ///< rank 0 owns no row (when P > 1), the others contiguous parts
};

inline RowLayout row_layout_from_name(const std::string& name) {
  if (name == "contiguous") return RowLayout::Contiguous;
  if (name == "cyclic") return RowLayout::Cyclic;
  if (name == "random") return RowLayout::Random;
  if (name == "first-empty") return RowLayout::FirstEmpty;
  throw InvalidInput("KokkosSpGEMM::Distributed: unknown row layout '" + name +
                     "' (contiguous, cyclic, random, first-empty)");
}

/// Collective. A one-to-one map of n global indices (0-based) laid out as asked.
template <class Map>
Teuchos::RCP<const Map> make_row_map(RowLayout layout, std::int64_t n,
                                     const Teuchos::RCP<const Teuchos::Comm<int>>& comm, std::uint64_t seed = 1) {
  using GO = typename Map::global_ordinal_type;
  const auto global = static_cast<Tpetra::global_size_t>(n);
  const int p = comm->getSize(), r = comm->getRank();
  if (layout == RowLayout::Contiguous) return Teuchos::rcp(new Map(global, GO(0), comm));
  std::vector<GO> mine;
  if (layout == RowLayout::Cyclic) {
    for (std::int64_t i = r; i < n; i += p) mine.push_back(static_cast<GO>(i));
  } else if (layout == RowLayout::Random) {
    std::vector<GO> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), GO(0));
    std::mt19937_64 rng(seed);  // the same permutation on every rank
    std::shuffle(order.begin(), order.end(), rng);
    const std::int64_t begin = n * r / p, end = n * (r + 1) / p;
    mine.assign(order.begin() + begin, order.begin() + end);
    std::sort(mine.begin(), mine.end());
  } else {
    const int parts = p > 1 ? p - 1 : 1, part = p > 1 ? r - 1 : 0;
    if (p == 1 || r > 0) {
      const std::int64_t begin = n * part / parts, end = n * (part + 1) / parts;
      for (std::int64_t i = begin; i < end; ++i) mine.push_back(static_cast<GO>(i));
    }
  }
  return Teuchos::rcp(new Map(global, Teuchos::ArrayView<const GO>(mine.data(), mine.size()), GO(0), comm));
}

/// Collective. The global matrix `global` (read on rank 0 only; other ranks may pass an empty one) as a
/// fill-complete Tpetra matrix with the given row map, and domain and range maps (the row map when null; a
/// rectangular matrix needs its domain map). Every rank throws InvalidInput when rank 0's matrix does not fit the
/// maps.
template <class Matrix, class S, class O, class F>
Teuchos::RCP<Matrix> distribute(const CsrMatrix<S, O, F, Kokkos::HostSpace>& global,
                                const Teuchos::RCP<const typename Matrix::map_type>& row_map,
                                Teuchos::RCP<const typename Matrix::map_type> domain_map = Teuchos::null,
                                Teuchos::RCP<const typename Matrix::map_type> range_map = Teuchos::null) {
  using Map = typename Matrix::map_type;
  using GO = typename Matrix::global_ordinal_type;
  using Scalar = typename Matrix::scalar_type;
  const auto comm = row_map->getComm();
  if (domain_map.is_null()) domain_map = row_map;
  if (range_map.is_null()) range_map = row_map;
  const bool root = comm->getRank() == 0;
  long long fits = 1, all_fit = 0;
  if (root) {
    fits = static_cast<long long>(global.num_rows()) == static_cast<long long>(row_map->getGlobalNumElements()) &&
           static_cast<long long>(global.num_cols()) == static_cast<long long>(domain_map->getGlobalNumElements());
  }
  Teuchos::reduceAll<int, long long>(*comm, Teuchos::REDUCE_MIN, fits, Teuchos::outArg(all_fit));
  KOKKOSSPGEMM_REQUIRE(all_fit == 1, InvalidInput, "Distributed::distribute",
                       "the matrix's dimensions do not match the row map and domain map");
  const std::size_t here = root ? static_cast<std::size_t>(global.num_rows()) : 0;
  const auto root_map = Teuchos::rcp(new Map(row_map->getGlobalNumElements(), here, GO(0), comm));
  std::vector<std::size_t> lengths(here);
  for (std::size_t i = 0; i < here; ++i) lengths[i] = global.row_map()(i + 1) - global.row_map()(i);
  auto on_root = Teuchos::rcp(new Matrix(root_map, Teuchos::ArrayView<const std::size_t>(lengths.data(), here)));
  std::vector<GO> cols;
  std::vector<Scalar> vals;
  for (std::size_t i = 0; i < here; ++i) {
    cols.clear();
    vals.clear();
    for (auto e = global.row_map()(i); e < global.row_map()(i + 1); ++e) {
      cols.push_back(static_cast<GO>(global.entries()(e)));
      vals.push_back(static_cast<Scalar>(global.values()(e)));
    }
    on_root->insertGlobalValues(static_cast<GO>(i), Teuchos::ArrayView<const GO>(cols.data(), cols.size()),
                                Teuchos::ArrayView<const Scalar>(vals.data(), vals.size()));
  }
  on_root->fillComplete(domain_map, range_map);
  std::size_t longest = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  Teuchos::broadcast<int, std::size_t>(*comm, 0, &longest);
  auto out = Teuchos::rcp(new Matrix(row_map, longest));
  Tpetra::Export<typename Matrix::local_ordinal_type, GO, typename Matrix::node_type> spread(root_map, row_map);
  out->doExport(*on_root, spread, Tpetra::INSERT);
  out->fillComplete(domain_map, range_map);
  return out;
}

/// Adds this rank's global row g of m to `row` (column -> value, duplicates summed).
template <class Matrix>
void add_global_row(const Matrix& m, typename Matrix::global_ordinal_type g,
                    std::map<typename Matrix::global_ordinal_type, typename Matrix::scalar_type>& row) {
  const std::size_t n = m.getNumEntriesInGlobalRow(g);
  Teuchos::Array<typename Matrix::global_ordinal_type> cols(n);
  Teuchos::Array<typename Matrix::scalar_type> vals(n);
  std::size_t got = 0;
  m.getGlobalRowCopy(g, cols(), vals(), got);
  for (std::size_t e = 0; e < got; ++e) row[cols[e]] += vals[e];
}

/// Entries of this rank's rows of x that differ from a reference (by global row and column; values to `tolerance`
/// relative, at least absolute). reference(g, row) adds global row g of the reference to `row` (column -> value);
/// duplicates are summed on both sides. A row counts once per differing entry, or once when the columns differ.
template <class Matrix, class Reference>
long long mismatched_entries(const Matrix& x, const Reference& reference, double tolerance) {
  using GO = typename Matrix::global_ordinal_type;
  using Scalar = typename Matrix::scalar_type;
  long long bad = 0;
  const auto rows = x.getRowMap();
  for (std::size_t i = 0; i < KokkosSpGEMM::Impl::tpetra_local_num_elements(*rows); ++i) {
    const GO g = rows->getGlobalElement(static_cast<typename Matrix::local_ordinal_type>(i));
    std::map<GO, Scalar> mine, theirs;
    add_global_row(x, g, mine);
    reference(g, theirs);
    if (mine.size() != theirs.size()) {
      ++bad;
      continue;
    }
    for (auto a = mine.begin(), b = theirs.begin(); a != mine.end(); ++a, ++b) {
      const double scale =
          std::max({1.0, static_cast<double>(std::abs(a->second)), static_cast<double>(std::abs(b->second))});
      if (a->first != b->first || std::abs(a->second - b->second) > tolerance * scale) ++bad;
    }
  }
  return bad;
}

/// The same against another distributed matrix y with the same row map (its rows read where they live here).
template <class Matrix>
long long mismatched_entries(const Matrix& x, const Matrix& y, double tolerance) {
  using GO = typename Matrix::global_ordinal_type;
  using Scalar = typename Matrix::scalar_type;
  return mismatched_entries(
      x, [&](GO g, std::map<GO, Scalar>& row) { add_global_row(y, g, row); }, tolerance);
}

/// The same against a global host matrix (every rank holds it; tests).
template <class Matrix, class S, class O, class F>
long long mismatched_entries(const Matrix& x, const CsrMatrix<S, O, F, Kokkos::HostSpace>& global, double tolerance) {
  using GO = typename Matrix::global_ordinal_type;
  using Scalar = typename Matrix::scalar_type;
  return mismatched_entries(
      x,
      [&](GO g, std::map<GO, Scalar>& row) {
        for (auto e = global.row_map()(g); e < global.row_map()(g + 1); ++e) {
          row[static_cast<GO>(global.entries()(e))] += static_cast<Scalar>(global.values()(e));
        }
      },
      tolerance);
}

}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
