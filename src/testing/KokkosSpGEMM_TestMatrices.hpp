// Where tests and benchmarks find the SuiteSparse test matrices, which are not part of the repository, and whether
// their absence must fail rather than skip (CI has them and sets KOKKOSSPGEMM_REQUIRE_TEST_MATRICES).
#ifndef KOKKOSSPGEMM_TESTMATRICES_HPP
#define KOKKOSSPGEMM_TESTMATRICES_HPP

#include <cstdlib>
#include <string>

namespace KokkosSpGEMM {

/// $KOKKOSSPGEMM_TEST_MATRICES, else configured (the folder the build was given).
inline std::string test_matrices_dir(const std::string& configured) {
  const char* env = std::getenv("KOKKOSSPGEMM_TEST_MATRICES");
  return env && *env ? std::string(env) : configured;
}

/// True where missing test matrices must fail the tests that read them ($KOKKOSSPGEMM_REQUIRE_TEST_MATRICES set and
/// not 0).
inline bool test_matrices_required() {
  const char* env = std::getenv("KOKKOSSPGEMM_REQUIRE_TEST_MATRICES");
  return env && *env && std::string(env) != "0";
}

}  // namespace KokkosSpGEMM

#endif
