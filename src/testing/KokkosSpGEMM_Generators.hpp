// Test and benchmark matrices: Poisson stencils, aggregation prolongators, R-MAT, uniform random, a random family.
#ifndef KOKKOSSPGEMM_GENERATORS_HPP
#define KOKKOSSPGEMM_GENERATORS_HPP

#include <testing/KokkosSpGEMM_GeneratorsRandom.hpp>
#include <testing/KokkosSpGEMM_GeneratorsStencil.hpp>

#endif
