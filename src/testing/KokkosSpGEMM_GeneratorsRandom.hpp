// Random generators, deterministic for a seed on every platform: our own splitmix64 and only exactly rounded
// arithmetic (no std:: distributions, no pow/log, whose results differ between standard libraries).
// Graph500 R-MAT, uniform rows of k distinct columns, and the random family the tests draw special shapes from.
#ifndef KOKKOSSPGEMM_GENERATORSRANDOM_HPP
#define KOKKOSSPGEMM_GENERATORSRANDOM_HPP

#include <testing/KokkosSpGEMM_CsrBuilder.hpp>

#include <Kokkos_Complex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {

namespace Impl {
/// splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, passes BigCrush, identical output everywhere.
class Random {
 public:
  explicit Random(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1), a multiple of 2^-53 (exact in double).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  /// Uniform in [0, n) for n >= 1 (the modulo bias is below 2^-20 for any n we generate).
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t m_state;
};

template <class S>
struct RandomScalar {
  /// In (0, 1]: never zero, so no product vanishes by accident.
  static S positive(Random& r) { return S(1.0 - r.uniform()); }
  /// In [-1, 1): signs let sums cancel, as they do in real matrices.
  static S signed_unit(Random& r) { return S(2.0 * r.uniform() - 1.0); }
};
template <class T>
struct RandomScalar<Kokkos::complex<T>> {
  // Real part first, then imaginary: the draw order is part of what a seed means.
  static Kokkos::complex<T> positive(Random& r) {
    const T re = RandomScalar<T>::positive(r);
    return Kokkos::complex<T>(re, RandomScalar<T>::positive(r));
  }
  static Kokkos::complex<T> signed_unit(Random& r) {
    const T re = RandomScalar<T>::signed_unit(r);
    return Kokkos::complex<T>(re, RandomScalar<T>::signed_unit(r));
  }
};

/// k distinct values from [0, n) (Floyd's sampling: k draws whatever k/n is), unsorted.
inline void distinct_sample(Random& r, std::int64_t n, std::int64_t k, std::vector<std::int64_t>& out) {
  out.clear();
  k = std::min(k, n);
  std::unordered_set<std::int64_t> seen;
  for (std::int64_t j = n - k; j < n; ++j) {
    const std::int64_t t = r.below(j + 1);
    const std::int64_t pick = seen.count(t) ? j : t;
    seen.insert(pick);
    out.push_back(pick);
  }
}
}  // namespace Impl

/// Graph500 R-MAT (a = 0.57, b = c = 0.19, d = 0.05): 2^scale vertices, edge_factor * 2^scale edges drawn, duplicate
/// edges merged into one entry, values random in (0, 1] (real and imaginary parts for complex). Vertices are not
/// permuted: low indices are the hubs. Throws InvalidInput, IndexOverflow.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> rmat(int scale, int edge_factor, std::uint64_t seed) {
  KOKKOSSPGEMM_REQUIRE(scale >= 0 && scale < 40 && edge_factor >= 0, InvalidInput, "rmat",
                       "needs 0 <= scale < 40 and edge_factor >= 0 (got " << scale << ", " << edge_factor << ")");
  const std::int64_t n = std::int64_t(1) << scale;
  Impl::checked_cast<O>(n, "rmat", "number of vertices");
  KOKKOSSPGEMM_REQUIRE(edge_factor <= (std::numeric_limits<std::int64_t>::max() >> scale), IndexOverflow, "rmat",
                       "edge_factor * 2^scale does not fit 64 bits");
  const std::int64_t edges = n * edge_factor;
  Impl::Random r(seed);
  std::vector<std::pair<std::int64_t, std::int64_t>> e(static_cast<std::size_t>(edges));
  for (auto& edge : e) {
    std::int64_t row = 0, col = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = r.uniform();
      const int quadrant = u < 0.57 ? 0 : (u < 0.76 ? 1 : (u < 0.95 ? 2 : 3));
      row = 2 * row + (quadrant >> 1);
      col = 2 * col + (quadrant & 1);
    }
    edge = {row, col};
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  Impl::CsrBuilder<S, O, F> out("rmat", n, n);
  std::size_t k = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (; k < e.size() && e[k].first == i; ++k) out.add(e[k].second, Impl::RandomScalar<S>::positive(r));
    out.end_row();
  }
  return out.finish();
}

/// Exactly min(per_row, cols) distinct random columns in each row, values random in (0, 1]. Throws InvalidInput,
/// IndexOverflow.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> uniform_random(O rows, O cols, O per_row, std::uint64_t seed) {
  KOKKOSSPGEMM_REQUIRE(rows >= 0 && cols >= 0 && per_row >= 0, InvalidInput, "uniform_random",
                       "sizes must be non-negative (got " << rows << ", " << cols << ", " << per_row << ")");
  const std::int64_t k = std::min<std::int64_t>(per_row, cols);
  KOKKOSSPGEMM_REQUIRE(k == 0 || rows <= std::numeric_limits<std::int64_t>::max() / k, IndexOverflow, "uniform_random",
                       "rows * per_row does not fit 64 bits");
  Impl::checked_cast<F>(static_cast<std::int64_t>(rows) * k, "uniform_random", "number of stored entries");
  Impl::Random r(seed);
  Impl::CsrBuilder<S, O, F> out("uniform_random", rows, cols);
  std::vector<std::int64_t> picks;
  for (O i = 0; i < rows; ++i) {
    Impl::distinct_sample(r, cols, k, picks);
    for (std::int64_t c : picks) out.add(c, Impl::RandomScalar<S>::positive(r));
    out.end_row();
  }
  return out.finish();
}

/// Options of random_csr, the random family of the tests. Every row draws its length, then that many distinct
/// columns, then values in [-1, 1) (both parts for complex scalars).
template <class O = int>
struct RandomCsrOptions {
  O rows = 100;  ///< 0 gives a 0 x cols matrix
  O cols = 100;  ///< 0 gives a rows x 0 matrix (no entries)
  /// Mean length of a non-empty row: lengths are uniform in [0, 2 * mean_per_row], or with power_law Pareto
  /// distributed (shape 2, minimum mean_per_row / 2: a few rows far longer than the mean).
  double mean_per_row = 5;
  double empty_row_fraction = 0.1;  ///< probability that a row is empty regardless of its drawn length
  bool power_law = false;
  O long_row_length = 0;  ///< > 0: row long_row gets min(long_row_length, columns available) entries
  O long_row = 0;         ///< which row is the long one (ignored when out of range)
  /// > 0: columns come from [0, column_pool) only, so many products collide in few columns of C
  /// (duplicate-heavy products).
  O column_pool = 0;
};

/// A random CSR matrix with sorted rows and no duplicate columns, shaped by the options (see RandomCsrOptions).
/// Throws InvalidInput for negative sizes or an empty_row_fraction outside [0, 1]; IndexOverflow.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> random_csr(const RandomCsrOptions<O>& o, std::uint64_t seed) {
  KOKKOSSPGEMM_REQUIRE(o.rows >= 0 && o.cols >= 0 && o.long_row_length >= 0 && o.column_pool >= 0, InvalidInput,
                       "random_csr", "sizes must be non-negative");
  KOKKOSSPGEMM_REQUIRE(
      o.mean_per_row >= 0 && o.mean_per_row < 1e15 && o.empty_row_fraction >= 0 && o.empty_row_fraction <= 1,
      InvalidInput, "random_csr",
      "needs 0 <= mean_per_row < 1e15 and 0 <= empty_row_fraction <= 1 (got " << o.mean_per_row << ", "
                                                                              << o.empty_row_fraction << ")");
  Impl::Random r(seed);
  Impl::CsrBuilder<S, O, F> out("random_csr", o.rows, o.cols);
  const std::int64_t pool = o.column_pool > 0 ? std::min<std::int64_t>(o.column_pool, o.cols) : o.cols;
  std::vector<std::int64_t> picks;
  for (O i = 0; i < o.rows; ++i) {
    double len = 0;
    if (o.long_row_length > 0 && i == o.long_row) {
      len = static_cast<double>(o.long_row_length);
    } else if (r.uniform() >= o.empty_row_fraction) {
      // Pareto by inversion, x_min / sqrt(1 - u) (sqrt is exactly rounded everywhere, pow is not); shape 2 has
      // mean 2 x_min. The uniform draw is floor(u * (2 mean + 1)).
      len = o.power_law ? o.mean_per_row / 2.0 / std::sqrt(1.0 - r.uniform())
                        : std::floor(r.uniform() * (std::floor(2.0 * o.mean_per_row) + 1.0));
    }
    const std::int64_t k = len >= static_cast<double>(pool) ? pool : static_cast<std::int64_t>(len);
    Impl::distinct_sample(r, pool, k, picks);
    for (std::int64_t c : picks) out.add(c, Impl::RandomScalar<S>::signed_unit(r));
    out.end_row();
  }
  return out.finish();
}

}  // namespace KokkosSpGEMM

#endif
