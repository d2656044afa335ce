// Serial references for semiring and masked products and for triangle counts, and the comparison of a product
// against them (exact for min, max, or and integer sums; to a relative tolerance for floating-point sums).
#ifndef KOKKOSSPGEMM_REFERENCESEMIRING_HPP
#define KOKKOSSPGEMM_REFERENCESEMIRING_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Semirings.hpp>
#include <operations/KokkosSpGEMM_MaskedSpGEMM.hpp>
#include <testing/KokkosSpGEMM_Reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace KokkosSpGEMM {

/// C = A ⊕.⊗ B on the host, restricted to the mask's structure (MaskKind::Plain) or to its complement: Gustavson with
/// a dense accumulator, products added in row order; rows of C sorted; entries exist wherever a product lands.
template <class Semiring, class S, class O, class F, class MS = S, class MF = F>
HostCsrMatrix<S, O, F> reference_semiring_spgemm(const HostCsrMatrix<S, O, F>& a, const HostCsrMatrix<S, O, F>& b,
                                                 const HostCsrMatrix<MS, O, MF>* mask = nullptr,
                                                 MaskKind kind = MaskKind::None) {
  KOKKOSSPGEMM_REQUIRE(
      a.num_cols() == b.num_rows(), DimensionMismatch, "reference_semiring_spgemm",
      "A is " << a.num_rows() << " x " << a.num_cols() << " but B is " << b.num_rows() << " x " << b.num_cols());
  const O rows = a.num_rows(), cols = b.num_cols();
  std::vector<S> acc(cols);
  std::vector<char> seen(cols, 0), in_mask(cols, 0);
  std::vector<O> touched, c_cols;
  std::vector<S> c_vals;
  std::vector<F> row_map{F(0)};
  for (O i = 0; i < rows; ++i) {
    if (kind != MaskKind::None) {
      for (MF e = mask->row_map()(i); e < mask->row_map()(i + 1); ++e) in_mask[mask->entries()(e)] = 1;
    }
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const O k = a.entries()(e);
      for (F j = b.row_map()(k); j < b.row_map()(k + 1); ++j) {
        const O c = b.entries()(j);
        if ((kind == MaskKind::Plain && !in_mask[c]) || (kind == MaskKind::Complement && in_mask[c])) continue;
        const S p = Semiring::multiply(a.values()(e), b.values()(j));
        if (!seen[c]) {
          seen[c] = 1;
          touched.push_back(c);
          acc[c] = p;
        } else {
          acc[c] = Semiring::add(acc[c], p);
        }
      }
    }
    std::sort(touched.begin(), touched.end());
    for (O c : touched) {
      c_cols.push_back(c);
      c_vals.push_back(acc[c]);
      seen[c] = 0;
    }
    touched.clear();
    if (kind != MaskKind::None) {
      for (MF e = mask->row_map()(i); e < mask->row_map()(i + 1); ++e) in_mask[mask->entries()(e)] = 0;
    }
    row_map.push_back(static_cast<F>(c_cols.size()));
  }
  HostCsrMatrix<S, O, F> c("KokkosSpGEMM::Reference::C", rows, cols, c_cols.size());
  for (std::size_t i = 0; i < row_map.size(); ++i) c.row_map()(i) = row_map[i];
  for (std::size_t e = 0; e < c_cols.size(); ++e) {
    c.entries()(e) = c_cols[e];
    c.values()(e) = c_vals[e];
  }
  return c;
}

/// Empty when C (host or device) has the reference's structure (rows sorted, or sorted here when unsorted is
/// allowed) and values (exact unless the type is floating point and the semiring adds by summing: then within
/// tol relative to the largest magnitude of the row), else the first difference.
template <class MatrixC, class S, class O, class F>
std::string semiring_difference(const MatrixC& c_any, const HostCsrMatrix<S, O, F>& ref, bool sums, double tol = 1e-12,
                                bool allow_unsorted = false) {
  const auto c = to_host(c_any);
  std::ostringstream s;
  if (c.num_rows() != ref.num_rows() || c.num_cols() != ref.num_cols()) {
    s << "C is " << c.num_rows() << " x " << c.num_cols() << ", the reference " << ref.num_rows() << " x "
      << ref.num_cols();
    return s.str();
  }
  if (c.row_map().extent(0) != ref.row_map().extent(0)) return "C's row map has the wrong length";
  for (O i = 0; i < ref.num_rows(); ++i) {
    const F b = ref.row_map()(i), e = ref.row_map()(i + 1);
    if (c.row_map()(i) != b || c.row_map()(i + 1) != e) {
      s << "row " << i << " has " << (c.row_map()(i + 1) - c.row_map()(i)) << " entries, the reference " << (e - b);
      return s.str();
    }
    std::vector<std::pair<O, S>> row;
    for (F p = b; p < e; ++p) row.emplace_back(c.entries()(p), c.values()(p));
    if (allow_unsorted) {
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    }
    double scale = 1;
    if constexpr (std::is_floating_point<S>::value) {
      for (F p = b; p < e; ++p) scale = std::max(scale, std::abs(static_cast<double>(ref.values()(p))));
    }
    for (F p = b; p < e; ++p) {
      const O col = row[p - b].first;
      const S val = row[p - b].second, want = ref.values()(p);
      bool same = col == ref.entries()(p);
      if constexpr (std::is_floating_point<S>::value) {
        const double v = static_cast<double>(val), w = static_cast<double>(want);
        same = same && (sums && std::isfinite(w) ? std::abs(v - w) <= tol * scale : (v == w || (v != v && w != w)));
      } else {
        same = same && val == want;
      }
      if (!same) {
        s << "row " << i << " entry " << (p - b) << ": C has (" << col << ", " << Impl::to_text(val)
          << "), the reference (" << ref.entries()(p) << ", " << Impl::to_text(want) << ")";
        return s.str();
      }
    }
  }
  return "";
}

/// The undirected graph of a matrix's pattern: the structure of A + Aᵀ with rows sorted, no repeats and no
/// self-loops, values 1 (directed graphs such as p2p-Gnutella31 are counted so, as GraphChallenge does).
template <class S, class O, class F>
HostCsrMatrix<S, O, F> undirected_pattern(const HostCsrMatrix<S, O, F>& a) {
  KOKKOSSPGEMM_REQUIRE(a.num_rows() == a.num_cols(), DimensionMismatch, "undirected_pattern",
                       "a graph's adjacency matrix must be square, not " << a.num_rows() << " x " << a.num_cols());
  const O n = a.num_rows();
  std::vector<std::vector<O>> rows(static_cast<std::size_t>(n));
  for (O i = 0; i < n; ++i) {
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const O j = a.entries()(e);
      if (j == i) continue;
      rows[i].push_back(j);
      rows[j].push_back(i);
    }
  }
  std::size_t nnz = 0;
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    nnz += r.size();
  }
  KOKKOSSPGEMM_REQUIRE(nnz <= static_cast<std::size_t>(std::numeric_limits<F>::max()), IndexOverflow,
                       "undirected_pattern", nnz << " entries do not fit the offset type");
  HostCsrMatrix<S, O, F> g("KokkosSpGEMM::undirected", n, n, nnz);
  F at = 0;
  if (g.row_map().extent(0) > 0) g.row_map()(0) = 0;
  for (O i = 0; i < n; ++i) {
    for (O j : rows[i]) {
      g.entries()(at) = j;
      g.values()(at) = S(1);
      ++at;
    }
    g.row_map()(i + 1) = at;
  }
  return g;
}

/// Triangles of an undirected graph given by a structurally symmetric pattern (self-loops ignored): each vertex
/// keeps its neighbours that come before it in the order (degree, index), and every kept pair (i, j) adds the
/// neighbours kept by both (a merge of two sorted lists). Each triangle is counted once, at its last two vertices.
template <class S, class O, class F>
std::int64_t reference_triangle_count(const HostCsrMatrix<S, O, F>& g) {
  const auto degree = [&](O v) { return g.row_map()(v + 1) - g.row_map()(v); };
  const auto before = [&](O j, O i) { return degree(j) < degree(i) || (degree(j) == degree(i) && j < i); };
  std::vector<std::vector<O>> lower(g.num_rows());
  for (O i = 0; i < g.num_rows(); ++i) {
    for (F e = g.row_map()(i); e < g.row_map()(i + 1); ++e) {
      if (g.entries()(e) != i && before(g.entries()(e), i)) lower[i].push_back(g.entries()(e));
    }
    std::sort(lower[i].begin(), lower[i].end());
    lower[i].erase(std::unique(lower[i].begin(), lower[i].end()), lower[i].end());
  }
  std::int64_t count = 0;
  for (O i = 0; i < g.num_rows(); ++i) {
    for (O j : lower[i]) {
      std::size_t x = 0, y = 0;
      while (x < lower[i].size() && y < lower[j].size()) {
        if (lower[i][x] < lower[j][y]) {
          ++x;
        } else if (lower[j][y] < lower[i][x]) {
          ++y;
        } else {
          ++count;
          ++x;
          ++y;
        }
      }
    }
  }
  return count;
}

}  // namespace KokkosSpGEMM

#endif
