// Names for input matrices used by the tool and the perf_tests: a Matrix Market path (.mtx or .mtx.gz) or a
// generator spec such as gen:p3d27:100 (see input_spec_help()).
#ifndef KOKKOSSPGEMM_INPUTSPEC_HPP
#define KOKKOSSPGEMM_INPUTSPEC_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <testing/KokkosSpGEMM_Generators.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace KokkosSpGEMM {

inline std::string input_spec_help() {
  return "  FILE.mtx[.gz]                    Matrix Market coordinate file\n"
         "  gen:p2d5:N | gen:p2d9:N          2D Poisson on an N x N grid\n"
         "  gen:p3d7:N | gen:p3d27:N         3D Poisson on an N^3 grid\n"
         "  gen:rmat:SCALE:EDGEFACTOR[:SEED] Graph500 R-MAT\n"
         "  gen:uniform:ROWS:COLS:K[:SEED]   K distinct random columns per row\n"
         "  gen:prolong:N:B:tentative|smoothed  aggregation prolongator for gen:p3d7:N with B^3 aggregates\n"
         "  gen:prolong2d:N:B                tentative prolongator for gen:p2d5:N with B^2 aggregates\n"
         "  gen:elast:N:K                    27-point 3D pattern of dense K x K blocks (elasticity-like, K per point)\n"
         "  gen:blockprolong:N:B:K           tentative prolongator for gen:elast:N:K (B^3 aggregates, K columns "
         "each)\n";
}

/// Reads or generates the matrix named by spec; throws InvalidInput for an unknown or malformed spec.
template <class Scalar, class Ordinal = int, class Offset = int>
CsrMatrix<Scalar, Ordinal, Offset, Kokkos::HostSpace> load_input(const std::string& spec) {
  if (spec.rfind("gen:", 0) != 0) return read_matrix_market<Scalar, Ordinal, Offset>(spec);
  std::vector<std::string> f;
  std::stringstream s(spec.substr(4));
  for (std::string part; std::getline(s, part, ':');) f.push_back(part);
  auto num = [&](std::size_t i, long long fallback) -> long long {
    if (i >= f.size()) {
      KOKKOSSPGEMM_REQUIRE(fallback >= 0, InvalidInput, "load_input", "'" << spec << "' needs more fields");
      return fallback;
    }
    try {
      std::size_t used = 0;
      const long long v = std::stoll(f[i], &used);
      if (used == f[i].size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    KOKKOSSPGEMM_REQUIRE(false, InvalidInput, "load_input", "'" << f[i] << "' in '" << spec << "' is not a count");
    return 0;
  };
  const std::string kind = f.empty() ? "" : f[0];
  if (kind == "p2d5") return poisson_2d_5pt<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)));
  if (kind == "p2d9") return poisson_2d_9pt<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)));
  if (kind == "p3d7") return poisson_3d_7pt<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)));
  if (kind == "p3d27") return poisson_3d_27pt<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)));
  if (kind == "rmat") {
    return rmat<Scalar, Ordinal, Offset>(static_cast<int>(num(1, -1)), static_cast<int>(num(2, -1)),
                                         static_cast<std::uint64_t>(num(3, 1)));
  }
  if (kind == "uniform") {
    return uniform_random<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)), static_cast<Ordinal>(num(2, -1)),
                                                   static_cast<Ordinal>(num(3, -1)),
                                                   static_cast<std::uint64_t>(num(4, 1)));
  }
  if (kind == "prolong") {
    const std::string mode = f.size() > 3 ? f[3] : "tentative";
    KOKKOSSPGEMM_REQUIRE(mode == "tentative" || mode == "smoothed", InvalidInput, "load_input",
                         "'" << mode << "' in '" << spec << "' must be tentative or smoothed");
    return aggregation_prolongator<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)),
                                                            static_cast<Ordinal>(num(2, -1)), mode == "smoothed");
  }
  if (kind == "prolong2d") {
    return tentative_prolongator<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)), 2,
                                                          static_cast<Ordinal>(num(2, -1)));
  }
  if (kind == "elast") {
    return block_stencil_3d_27pt<Scalar, Ordinal, Offset>(static_cast<Ordinal>(num(1, -1)),
                                                          static_cast<Ordinal>(num(2, -1)));
  }
  if (kind == "blockprolong") {
    return tentative_prolongator<Scalar, Ordinal, Offset>(
        static_cast<Ordinal>(num(1, -1)), 3, static_cast<Ordinal>(num(2, -1)), static_cast<Ordinal>(num(3, -1)));
  }
  KOKKOSSPGEMM_REQUIRE(false, InvalidInput, "load_input",
                       "unknown generator '" << kind << "' in '" << spec << "'; accepted:\n"
                                             << input_spec_help());
  return {};
}

}  // namespace KokkosSpGEMM

#endif
