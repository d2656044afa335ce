#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

int main(int argc, char* argv[]) {
  // Listing the tests (ctest's discovery) needs no Kokkos: initialising it there would print its warnings into the
  // listing, which ctest would take for test names.
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--gtest_list_tests") == 0) {
      ::testing::InitGoogleTest(&argc, argv);
      return RUN_ALL_TESTS();
    }
  }
  // Unit tests want unbound threads (Kokkos' own advice); the caller's setting wins.
  setenv("OMP_PROC_BIND", "false", 0);
  // Kokkos reads its own --kokkos-* arguments and the OMP_NUM_THREADS / KOKKOS_NUM_THREADS environment.
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
