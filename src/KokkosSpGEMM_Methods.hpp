// The research row methods that Algorithm::Auto never picks (bhSPARSE's heap and ESC, their bhSPARSE combination,
// segmented merge, RMerge), kept selectable for comparison: a MethodsHandle or spgemm_methods runs them; a plain
// Handle and spgemm refuse them, so translation units that do not include this header do not compile them.
#ifndef KOKKOSSPGEMM_METHODS_HPP
#define KOKKOSSPGEMM_METHODS_HPP

#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <impl/methods/KokkosSpGEMM_MethodLaunch.hpp>
#include <impl/methods/KokkosSpGEMM_RMerge.hpp>

#include <cstdint>
#include <type_traits>

namespace KokkosSpGEMM {

/// The core row methods plus the research ones (the pipeline's hooks into them, see impl/methods/).
struct ResearchMethods {
  static constexpr bool research = true;

  /// One bin of the heap, ESC or segmented-merge rows; returns the bytes of its pool.
  template <bool Numeric, class ExecSpace, class Views, class Perm>
  static std::size_t launch_bin(const ExecSpace& exec, Impl::Workspace<ExecSpace>& workspace, const Views& v,
                                const Perm& perm, std::int64_t first, const Impl::BinConfig& c,
                                const Impl::Settings& options, std::size_t pool_budget) {
    return Impl::launch_method_bin<Numeric>(exec, workspace, v, perm, first, c, options, pool_budget);
  }

  /// RMerge's rounds over all rows; returns the bytes of its largest intermediate.
  template <bool Numeric, class ExecSpace, class Views>
  static std::size_t rmerge(const ExecSpace& exec, const Views& v, std::int64_t rows) {
    return Impl::rmerge_multiply<Numeric>(exec, v, rows);
  }

  template <class ExecSpace>
  static constexpr int rmerge_width() {
    return Impl::rmerge_width<ExecSpace>();
  }
};

/// A handle whose pipeline compiles the research methods as well (Options::algorithm may name any Algorithm).
template <class ExecSpace, class Scalar, class Ordinal = int, class Offset = int>
using MethodsHandle = Handle<ExecSpace, Scalar, Ordinal, Offset, ResearchMethods>;

/// One-shot C = A*B as spgemm, with the research methods compiled.
template <class COffset = void, class ExecSpace, class AMatrix, class BMatrix>
auto spgemm_methods(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const Options& options = Options(),
                    const Tuning& tuning = Tuning()) {
  return Impl::one_shot<COffset, ResearchMethods>(exec, a, b, options, tuning);
}

/// spgemm_methods with options and tuning knobs from one object of a type that derives from both.
template <class COffset = void, class ExecSpace, class AMatrix, class BMatrix, class Both,
          class = std::enable_if_t<std::is_base_of<Options, Both>::value && std::is_base_of<Tuning, Both>::value>>
auto spgemm_methods(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const Both& both) {
  return spgemm_methods<COffset>(exec, a, b, static_cast<const Options&>(both), static_cast<const Tuning&>(both));
}

}  // namespace KokkosSpGEMM

#endif
