// Where a rank's time in a distributed call went (the tool reports maxima over ranks).
#ifndef KOKKOSSPGEMM_PHASETIMES_HPP
#define KOKKOSSPGEMM_PHASETIMES_HPP

#include <chrono>

namespace KokkosSpGEMM {
namespace Distributed {

/// Seconds a rank spent in each part of its last call on a handle (the tool reports the maximum over ranks).
struct PhaseTimes {
  double transpose = 0;  ///< forming op(A), op(B) when transposed
  double import = 0;     ///< B's remote rows: plan and exchange (symbolic), values in flight not hidden (numeric)
  double local = 0;      ///< our local kernel (symbolic + numeric, or numeric)
  double fill = 0;       ///< C's column map, relabelling, construction and fill-complete (symbolic only)
  double total = 0;
};

namespace Impl {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace Impl
}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
