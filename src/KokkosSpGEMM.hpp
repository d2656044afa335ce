// KokkosSpGEMM: portable sparse matrix-matrix multiplication (C = A*B, CSR) on Kokkos. Include this one header.
#ifndef KOKKOSSPGEMM_HPP
#define KOKKOSSPGEMM_HPP

#include <KokkosSpGEMM_Config.hpp>
#include <KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Generators.hpp>
#include <KokkosSpGEMM_Reference.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <KokkosSpGEMM_SegmentedMerge.hpp>
#include <KokkosSpGEMM_SortRows.hpp>
#include <KokkosSpGEMM_Transpose.hpp>
#include <KokkosSpGEMM_TransposedProducts.hpp>
#include <KokkosSpGEMM_Galerkin.hpp>
#include <KokkosSpGEMM_HostDeviceSplit.hpp>
#include <KokkosSpGEMM_TemporaryCache.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>

#endif
