// The one door of the pipeline into a handle's private analysis (as ArborX lets its internals into a BVH through
// one friend struct): every handle class befriends HandleAccess, and Impl code reaches its state with state(h).
#ifndef KOKKOSSPGEMM_HANDLEACCESS_HPP
#define KOKKOSSPGEMM_HANDLEACCESS_HPP

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

struct HandleAccess {
  template <class H>
  static auto& state(H& h) {
    return h.m_state;
  }
};

/// A handle's state (const when the handle is).
template <class H>
auto& state(H& h) {
  return HandleAccess::state(h);
}

/// What identifies a structure pair: shapes and entry counts, plus pattern hashes when checking is on.
struct StructureSignature {
  std::int64_t a_rows = -1, a_cols = -1, a_nnz = -1, b_rows = -1, b_cols = -1, b_nnz = -1;
  std::uint64_t a_hash = 0, b_hash = 0;
  bool operator==(const StructureSignature& o) const {
    return a_rows == o.a_rows && a_cols == o.a_cols && a_nnz == o.a_nnz && b_rows == o.b_rows && b_cols == o.b_cols &&
           b_nnz == o.b_nnz && a_hash == o.a_hash && b_hash == o.b_hash;
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
