// A deferred reuse call's replay launches recorded once as a graph (LaunchGraph, backend/BackendTraits.hpp) and
// launched as one by the later calls on the same arrays: a small product's replay pays the host time of each of its
// launches (about one a mapped run of bins, plus the operands' check), and a graph's launch costs about one of them.
//
// A graph holds what its kernels were given: the operands' and C's arrays, the map's and the checks' counters. So it
// serves only calls whose arrays are those it was recorded with (its key), on the same instance, and it dies with
// the map (PositionMap::replay_graph). The first call with a key runs the launches as usual, so that Kokkos' own state
// for those kernels (set up at their first launch) exists before anything is recorded; the second records and launches
// the graph; the later ones launch it. A recording that fails (or throws) leaves the map to plain launches.
#ifndef KOKKOSSPGEMM_REPLAYGRAPH_HPP
#define KOKKOSSPGEMM_REPLAYGRAPH_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace KokkosSpGEMM {
namespace Impl {

/// The arrays a replay's kernels take: A's, B's and C's three, the mask's two and the checks' counters.
constexpr std::size_t replay_graph_arrays = 12;
/// Each array's address and length, B's columns and the flags that choose kernels.
using ReplayGraphKey = std::array<std::uint64_t, 2 * replay_graph_arrays + 2>;

template <class ExecSpace>
struct ReplayGraph {
  LaunchGraph<ExecSpace> graph;
  ExecSpace exec;
  ReplayGraphKey key{};
  bool made = false;
};

/// What a replay's kernels take from the call: every array of A, B and C (address and length), the mask's and the
/// checks' arrays, and the flags that choose kernels.
template <class Views, class Status>
ReplayGraphKey replay_graph_key(const Views& v, const Status& status, bool operands_checked, bool deterministic) {
  auto at = [](const auto& view) {
    return std::array<std::uint64_t, 2>{static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(view.data())),
                                        static_cast<std::uint64_t>(view.extent(0))};
  };
  const std::array<std::array<std::uint64_t, 2>, replay_graph_arrays> arrays = {
      at(v.a_rows), at(v.a_cols), at(v.a_vals), at(v.b_rows),    at(v.b_cols),    at(v.b_vals),
      at(v.c_rows), at(v.c_cols), at(v.c_vals), at(v.mask_rows), at(v.mask_cols), at(status)};
  ReplayGraphKey key{};
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    key[2 * k] = arrays[k][0];
    key[2 * k + 1] = arrays[k][1];
  }
  key[2 * replay_graph_arrays] = static_cast<std::uint64_t>(v.b_num_cols);
  key[2 * replay_graph_arrays + 1] = (v.unit_b ? 1u : 0u) | (operands_checked ? 2u : 0u) | (deterministic ? 4u : 0u);
  return key;
}

/// Runs launches() (the replay's launches on exec, nothing else) as plain launches or through the map's graph.
/// use: the call may take a graph (Tuning::replay_graphs, deferred checks, every launch in launches()).
template <class ExecSpace, class Map, class Launches>
void launch_replay(const ExecSpace& exec, Map& map, const ReplayGraphKey& key, bool use, const Launches& launches) {
  if constexpr (!LaunchGraph<ExecSpace>::available) {
    (void)map;
    (void)key;
    (void)use;
    launches();
  } else {
    // Kokkos' tools fence around kernels, which a recording queue refuses.
    if (!use || map.replay_graph.refused || Kokkos::Profiling::profileLibraryLoaded()) {
      launches();
      return;
    }
    auto& slot = map.replay_graph.graph;
    if (!slot) slot = std::make_shared<ReplayGraph<ExecSpace>>();
    auto& g = *static_cast<ReplayGraph<ExecSpace>*>(slot.get());
    const bool same = same_instance(g.exec, exec) && g.key == key;
    if (same && g.made) {
      g.graph.launch(exec);
      return;
    }
    if (!same) {
      g.made = false;
      g.exec = exec;
      g.key = key;
      launches();
      return;
    }
    bool made = false;
    try {
      made = g.graph.capture(exec, launches);
    } catch (...) {
      made = false;
    }
    if (!made) {
      map.replay_graph.refused = true;
      launches();
      return;
    }
    g.made = true;
    g.graph.launch(exec);
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
