// Which row methods a handle's pipeline compiles. A Handle's last template parameter names the set: CoreMethods (by
// default: the hash, dense, bitmap, single-entry and merge rows that Algorithm::Auto picks from) or ResearchMethods
// (<KokkosSpGEMM_Methods.hpp>), which adds heap, ESC, segmented merge, bhSPARSE and RMerge. The pipeline reaches a
// research method only under `if constexpr (Methods::research)` and through Methods' own members, so a translation
// unit that never names ResearchMethods compiles none of their kernels.
#ifndef KOKKOSSPGEMM_METHODSET_HPP
#define KOKKOSSPGEMM_METHODSET_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Options.hpp>

namespace KokkosSpGEMM {

/// The row methods of a plain Handle: what Algorithm::Auto, Hash, Dense and Merge run.
struct CoreMethods {
  static constexpr bool research = false;
};

namespace Impl {

/// Throws InvalidInput when the algorithm is a research method and Methods does not compile them.
template <class Methods>
void require_methods(const char* function, Algorithm a) {
  if constexpr (!Methods::research) {
    KOKKOSSPGEMM_REQUIRE(!is_research_method(a), InvalidInput, function,
                         "algorithm '" << algorithm_name(a)
                                       << "' is a research method, compiled only for a KokkosSpGEMM::MethodsHandle "
                                          "(or spgemm_methods) from <KokkosSpGEMM_Methods.hpp>");
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
