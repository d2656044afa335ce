// Structured generators: Poisson stencils on n^d grids and aggregation prolongators for Galerkin products.
// Grid point (i, j[, k]) is row (i * n + j) [* n + k]: the last coordinate varies fastest.
#ifndef KOKKOSSPGEMM_GENERATORSSTENCIL_HPP
#define KOKKOSSPGEMM_GENERATORSSTENCIL_HPP

#include <testing/KokkosSpGEMM_CsrBuilder.hpp>
#include <testing/KokkosSpGEMM_Reference.hpp>

#include <cstdint>
#include <limits>

namespace KokkosSpGEMM {

namespace Impl {
/// a * b for non-negative a, b; IndexOverflow where it would not fit 64 bits (sizes are checked before any
/// allocation, so that an oversized grid fails at once instead of after building gigabytes).
inline std::int64_t checked_product(std::int64_t a, std::int64_t b, const char* function, const char* what) {
  KOKKOSSPGEMM_REQUIRE(b == 0 || a <= std::numeric_limits<std::int64_t>::max() / b, IndexOverflow, function,
                       what << " = " << a << " * " << b << " does not fit 64 bits");
  return a * b;
}

inline std::int64_t checked_power(std::int64_t n, int dims, const char* function, const char* what) {
  std::int64_t p = 1;
  for (int d = 0; d < dims; ++d) p = checked_product(p, n, function, what);
  return p;
}

/// The d-dimensional Laplacian stencil: face neighbours only (5/7-point) or all 3^d - 1 neighbours (9/27-point);
/// -1 off the diagonal and the number of neighbours a full interior row has on it.
template <class S, class O, class F>
CsrMatrix<S, O, F, Kokkos::HostSpace> poisson(const char* name, std::int64_t n, int dims, bool full) {
  KOKKOSSPGEMM_REQUIRE(n >= 0, InvalidInput, name, "grid size " << n << " is negative");
  const std::int64_t points = checked_power(n, dims, name, "number of grid points");
  checked_cast<O>(points, name, "number of rows");
  // Closed forms: face stencils have n^d diagonals plus 2 per grid line segment (d n^(d-1) lines of n - 1
  // segments); full stencils are the tensor product of d tridiagonal patterns, (3n - 2)^d.
  const std::int64_t nnz =
      n == 0 ? 0
      : full ? checked_power(checked_product(3, n, name, "3n") - 2, dims, name, "number of entries")
             : points + checked_product(checked_product(2 * dims, checked_power(n, dims - 1, name, "n^(d-1)"), name,
                                                        "number of entries"),
                                        n - 1, name, "number of entries");
  checked_cast<F>(nnz, name, "number of stored entries");
  CsrBuilder<S, O, F> out(name, points, points);
  const int neighbours = full ? (dims == 2 ? 8 : 26) : 2 * dims;
  for (std::int64_t p = 0; p < points; ++p) {
    const std::int64_t x = dims == 3 ? p / (n * n) : 0, y = dims == 3 ? (p / n) % n : p / n, z = p % n;
    // Lexicographic offsets give increasing columns, so rows come out sorted.
    for (int dx = (dims == 3 ? -1 : 0); dx <= (dims == 3 ? 1 : 0); ++dx) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dz = -1; dz <= 1; ++dz) {
          const int dist = (dx != 0) + (dy != 0) + (dz != 0);
          if (!full && dist > 1) continue;
          const std::int64_t qx = x + dx, qy = y + dy, qz = z + dz;
          if (qx < 0 || qy < 0 || qz < 0 || qx >= n || qy >= n || qz >= n) continue;
          out.add((qx * n + qy) * n + qz, dist == 0 ? S(static_cast<double>(neighbours)) : S(-1.0));
        }
      }
    }
    out.end_row();
  }
  return out.finish();
}
}  // namespace Impl

/// 2D 5-point Laplacian on an n x n grid: 4 on the diagonal, -1 for each of the up to 4 face neighbours;
/// n^2 rows, 5n^2 - 4n entries. Throws InvalidInput (n < 0), IndexOverflow (sizes beyond Ordinal / Offset).
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> poisson_2d_5pt(O n) {
  return Impl::poisson<S, O, F>("poisson_2d_5pt", n, 2, false);
}
/// 2D 9-point Laplacian on an n x n grid: 8 on the diagonal, -1 for each of the up to 8 neighbours; (3n - 2)^2
/// entries.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> poisson_2d_9pt(O n) {
  return Impl::poisson<S, O, F>("poisson_2d_9pt", n, 2, true);
}
/// 3D 7-point Laplacian on an n x n x n grid: 6 on the diagonal, -1 for each face neighbour; 7n^3 - 6n^2 entries.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> poisson_3d_7pt(O n) {
  return Impl::poisson<S, O, F>("poisson_3d_7pt", n, 3, false);
}
/// 3D 27-point Laplacian on an n x n x n grid: 26 on the diagonal, -1 for each of the up to 26 neighbours;
/// (3n - 2)^3 entries.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> poisson_3d_27pt(O n) {
  return Impl::poisson<S, O, F>("poisson_3d_27pt", n, 3, true);
}

/// Tentative prolongator of aggregation on an n^dims grid (dims 2 or 3) with b^dims aggregates (ceil(n/b)^dims of
/// them; edge aggregates are smaller) and `block` unknowns a point: row p * block + c has the one entry 1 at column
/// aggregate(p) * block + c. Throws InvalidInput (n < 0, b < 1, block < 1, dims not 2 or 3), IndexOverflow.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> tentative_prolongator(O n, int dims, O b, O block = 1) {
  const char* name = "tentative_prolongator";
  KOKKOSSPGEMM_REQUIRE(n >= 0 && b >= 1 && block >= 1 && (dims == 2 || dims == 3), InvalidInput, name,
                       "needs n >= 0, b >= 1, block >= 1 and 2 or 3 dimensions (got n = "
                           << n << ", b = " << b << ", block = " << block << ", " << dims << " dimensions)");
  const std::int64_t nn = n, na = (nn + b - 1) / b;
  const std::int64_t points = Impl::checked_power(nn, dims, name, "number of grid points");
  const std::int64_t rows = Impl::checked_product(points, block, name, "number of rows");
  const std::int64_t cols =
      Impl::checked_product(Impl::checked_power(na, dims, name, "number of aggregates"), block, name, "columns");
  Impl::checked_cast<F>(rows, name, "number of stored entries");
  Impl::CsrBuilder<S, O, F> out(name, rows, cols);
  for (std::int64_t p = 0; p < points; ++p) {
    const std::int64_t x = dims == 3 ? p / (nn * nn) : 0, y = (p / nn) % nn, z = p % nn;
    const std::int64_t aggregate = ((x / b) * na + y / b) * na + z / b;
    for (O c = 0; c < block; ++c) {
      out.add(aggregate * block + c, S(1.0));
      out.end_row();
    }
  }
  return out.finish();
}

/// An elasticity-like 3D operator in point CSR: the 27-point pattern of poisson_3d_27pt(n) with every entry a dense
/// block x block block (n^3 block rows; 27 blocks in an interior block row). Diagonal blocks: 27 + block on their
/// diagonal, -0.5 off it; other blocks: -1 on their diagonal, -0.1 off it. Throws InvalidInput, IndexOverflow.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> block_stencil_3d_27pt(O n, O block) {
  const char* name = "block_stencil_3d_27pt";
  KOKKOSSPGEMM_REQUIRE(n >= 0 && block >= 1, InvalidInput, name,
                       "needs n >= 0 and block >= 1 (got n = " << n << ", block = " << block << ")");
  const auto pattern = Impl::poisson<double, std::int64_t, std::int64_t>(name, n, 3, true);
  const std::int64_t rows = Impl::checked_product(pattern.num_rows(), block, name, "number of rows");
  const std::int64_t nnz = Impl::checked_product(static_cast<std::int64_t>(pattern.nnz()),
                                                 static_cast<std::int64_t>(block) * block, name, "number of entries");
  Impl::checked_cast<O>(rows, name, "number of rows");
  Impl::checked_cast<F>(nnz, name, "number of stored entries");
  Impl::CsrBuilder<S, O, F> out(name, rows, rows);
  for (std::int64_t p = 0; p < pattern.num_rows(); ++p) {
    for (O r = 0; r < block; ++r) {
      for (auto e = pattern.row_map()(p); e < pattern.row_map()(p + 1); ++e) {
        const std::int64_t q = pattern.entries()(e);
        for (O c = 0; c < block; ++c) {
          const double v = q == p ? (r == c ? 27.0 + block : -0.5) : (r == c ? -1.0 : -0.1);
          out.add(q * block + c, S(v));
        }
      }
      out.end_row();
    }
  }
  return out.finish();
}

/// Prolongator for poisson_3d_7pt(n) with b x b x b aggregates (tentative_prolongator(n, 3, b)).
/// Tentative: P(p, aggregate(p)) = 1. Smoothed: (I - omega D^-1 A) P_tent with A = poisson_3d_7pt(n), computed with
/// reference_spgemm. Throws InvalidInput (n < 0, b < 1), IndexOverflow.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> aggregation_prolongator(O n, O b, bool smoothed, double omega = 2.0 / 3.0) {
  KOKKOSSPGEMM_REQUIRE(n >= 0 && b >= 1, InvalidInput, "aggregation_prolongator",
                       "needs n >= 0 and b >= 1 (got n = " << n << ", b = " << b << ")");
  const auto p_tent = tentative_prolongator<S, O, F>(n, 3, b);
  if (!smoothed) return p_tent;
  const auto a = poisson_3d_7pt<S, O, F>(n);
  // The smoother I - omega D^-1 A has A's pattern: 1 - omega on the diagonal, -omega a_ij / a_ii elsewhere.
  CsrMatrix<S, O, F, Kokkos::HostSpace> smoother("KokkosSpGEMM::aggregation_prolongator::smoother", a.num_rows(),
                                                 a.num_cols(), a.nnz());
  Kokkos::deep_copy(smoother.row_map(), a.row_map());
  Kokkos::deep_copy(smoother.entries(), a.entries());
  for (O i = 0; i < a.num_rows(); ++i) {
    S diag = S(1.0);
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      if (a.entries()(e) == i) diag = a.values()(e);
    }
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      smoother.values()(e) = (a.entries()(e) == i ? S(1.0) : S(0.0)) - S(omega) * a.values()(e) / diag;
    }
  }
  return reference_spgemm(smoother, p_tent);
}

}  // namespace KokkosSpGEMM

#endif
