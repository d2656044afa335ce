// Random generators, deterministic for a seed on every platform (our own splitmix64, no std:: distributions):
// Graph500 R-MAT, uniform rows of k distinct columns, and the random family the tests draw special shapes from.
#ifndef KOKKOSSPGEMM_GENERATORSRANDOM_HPP
#define KOKKOSSPGEMM_GENERATORSRANDOM_HPP

#include <KokkosSpGEMM_CsrBuilder.hpp>

#include <Kokkos_Complex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {

namespace Impl {
class Random {
 public:
  explicit Random(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  /// Uniform in [0, n).
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t m_state;
};

/// A random value in (0, 1] (both parts for complex scalars), never zero so no product vanishes by accident.
template <class S>
S random_value(Random& r) {
  return S(1.0 - r.uniform());
}
template <class T>
Kokkos::complex<T> random_value_complex(Random& r) {
  const T re = static_cast<T>(1.0 - r.uniform());
  return Kokkos::complex<T>(re, static_cast<T>(1.0 - r.uniform()));
}
template <>
inline Kokkos::complex<double> random_value<Kokkos::complex<double>>(Random& r) {
  return random_value_complex<double>(r);
}
template <>
inline Kokkos::complex<float> random_value<Kokkos::complex<float>>(Random& r) {
  return random_value_complex<float>(r);
}

/// k distinct values from [0, n) (Floyd's sampling), unsorted.
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
/// edges merged into one entry, values random in (0, 1]. Vertices are not permuted: low indices are the hubs.
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> rmat(int scale, int edge_factor, std::uint64_t seed) {
  KOKKOSSPGEMM_REQUIRE(scale >= 0 && scale < 40 && edge_factor >= 0, InvalidInput, "rmat",
                       "needs 0 <= scale < 40 and edge_factor >= 0 (got " << scale << ", " << edge_factor << ")");
  const std::int64_t n = std::int64_t(1) << scale;
  const std::int64_t edges = n * edge_factor;
  Impl::checked_cast<O>(n, "rmat", "number of vertices");
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
    for (; k < e.size() && e[k].first == i; ++k) out.add(e[k].second, Impl::random_value<S>(r));
    out.end_row();
  }
  return out.finish();
}

/// Exactly min(per_row, cols) distinct random columns in each row, values random in (0, 1].
template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> uniform_random(O rows, O cols, O per_row, std::uint64_t seed) {
  KOKKOSSPGEMM_REQUIRE(rows >= 0 && cols >= 0 && per_row >= 0, InvalidInput, "uniform_random",
                       "sizes must be non-negative");
  Impl::Random r(seed);
  Impl::CsrBuilder<S, O, F> out("uniform_random", rows, cols);
  std::vector<std::int64_t> picks;
  for (O i = 0; i < rows; ++i) {
    Impl::distinct_sample(r, cols, per_row, picks);
    for (std::int64_t c : picks) out.add(c, Impl::random_value<S>(r));
    out.end_row();
  }
  return out.finish();
}

/// The random family of the tests. Row lengths are uniform in [0, 2 * mean_per_row] or, with power_law, Pareto
/// distributed (a few rows far longer than the mean); a fraction of rows is empty; row 0 can be made very long;
/// columns can be drawn from the first `column_pool` columns only, so that products collide in few columns.
template <class O = int>
struct RandomCsrOptions {
  O rows = 100;
  O cols = 100;
  double mean_per_row = 5;
  double empty_row_fraction = 0.1;
  bool power_law = false;
  O long_row_length = 0;  ///< > 0: row 0 gets min(long_row_length, columns) entries
  O column_pool = 0;      ///< > 0: columns come from [0, column_pool) (duplicate-heavy products)
};

template <class S, class O = int, class F = int>
CsrMatrix<S, O, F, Kokkos::HostSpace> random_csr(const RandomCsrOptions<O>& o, std::uint64_t seed) {
  KOKKOSSPGEMM_REQUIRE(o.rows >= 0 && o.cols >= 0, InvalidInput, "random_csr", "sizes must be non-negative");
  Impl::Random r(seed);
  Impl::CsrBuilder<S, O, F> out("random_csr", o.rows, o.cols);
  const std::int64_t pool = o.column_pool > 0 ? std::min<std::int64_t>(o.column_pool, o.cols) : o.cols;
  std::vector<std::int64_t> picks;
  for (O i = 0; i < o.rows; ++i) {
    std::int64_t len = 0;
    if (i == 0 && o.long_row_length > 0) {
      len = o.long_row_length;
    } else if (r.uniform() >= o.empty_row_fraction) {
      // Pareto with shape 1.5 has mean 3 x_min: scale so the mean is mean_per_row.
      len = o.power_law ? static_cast<std::int64_t>(o.mean_per_row / 3.0 * std::pow(1.0 - r.uniform(), -1.0 / 1.5))
                        : r.below(static_cast<std::int64_t>(2 * o.mean_per_row) + 1);
    }
    Impl::distinct_sample(r, pool, std::min(len, pool), picks);
    for (std::int64_t c : picks) out.add(c, S(2.0 * r.uniform() - 1.0));
    out.end_row();
  }
  return out.finish();
}

}  // namespace KokkosSpGEMM

#endif
