// KokkosSpGEMM: portable sparse matrix-matrix multiplication (C = A*B, CSR) on Kokkos. Include this one header for
// the library; <testing/KokkosSpGEMM_Testing.hpp> adds the reference product and the matrix generators, and
// <io/KokkosSpGEMM_MatrixMarket.hpp> reads and writes Matrix Market files.
#ifndef KOKKOSSPGEMM_HPP
#define KOKKOSSPGEMM_HPP

#include <KokkosSpGEMM_Config.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_BsrMatrix.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_Semirings.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <KokkosSpGEMM_TemporaryCache.hpp>
#include <operations/KokkosSpGEMM_SortRows.hpp>
#include <operations/KokkosSpGEMM_SegmentedMerge.hpp>
#include <operations/KokkosSpGEMM_Transpose.hpp>
#include <operations/KokkosSpGEMM_TransposedProducts.hpp>
#include <operations/KokkosSpGEMM_Galerkin.hpp>
#include <operations/KokkosSpGEMM_Jacobi.hpp>
#include <operations/KokkosSpGEMM_BlockConversion.hpp>
#include <operations/KokkosSpGEMM_BlockSpGEMM.hpp>
#include <operations/KokkosSpGEMM_BlockGalerkin.hpp>
#include <operations/KokkosSpGEMM_HostDeviceSplit.hpp>
#include <operations/KokkosSpGEMM_SemiringProducts.hpp>
#include <operations/KokkosSpGEMM_MaskedSpGEMM.hpp>
#include <operations/KokkosSpGEMM_Triangles.hpp>

#endif
