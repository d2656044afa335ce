// Where the tests find the SuiteSparse matrices they read (not part of the repository): $KOKKOSSPGEMM_TEST_MATRICES,
// else the folder CMake was given (by default ../shared/matrices beside the clone). A test that needs them calls
// KOKKOSSPGEMM_NEED_TEST_MATRICES() first: without them it is skipped with one line saying how to point at them, or
// fails where KOKKOSSPGEMM_REQUIRE_TEST_MATRICES is set (CI sets it, so a skip cannot hide them there).
#ifndef KOKKOSSPGEMM_TESTMATRICESDIR_HPP
#define KOKKOSSPGEMM_TESTMATRICESDIR_HPP

#include <testing/KokkosSpGEMM_TestMatrices.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace KokkosSpGEMMTest {

/// The folder of the shared SuiteSparse matrices: $KOKKOSSPGEMM_TEST_MATRICES, else the one CMake was given.
inline std::string test_matrices_dir() { return KokkosSpGEMM::test_matrices_dir(KOKKOSSPGEMM_TEST_MATRICES); }

/// Empty when the folder holds MANIFEST.csv; otherwise what is missing.
inline std::string test_matrices_missing() {
  const std::string dir = test_matrices_dir();
  if (dir.empty()) return "no folder given";
  std::ifstream manifest(dir + "/MANIFEST.csv");
  return manifest.good() ? std::string() : "no " + dir + "/MANIFEST.csv";
}

inline std::string test_matrices_advice(const std::string& missing) {
  return "needs the SuiteSparse test matrices (" + missing +
         "): set KOKKOSSPGEMM_TEST_MATRICES (environment or CMake) to a folder with MANIFEST.csv and the .mtx.gz files";
}

}  // namespace KokkosSpGEMMTest

/// Skips the calling test (fails it under KOKKOSSPGEMM_REQUIRE_TEST_MATRICES) when the shared matrices are missing.
#define KOKKOSSPGEMM_NEED_TEST_MATRICES()                                                  \
  do {                                                                                     \
    const std::string kokkosspgemm_missing_ = ::KokkosSpGEMMTest::test_matrices_missing(); \
    if (!kokkosspgemm_missing_.empty()) {                                                  \
      if (::KokkosSpGEMM::test_matrices_required()) {                                      \
        FAIL() << ::KokkosSpGEMMTest::test_matrices_advice(kokkosspgemm_missing_)          \
               << " (KOKKOSSPGEMM_REQUIRE_TEST_MATRICES is set)";                          \
      }                                                                                    \
      GTEST_SKIP() << ::KokkosSpGEMMTest::test_matrices_advice(kokkosspgemm_missing_);     \
    }                                                                                      \
  } while (0)

#endif
