// Products that run at the same time: on several execution space instances of one device (CUDA streams) with their
// calls interleaved and no fence between instances, and from several host threads with their own handles and
// instances; and one product's bins side by side on streams of its own (Tuning::launch_queues). Every C is checked
// against the reference; the temporary cache serves them all.
#include <SpGEMMTestHelpers.hpp>

#include <cstdint>
#include <cstring>
#include <exception>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace KokkosSpGEMMTest {

/// n instances of Exec: on GPUs with Kokkos 4, partitions of the default instance (streams); elsewhere n copies of
/// it (the calls still interleave, in one order).
template <class Exec>
std::vector<Exec> execution_instances(int n) {
#if KOKKOS_VERSION >= 40000
  if constexpr (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
    return Kokkos::Experimental::partition_space(Exec(), std::vector<int>(n, 1));
  }
#endif
  return std::vector<Exec>(n, Exec());
}

/// One product's calls on one instance: symbolic, numeric, a reuse call with new values, and a one-shot.
template <class Exec>
struct ProductOnInstance {
  using Device = KokkosSpGEMM::CsrMatrix<double, int, int, typename Exec::memory_space>;
  Exec exec;
  HostCsr<double> a, b, a2, b2;
  KokkosSpGEMM::Handle<Exec, double> handle;
  Device da, db, c, one_shot;

  ProductOnInstance(const Exec& e, HostCsr<double> a_, HostCsr<double> b_)
      : exec(e),
        a(std::move(a_)),
        b(std::move(b_)),
        a2(with_new_values(a, -0.5, 2.0)),
        b2(with_new_values(b, 1.5, 0.25)) {}

  void step(int s) {
    switch (s) {
      case 0:
        da = KokkosSpGEMM::copy_to(exec, a);
        db = KokkosSpGEMM::copy_to(exec, b);
        return KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
      case 1:
        return KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
      case 2:
        return KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);  // makes the position map
      case 3:
        da = KokkosSpGEMM::copy_to(exec, a2);
        db = KokkosSpGEMM::copy_to(exec, b2);
        return KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);  // replays it with new values
      default:
        one_shot = KokkosSpGEMM::spgemm(exec, da, db);
    }
  }
  static constexpr int steps = 5;

  void expect_right(const std::string& what) const {
    auto cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2);
    EXPECT_TRUE(cmp.ok) << what << ", reuse: " << cmp.message;
    cmp = KokkosSpGEMM::compare_to_reference(one_shot, a2, b2);
    EXPECT_TRUE(cmp.ok) << what << ", one-shot: " << cmp.message;
  }
};

inline std::vector<std::pair<HostCsr<double>, HostCsr<double>>> concurrent_cases() {
  return {{KokkosSpGEMM::poisson_3d_27pt<double, int, int>(12), KokkosSpGEMM::poisson_3d_27pt<double, int, int>(12)},
          {KokkosSpGEMM::rmat<double, int, int>(11, 8, 3), KokkosSpGEMM::rmat<double, int, int>(11, 8, 3)},
          {KokkosSpGEMM::uniform_random<double, int, int>(3000, 2000, 12, 5),
           KokkosSpGEMM::uniform_random<double, int, int>(2000, 4000, 9, 6)}};
}

TEST(TEST_CATEGORY, products_on_several_instances_at_once) {
  using Exec = TEST_EXECSPACE;
  const auto cases = concurrent_cases();
  const auto instances = execution_instances<Exec>(static_cast<int>(cases.size()));
  std::vector<ProductOnInstance<Exec>> runs;
  for (std::size_t i = 0; i < cases.size(); ++i) runs.emplace_back(instances[i], cases[i].first, cases[i].second);
  // Each step on every instance before the next step: work of several products in flight at once.
  for (int s = 0; s < ProductOnInstance<Exec>::steps; ++s) {
    for (auto& run : runs) run.step(s);
  }
  for (const Exec& e : instances) e.fence();
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].expect_right("instance " + std::to_string(i));
}

TEST(TEST_CATEGORY, products_from_several_host_threads) {
  using Exec = TEST_EXECSPACE;
#if KOKKOS_VERSION < 40000
  GTEST_SKIP() << "needs Kokkos 4 (execution space instances dispatched from several host threads)";
#else
  if (!KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
    GTEST_SKIP() << "a CPU space's instance takes the host threads itself: one caller at a time";
  }
  const auto cases = concurrent_cases();
  const auto instances = execution_instances<Exec>(static_cast<int>(cases.size()));
  std::vector<ProductOnInstance<Exec>> runs;
  for (std::size_t i = 0; i < cases.size(); ++i) runs.emplace_back(instances[i], cases[i].first, cases[i].second);
  std::vector<std::exception_ptr> errors(runs.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        for (int round = 0; round < 2; ++round) {
          runs[i].handle.reset();
          for (int s = 0; s < ProductOnInstance<Exec>::steps; ++s) runs[i].step(s);
        }
        runs[i].exec.fence();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (errors[i]) {
      try {
        std::rethrow_exception(errors[i]);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "thread " << i << " threw: " << e.what();
      }
      continue;
    }
    runs[i].expect_right("thread " + std::to_string(i));
  }
#endif
}

/// The instances (Kokkos' tools' device ids, which name the instance) that the kernels of both phases were launched
/// on, while recording.
struct RowLaunches {
  static std::vector<std::uint32_t>& devices() {
    static std::vector<std::uint32_t> d;
    return d;
  }
  static void begin(const char* name, const std::uint32_t device, std::uint64_t*) {
    const bool phase = std::strncmp(name, "KokkosSpGEMM::Symbolic::", 24) == 0 ||
                       std::strncmp(name, "KokkosSpGEMM::Numeric::", 23) == 0;
    if (phase) devices().push_back(device);
  }
};

TEST(TEST_CATEGORY, bins_launch_side_by_side_on_gpus) {
  using Exec = TEST_EXECSPACE;
  // R-MAT: rows of every length, so both phases have many bins, most without a pool.
  const auto a = KokkosSpGEMM::rmat<double, int, int>(12, 8, 5);
  for (const int queues : {1, 2, 4}) {
    TestOptions o;
    o.launch_queues = queues;
    o.one_pass_max_bytes = 0;  // one host thread would take the one pass, without the phases' row kernels
    RowLaunches::devices().clear();
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&RowLaunches::begin);
    expect_matches_reference<Exec>(a, a, o, "launch_queues " + std::to_string(queues));
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    const auto& seen = RowLaunches::devices();
    const std::set<std::uint32_t> instances(seen.begin(), seen.end());
    EXPECT_GE(seen.size(), 2u) << "row-kernel launches of both phases";
    if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu && queues > 1) {
      // A phase spreads three or more launches without a pool: two queues are used, four where there are four.
      EXPECT_GE(seen.size(), 4u) << "row-kernel launches of both phases";
      if (queues == 2) EXPECT_EQ(instances.size(), 2u) << "launches on " << instances.size() << " instances";
      EXPECT_GE(instances.size(), 2u) << "launches on " << instances.size() << " instances";
      EXPECT_LE(instances.size(), static_cast<std::size_t>(queues))
          << "launches on " << instances.size() << " instances";
    } else {
      EXPECT_EQ(instances.size(), 1u) << "launches on " << instances.size() << " instances";
    }
  }
}

}  // namespace KokkosSpGEMMTest
