// Matrix Market coordinate files to and from plain host arrays (compiled once into the library; no Kokkos), so that
// the templated reader in KokkosSpGEMM_MatrixMarket.hpp only converts types.
#ifndef KOKKOSSPGEMM_MATRIXMARKETPARSE_HPP
#define KOKKOSSPGEMM_MATRIXMARKETPARSE_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

enum class MatrixMarketField { Real, Integer, Pattern, Complex };
enum class MatrixMarketSymmetry { General, Symmetric, SkewSymmetric, Hermitian };

/// Entries in file order, symmetric kinds already expanded to both triangles; duplicates not yet summed.
struct CooData {
  std::int64_t rows = 0, cols = 0;
  MatrixMarketField field = MatrixMarketField::Real;
  MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::General;
  std::vector<std::int64_t> row, col;  // 0-based
  std::vector<double> re, im;          // re is 1 for pattern; im empty unless complex
};

/// Sorted CSR in plain arrays: columns ascending within each row, no duplicates.
struct CsrData {
  std::int64_t rows = 0, cols = 0;
  bool complex = false;               // complex field when written; im has one value per entry when set
  std::vector<std::int64_t> row_map;  // rows + 1 offsets
  std::vector<std::int64_t> col;      // 0-based
  std::vector<double> re, im;
};

/// Reads a coordinate Matrix Market file, plain or gzip (recognised by its magic bytes, not its name).
/// Throws FileError naming the file and the 1-based line (0 when the problem is not tied to a line).
CooData parse_matrix_market(const std::string& path);

/// Parses the text of a coordinate file already in memory (plain, not gzip); name stands for the file in FileError.
/// parse_matrix_market reads and decompresses the file, then calls this.
CooData parse_matrix_market_text(const std::string& text, const std::string& name);

/// Gives every entry of a pattern file a value in (0, 1] that depends only on (seed, row, column), and on the
/// unordered pair for symmetric files so that the matrix stays symmetric. Sets im too when complex is true.
void randomize_pattern_values(CooData& coo, std::uint64_t seed, bool complex);

/// Sorts by (row, column) and sums duplicates in file order; explicit zeros are kept. Pass coo with std::move.
/// Throws OutOfMemory when the CSR arrays cannot be allocated, e.g. the row map of the up to 2^63 - 1 rows that a
/// size line declares in a few bytes.
CsrData coo_to_csr(CooData coo);

/// Writes a general coordinate file (real or complex field per a.complex), values with %.17g; gzip when path ends
/// in ".gz". Throws FileError; a partly written file is removed.
void write_matrix_market_file(const std::string& path, const CsrData& a);

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
