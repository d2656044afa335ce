// A Kokkos Tools library that times every kernel, copy and fence of a run, fenced (Kokkos fences around each kernel
// while a tool is loaded), grouped by the profiling regions they ran in (KokkosSpGEMM::spgemm_symbolic, ...): which
// kernels a call launches, how often, and for how long each. Load it into any KokkosSpGEMM program with
// KOKKOS_TOOLS_LIBS (Kokkos 4) or KOKKOS_PROFILE_LIBRARY (Kokkos 3) set to its path; the table goes to the file named
// by KOKKOSSPGEMM_KERNEL_TIMES, or to stderr. Fenced times include each launch's wait and are not the unfenced
// run's: compare kernels and counts between binaries, not totals against a benchmark. No Kokkos headers: the tools
// interface is a C ABI. The last call of each region is also listed in order, event by event (S lines).
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
};

std::map<std::string, Total> events;
std::map<std::string, Total> regions, region_events;
std::map<std::string, std::string> last_sequence;
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
    stack.back().sequence += "\n    " + key.substr(key.find(" | ") + 3) + time;
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
  std::fprintf(out, "# the last call of each region: S path, then its own events in order (kind name us)\n");
  for (const auto& [name, seq] : last_sequence) std::fprintf(out, "S %s%s\n", name.c_str(), seq.c_str());
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
  if (!stack.empty()) stack.back().sequence += std::string("\n    alloc ") + space.name + " " + label;
}
void kokkosp_deallocate_data(SpaceHandle space, const char* label, const void*, std::uint64_t) {
  ++events[path() + " | free " + space.name + " " + label].count;
}

void kokkosp_push_profile_region(const char* name) { stack.push_back({name, now_us(), 0, {}}); }
void kokkosp_pop_profile_region() {
  if (stack.empty()) return;
  const std::string p = path();
  const Region r = stack.back();
  stack.pop_back();
  Total& t = regions[p];
  ++t.count;
  t.us += now_us() - r.start;
  region_events[p].us += r.in_events;
  last_sequence[p] = r.sequence;
  if (!stack.empty()) stack.back().in_events += r.in_events;
}

}  // extern "C"
