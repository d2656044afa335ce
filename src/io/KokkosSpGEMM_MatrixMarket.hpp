// Matrix Market I/O for CsrMatrix: reads coordinate files (plain or .gz; real, integer, pattern, complex; general,
// symmetric, skew-symmetric, hermitian expanded) into sorted CSR with duplicates summed and explicit zeros kept (they
// are structural entries), and writes general coordinate files.
#ifndef KOKKOSSPGEMM_MATRIXMARKET_HPP
#define KOKKOSSPGEMM_MATRIXMARKET_HPP

#include <KokkosSpGEMM_CsrBuilder.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_GeneratorsRandom.hpp>
#include <io/KokkosSpGEMM_MatrixMarketParse.hpp>

#include <Kokkos_Complex.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace KokkosSpGEMM {

enum class PatternValues { Ones, Random };

struct MatrixMarketOptions {
  /// Values given to the entries of a pattern file: 1, or deterministic pseudo-random values in (0, 1].
  PatternValues pattern_values = PatternValues::Ones;
  std::uint64_t seed = 42;
};

namespace Impl {
template <class S>
struct IsComplex : std::false_type {};
template <class T>
struct IsComplex<Kokkos::complex<T>> : std::true_type {};

template <class S>
S make_scalar(double re, double im) {
  if constexpr (IsComplex<S>::value) {
    return S(re, im);
  } else {
    (void)im;
    return S(re);
  }
}
}  // namespace Impl

/// Reads a Matrix Market coordinate file. Throws FileError (unreadable or malformed, with the line), InvalidInput
/// (a complex file into a real Scalar), IndexOverflow (sizes beyond Ordinal or Offset).
template <class Scalar, class Ordinal = int, class Offset = int>
CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace> read_matrix_market(const std::string& path,
                                                                         const MatrixMarketOptions& options = {}) {
  const Impl::CooData coo = Impl::parse_matrix_market(path);
  KOKKOSSPGEMM_REQUIRE(coo.field != Impl::MatrixMarketField::Complex || Impl::IsComplex<Scalar>::value, InvalidInput,
                       "read_matrix_market", path << " holds complex values; read it with a complex Scalar");
  const std::size_t n = coo.row.size();
  // Entries ordered by (row, column), stable so that duplicates are summed in file order.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return coo.row[x] != coo.row[y] ? coo.row[x] < coo.row[y] : coo.col[x] < coo.col[y];
  });
  Impl::Random random(options.seed);
  const bool random_pattern =
      coo.field == Impl::MatrixMarketField::Pattern && options.pattern_values == PatternValues::Random;
  std::vector<Scalar> values(n);
  for (std::size_t e = 0; e < n; ++e) {
    values[e] = random_pattern ? Impl::random_value<Scalar>(random)
                               : Impl::make_scalar<Scalar>(coo.re[e], coo.im.empty() ? 0.0 : coo.im[e]);
  }
  Impl::CsrBuilder<Scalar, Ordinal, Offset> out("read_matrix_market", coo.rows, coo.cols);
  std::size_t k = 0;
  for (std::int64_t i = 0; i < coo.rows; ++i) {
    for (; k < n && coo.row[order[k]] == i; ++k) out.add(coo.col[order[k]], values[order[k]]);
    out.end_row();
  }
  return out.finish();
}

/// Writes A (any memory space) as a general coordinate file; gzip when path ends in .gz. Throws FileError.
template <class S, class O, class F, class M>
void write_matrix_market(const std::string& path, const CsrMatrix<S, O, F, M>& a_any) {
  const auto a = to_host(a_any);
  std::vector<std::int64_t> row(a.nnz()), col(a.nnz());
  std::vector<double> re(a.nnz()), im(Impl::IsComplex<S>::value ? a.nnz() : 0);
  for (O i = 0; i < a.num_rows(); ++i) {
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      row[e] = i;
      col[e] = a.entries()(e);
      if constexpr (Impl::IsComplex<S>::value) {
        re[e] = static_cast<double>(a.values()(e).real());
        im[e] = static_cast<double>(a.values()(e).imag());
      } else {
        re[e] = static_cast<double>(a.values()(e));
      }
    }
  }
  Impl::write_matrix_market_coo(path, a.num_rows(), a.num_cols(), row, col, re, im);
}

}  // namespace KokkosSpGEMM

#endif
