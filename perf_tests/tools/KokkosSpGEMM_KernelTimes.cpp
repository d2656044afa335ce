// A Kokkos Tools library that times every kernel, copy and fence of a run, fenced (Kokkos fences around each kernel
// while a tool is loaded), grouped by the profiling regions they ran in (KokkosSpGEMM::spgemm_symbolic, ...): which
// kernels a call launches, how often, and for how long each. Load it into any KokkosSpGEMM program with
// KOKKOS_TOOLS_LIBS (Kokkos 4) or KOKKOS_PROFILE_LIBRARY (Kokkos 3) set to its path; the table goes to the file named
// by KOKKOSSPGEMM_KERNEL_TIMES, or to stderr. Fenced times include each launch's wait and are not the unfenced
// run's: compare kernels and counts between binaries, not totals against a benchmark. No Kokkos headers: the tools
// interface is a C ABI. Each region's calls are also grouped by their sequence of events (a call's shape: the same
// kernels, copies, fences and allocations in the same order), and each shape is listed once in order with its count
// and its last call's times (S lines): a benchmark's timed calls show as the shape its repeats share.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Total {
  long count = 0;
  double us = 0;
};

struct Open {
  std::string key;
  double start = 0;
};

struct Region {
  std::string name;
  double start = 0;
  double in_events = 0;  // time of the events within it (nested regions' included)
  std::string sequence;  // its own events in order, with their times
  std::string shape;     // the same without the times
};

struct Shape {
  long count = 0;
  std::string sequence;  // the last call's
};

std::map<std::string, Total> events;
std::map<std::string, Total> regions, region_events;
std::map<std::string, std::map<std::string, Shape>> shapes;
std::vector<Region> stack;
std::map<std::uint64_t, Open> open;
std::uint64_t next_id = 1;
Open copy;

std::string path() {
  std::string p;
  for (const Region& r : stack) p += r.name + "/";
  return p.empty() ? "-" : p;
}

void begin(const char* kind, const char* name, std::uint64_t* id) {
  *id = next_id++;
  open[*id] = {path() + " | " + kind + " " + name, now_us()};
}

void close(const std::string& key, double start) {
  const double us = now_us() - start;
  Total& t = events[key];
  ++t.count;
  t.us += us;
  if (!stack.empty()) {
    stack.back().in_events += us;
    char time[32];
    std::snprintf(time, sizeof(time), " %.1f", us);
    const std::string event = "\n    " + key.substr(key.find(" | ") + 3);
    stack.back().sequence += event + time;
    stack.back().shape += event;
  }
}

void end(std::uint64_t id) {
  const auto it = open.find(id);
  if (it == open.end()) return;
  close(it->second.key, it->second.start);
  open.erase(it);
}

struct SpaceHandle {
  char name[64];
};

}  // namespace

extern "C" {

void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}

void kokkosp_finalize_library() {
  const char* file = std::getenv("KOKKOSSPGEMM_KERNEL_TIMES");
  FILE* out = file != nullptr ? std::fopen(file, "w") : nullptr;
  if (out == nullptr) out = stderr;
  std::fprintf(out, "# regions: R path | calls | us a call | us a call in events | us a call between events\n");
  for (const auto& [name, t] : regions) {
    const double in = region_events[name].us;
    std::fprintf(out, "R %s | %ld | %.1f | %.1f | %.1f\n", name.c_str(), t.count, t.us / t.count, in / t.count,
                 (t.us - in) / t.count);
  }
  std::fprintf(out, "# events: E path | kind name | count | us in all | us each\n");
  for (const auto& [name, t] : events) {
    std::fprintf(out, "E %s | %ld | %.1f | %.2f\n", name.c_str(), t.count, t.us, t.count > 0 ? t.us / t.count : 0.0);
  }
  std::fprintf(out, "# each region's call shapes: S path [calls], then the last such call's events in order (us)\n");
  for (const auto& [name, by_shape] : shapes) {
    for (const auto& [shape, sh] : by_shape) {
      std::fprintf(out, "S %s [%ld]%s\n", name.c_str(), sh.count, sh.sequence.c_str());
    }
  }
  if (out != stderr) std::fclose(out);
}

void kokkosp_begin_parallel_for(const char* name, std::uint32_t, std::uint64_t* id) { begin("for", name, id); }
void kokkosp_end_parallel_for(std::uint64_t id) { end(id); }
void kokkosp_begin_parallel_scan(const char* name, std::uint32_t, std::uint64_t* id) { begin("scan", name, id); }
void kokkosp_end_parallel_scan(std::uint64_t id) { end(id); }
void kokkosp_begin_parallel_reduce(const char* name, std::uint32_t, std::uint64_t* id) { begin("reduce", name, id); }
void kokkosp_end_parallel_reduce(std::uint64_t id) { end(id); }

// The fences Kokkos adds around each kernel for a tool run inside the kernel's own begin and end: not counted twice.
void kokkosp_begin_fence(const char* name, std::uint32_t, std::uint64_t* id) {
  if (std::strstr(name, "Kokkos Profile Tool Fence") != nullptr) {
    *id = 0;
    return;
  }
  begin("fence", name, id);
}
void kokkosp_end_fence(std::uint64_t id) { end(id); }

void kokkosp_begin_deep_copy(SpaceHandle dst, const char* dst_name, const void*, SpaceHandle src, const char*,
                             const void*, std::uint64_t bytes) {
  copy = {path() + " | copy " + src.name + "->" + dst.name + " " + dst_name + (bytes <= 64 ? " (<= 64 B)" : ""),
          now_us()};
}
void kokkosp_end_deep_copy() { close(copy.key, copy.start); }

void kokkosp_allocate_data(SpaceHandle space, const char* label, const void*, std::uint64_t) {
  ++events[path() + " | alloc " + space.name + " " + label].count;
  if (!stack.empty()) {
    const std::string event = std::string("\n    alloc ") + space.name + " " + label;
    stack.back().sequence += event;
    stack.back().shape += event;
  }
}
void kokkosp_deallocate_data(SpaceHandle space, const char* label, const void*, std::uint64_t) {
  ++events[path() + " | free " + space.name + " " + label].count;
}

void kokkosp_push_profile_region(const char* name) { stack.push_back({name, now_us(), 0, {}, {}}); }
void kokkosp_pop_profile_region() {
  if (stack.empty()) return;
  const std::string p = path();
  const Region r = stack.back();
  stack.pop_back();
  Total& t = regions[p];
  ++t.count;
  t.us += now_us() - r.start;
  region_events[p].us += r.in_events;
  Shape& sh = shapes[p][r.shape];
  ++sh.count;
  sh.sequence = r.sequence;
  if (!stack.empty()) stack.back().in_events += r.in_events;
}

}  // extern "C"
