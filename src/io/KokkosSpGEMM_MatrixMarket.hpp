// Matrix Market I/O for CsrMatrix: reads coordinate files (plain or gzip; real, integer, pattern, complex; general,
// symmetric, skew-symmetric, hermitian expanded) into sorted CSR with duplicates summed and explicit zeros kept (they
// are structural entries), and writes general coordinate files. Parsing lives in the compiled library; this header
// only converts types.
#ifndef KOKKOSSPGEMM_MATRIXMARKET_HPP
#define KOKKOSSPGEMM_MATRIXMARKET_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <io/KokkosSpGEMM_MatrixMarketParse.hpp>

#include <Kokkos_Complex.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace KokkosSpGEMM {

/// Values given to the entries of a pattern file.
enum class PatternValues { Ones, Random };

struct MatrixMarketOptions {
  /// Ones: every entry is 1. Random: a deterministic value in (0, 1] that depends only on the seed and the position
  /// (symmetric files stay symmetric; complex scalars get a random imaginary part too).
  PatternValues pattern_values = PatternValues::Ones;
  std::uint64_t seed = 42;
};

namespace Impl {

/// How the reader and writer see a scalar: as a (re, im) pair of doubles.
template <class S>
struct MatrixMarketScalar {
  static constexpr bool is_complex = false;
  static S make(double re, double) { return static_cast<S>(re); }
  static double re(const S& s) { return static_cast<double>(s); }
  static double im(const S&) { return 0.0; }
};
template <class T>
struct MatrixMarketScalar<Kokkos::complex<T>> {
  static constexpr bool is_complex = true;
  static Kokkos::complex<T> make(double re, double im) { return {static_cast<T>(re), static_cast<T>(im)}; }
  static double re(const Kokkos::complex<T>& s) { return static_cast<double>(s.real()); }
  static double im(const Kokkos::complex<T>& s) { return static_cast<double>(s.imag()); }
};

/// Throws IndexOverflow naming the file, the count and the type unless value fits T.
template <class T>
T matrix_market_fit(std::int64_t value, const std::string& path, const char* what, const char* type) {
  KOKKOSSPGEMM_REQUIRE(
      value >= 0 && static_cast<std::uint64_t>(value) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()),
      IndexOverflow, "read_matrix_market",
      path << ": " << what << " = " << value << " does not fit the " << sizeof(T) * 8 << "-bit " << type
           << " type (largest " << static_cast<std::uint64_t>(std::numeric_limits<T>::max()) << ")");
  return static_cast<T>(value);
}

}  // namespace Impl

/// Reads a Matrix Market coordinate file (plain or gzip, recognised by content) into a host CSR matrix whose rows
/// are sorted by column, with duplicates summed and explicit zeros kept.
/// Scalar: float, double or Kokkos::complex<double> (a real file gives zero imaginary parts).
/// Throws FileError (missing, unreadable or malformed file; line() says where), InvalidInput (a complex file read
/// into a real Scalar), IndexOverflow (rows, columns or stored entries beyond Ordinal or Offset) and OutOfMemory
/// (a declared size the host cannot allocate).
template <class Scalar, class Ordinal = int, class Offset = int>
CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace> read_matrix_market(const std::string& path,
                                                                         const MatrixMarketOptions& options = {}) {
  using Traits = Impl::MatrixMarketScalar<Scalar>;
  Impl::CooData coo = Impl::parse_matrix_market(path);
  KOKKOSSPGEMM_REQUIRE(coo.field != Impl::MatrixMarketField::Complex || Traits::is_complex, InvalidInput,
                       "read_matrix_market",
                       path << " holds complex values; read it with a complex Scalar such as Kokkos::complex<double>");
  const Ordinal rows = Impl::matrix_market_fit<Ordinal>(coo.rows, path, "number of rows", "Ordinal");
  const Ordinal cols = Impl::matrix_market_fit<Ordinal>(coo.cols, path, "number of columns", "Ordinal");
  if (coo.field == Impl::MatrixMarketField::Pattern && options.pattern_values == PatternValues::Random) {
    Impl::randomize_pattern_values(coo, options.seed, Traits::is_complex);
  }
  const Impl::CsrData csr = Impl::coo_to_csr(std::move(coo));
  const std::size_t nnz = csr.col.size();
  Impl::matrix_market_fit<Offset>(static_cast<std::int64_t>(nnz), path, "number of stored entries", "Offset");

  CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace> a("KokkosSpGEMM::read_matrix_market", rows, cols, nnz);
  for (std::size_t i = 0; i < csr.row_map.size(); ++i) a.row_map()(i) = static_cast<Offset>(csr.row_map[i]);
  const bool has_im = !csr.im.empty();
  for (std::size_t e = 0; e < nnz; ++e) {
    a.entries()(e) = static_cast<Ordinal>(csr.col[e]);
    a.values()(e) = Traits::make(csr.re[e], has_im ? csr.im[e] : 0.0);
  }
  return a;
}

/// Writes A (any memory space; copied to the host first) as a general coordinate file: real field for a real
/// Scalar, complex for Kokkos::complex, values with 17 significant digits so that doubles read back exactly. Writes
/// gzip when path ends in ".gz". Throws FileError (cannot write) and InvalidInput (A breaks the CSR invariants).
template <class S, class O, class F, class M>
void write_matrix_market(const std::string& path, const CsrMatrix<S, O, F, M>& a_any) {
  using Traits = Impl::MatrixMarketScalar<S>;
  const auto a = to_host(a_any);
  Impl::CsrData out;
  out.rows = static_cast<std::int64_t>(a.num_rows());
  out.cols = static_cast<std::int64_t>(a.num_cols());
  out.complex = Traits::is_complex;
  // A default-constructed 0 x n matrix has an empty row map; the file format still needs row_map = {0}.
  if (a.row_map().extent(0) == 0 && a.num_rows() == 0) out.row_map.push_back(0);
  for (std::size_t i = 0; i < a.row_map().extent(0); ++i) {
    out.row_map.push_back(static_cast<std::int64_t>(a.row_map()(i)));
  }
  const std::size_t nnz = a.nnz();
  out.col.resize(nnz);
  out.re.resize(nnz);
  if (Traits::is_complex) out.im.resize(nnz);
  for (std::size_t e = 0; e < nnz; ++e) {
    out.col[e] = static_cast<std::int64_t>(a.entries()(e));
    out.re[e] = Traits::re(a.values()(e));
    if (Traits::is_complex) out.im[e] = Traits::im(a.values()(e));
  }
  Impl::write_matrix_market_file(path, out);
}

}  // namespace KokkosSpGEMM

#endif
