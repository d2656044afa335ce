// Test and benchmark matrices: Poisson stencils, aggregation prolongators, R-MAT, uniform random, a random family.
#ifndef KOKKOSSPGEMM_GENERATORS_HPP
#define KOKKOSSPGEMM_GENERATORS_HPP

#include <KokkosSpGEMM_GeneratorsRandom.hpp>
#include <KokkosSpGEMM_GeneratorsStencil.hpp>

#endif
