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

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

template <class ExecSpace>
struct ReplayGraph {
  LaunchGraph<ExecSpace> graph;
  ExecSpace exec;
  std::vector<std::uint64_t> key;
  bool made = false;
};

/// What a replay's kernels take from the call: every array of A, B and C (address and length), the mask's and the
/// checks' arrays, and the flags that choose kernels.
template <class Views, class Status>
std::vector<std::uint64_t> replay_graph_key(const Views& v, const Status& status, bool operands_checked,
                                            bool deterministic) {
  std::vector<std::uint64_t> key;
  key.reserve(24);
  auto add = [&](const auto& view) {
    key.push_back(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(view.data())));
    key.push_back(static_cast<std::uint64_t>(view.extent(0)));
  };
  add(v.a_rows);
  add(v.a_cols);
  add(v.a_vals);
  add(v.b_rows);
  add(v.b_cols);
  add(v.b_vals);
  add(v.c_rows);
  add(v.c_cols);
  add(v.c_vals);
  add(v.mask_rows);
  add(v.mask_cols);
  add(status);
  key.push_back(static_cast<std::uint64_t>(v.b_num_cols));
  key.push_back((v.unit_b ? 1u : 0u) | (operands_checked ? 2u : 0u) | (deterministic ? 4u : 0u));
  return key;
}

/// Runs launches() (the replay's launches on exec, nothing else) as plain launches or through the map's graph.
/// use: the call may take a graph (Tuning::replay_graphs, deferred checks, every launch in launches()).
template <class ExecSpace, class Map, class Launches>
void launch_replay(const ExecSpace& exec, Map& map, std::vector<std::uint64_t> key, bool use,
                   const Launches& launches) {
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
      g.key = std::move(key);
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
