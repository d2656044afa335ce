// What tests, benchmarks and the tool use beside the library (target KokkosSpGEMM::testing): the simple serial
// reference product every kernel is checked against, generators of stencil, random and power-law matrices, and where
// the SuiteSparse test matrices are.
#ifndef KOKKOSSPGEMM_TESTING_HPP
#define KOKKOSSPGEMM_TESTING_HPP

#include <testing/KokkosSpGEMM_CsrBuilder.hpp>
#include <testing/KokkosSpGEMM_Reference.hpp>
#include <testing/KokkosSpGEMM_ReferenceSemiring.hpp>
#include <testing/KokkosSpGEMM_Generators.hpp>
#include <testing/KokkosSpGEMM_TestMatrices.hpp>

#endif
