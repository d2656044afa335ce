// Matrix Market coordinate files to and from a plain host triplet list (compiled once into the library; no Kokkos).
#ifndef KOKKOSSPGEMM_MATRIXMARKETPARSE_HPP
#define KOKKOSSPGEMM_MATRIXMARKETPARSE_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

enum class MatrixMarketField { Real, Integer, Pattern, Complex };
enum class MatrixMarketSymmetry { General, Symmetric, SkewSymmetric, Hermitian };

/// Entries as stored in the file, expanded to both triangles for symmetric kinds; duplicates not yet summed.
struct CooData {
  std::int64_t rows = 0, cols = 0;
  MatrixMarketField field = MatrixMarketField::Real;
  MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::General;
  std::vector<std::int64_t> row, col;  // 0-based
  std::vector<double> re, im;          // im empty unless complex; re all 1 for pattern
};

/// Reads a coordinate Matrix Market file, plain or gzip (detected by content). Throws FileError with the line.
CooData parse_matrix_market(const std::string& path);

/// Writes a general coordinate file (gzip when path ends in .gz). im empty: real field.
void write_matrix_market_coo(const std::string& path, std::int64_t rows, std::int64_t cols,
                             const std::vector<std::int64_t>& row, const std::vector<std::int64_t>& col,
                             const std::vector<double>& re, const std::vector<double>& im);

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
