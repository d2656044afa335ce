// The tool's --profile: where a call's time goes, from Kokkos Tools callbacks installed around it (kernels by
// label, deep copies, allocations). Host clocks only, so kernel times are real with CUDA_LAUNCH_BLOCKING=1 (each
// launch then returns when the kernel is done); the remainder is host work: allocation, frees, planning.
#ifndef KOKKOSSPGEMM_KERNELTIMELINE_HPP
#define KOKKOSSPGEMM_KERNELTIMELINE_HPP

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace KokkosSpGEMMTool {

struct KernelTimeline {
  struct Entry {
    int count = 0;
    double seconds = 0;
  };
  std::map<std::string, Entry> kernels, allocated;  // allocated: count and bytes (as seconds' slot) per label
  Entry copies, allocations;
  std::uint64_t allocated_bytes = 0;
  std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> open;
  std::chrono::steady_clock::time_point copy_start;
  std::vector<std::pair<std::chrono::steady_clock::time_point, std::string>> events;
  static void event(std::string what) {
    current().events.emplace_back(std::chrono::steady_clock::now(), std::move(what));
  }
  static void begin_fence(const char* name, const std::uint32_t, std::uint64_t* id) {
    *id = 0;
    event(std::string("fence ") + name);
  }
  static void end_fence(const std::uint64_t) { event("fence done"); }
  static void free_data(Kokkos_Profiling_SpaceHandle, const char* label, const void*, std::uint64_t bytes) {
    event(std::string("free ") + label + " " + std::to_string(bytes));
  }

  static KernelTimeline& current() {
    static KernelTimeline t;
    return t;
  }
  static double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  static void begin(const char* name, const std::uint32_t, std::uint64_t* id) {
    auto& t = current();
    *id = t.open.size();
    event(std::string("begin ") + name);
    t.open.emplace_back(name, std::chrono::steady_clock::now());
  }
  static void end(const std::uint64_t id) {
    auto& t = current();
    Entry& e = t.kernels[t.open[id].first];
    ++e.count;
    e.seconds += since(t.open[id].second);
    event("end");
  }
  static void begin_copy(Kokkos_Profiling_SpaceHandle, const char*, const void*, Kokkos_Profiling_SpaceHandle,
                         const char*, const void*, std::uint64_t) {
    current().copy_start = std::chrono::steady_clock::now();
    event("copy");
  }
  static void end_copy() {
    auto& t = current();
    ++t.copies.count;
    t.copies.seconds += since(t.copy_start);
  }
  static void allocate(Kokkos_Profiling_SpaceHandle, const char* label, const void*, std::uint64_t bytes) {
    ++current().allocations.count;
    current().allocated_bytes += bytes;
    event(std::string("alloc ") + label + " " + std::to_string(bytes));
    Entry& e = current().allocated[label];
    ++e.count;
    e.seconds += bytes;
  }

  /// Installs (on) or removes the callbacks: kernels, or with async fences instead; copies and allocations always.
  static void set_callbacks(bool on, bool async) {
    namespace T = Kokkos::Tools::Experimental;
    const bool kernels = on && !async, fences = on && async;
    T::set_begin_parallel_for_callback(kernels ? &begin : nullptr);
    T::set_begin_parallel_reduce_callback(kernels ? &begin : nullptr);
    T::set_begin_parallel_scan_callback(kernels ? &begin : nullptr);
    T::set_end_parallel_for_callback(kernels ? &end : nullptr);
    T::set_end_parallel_reduce_callback(kernels ? &end : nullptr);
    T::set_end_parallel_scan_callback(kernels ? &end : nullptr);
    T::set_begin_fence_callback(fences ? &begin_fence : nullptr);
    T::set_end_fence_callback(fences ? &end_fence : nullptr);
    T::set_begin_deep_copy_callback(on ? &begin_copy : nullptr);
    T::set_end_deep_copy_callback(on ? &end_copy : nullptr);
    T::set_allocate_data_callback(on ? &allocate : nullptr);
    T::set_deallocate_data_callback(on ? &free_data : nullptr);
  }

  /// Runs f with the callbacks on and prints the breakdown of its wall time.
  static void profile(const char* what, const std::function<void()>& f) {
    Kokkos::fence();
    current() = KernelTimeline();
    // KOKKOSSPGEMM_TIMELINE=async: no kernel callbacks (Kokkos fences around those), so the events show where the
    // host really waits (fences, copies, frees).
    const char* timeline = std::getenv("KOKKOSSPGEMM_TIMELINE");
    const bool async = timeline && std::string(timeline) == "async";
    set_callbacks(true, async);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    const double wall = since(t0);
    set_callbacks(false, async);
    const auto& t = current();
    std::vector<std::pair<std::string, Entry>> rows(t.kernels.begin(), t.kernels.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& x, const auto& y) { return x.second.seconds > y.second.seconds; });
    double kernels = 0;
    int launches = 0;
    for (const auto& r : rows) {
      kernels += r.second.seconds;
      launches += r.second.count;
    }
    std::printf(
        "profile of %s: wall %.6f s; %d launches %.6f s; %d deep copies %.6f s; %d allocations (%.1f MB); "
        "rest (host work, frees) %.6f s\n",
        what, wall, launches, kernels, t.copies.count, t.copies.seconds, t.allocations.count, t.allocated_bytes / 1e6,
        wall - kernels - t.copies.seconds);
    for (const auto& r : rows) {
      std::printf("  %10.6f s %5d x  %s\n", r.second.seconds, r.second.count, r.first.c_str());
    }
    if (timeline) {
      for (const auto& [when, what] : t.events) {
        std::printf("    %9.1f us  %s\n", std::chrono::duration<double>(when - t0).count() * 1e6, what.c_str());
      }
    }
    for (const auto& [label, e] : t.allocated) {
      std::printf("  allocated %5d x %12.0f B  %s\n", e.count, e.seconds, label.c_str());
    }
  }
};

}  // namespace KokkosSpGEMMTool

#endif
