// CPU + GPU SpGEMM for scale-free matrices (HH-CPU, Ramamoorthy et al.): the products that meet B's longest rows
// run on the host execution space while the device runs the rest, at the same time, and the two partial products
// are added on the device. The static form of the paper's split: its work queue starts the CPU on A_L*B_H and the
// GPU on A_H*B_L; here the CPU keeps every product with a high row of B (A_H*B_H and A_L*B_H) and the threshold is
// set so that the host gets SplitOptions::host_fraction of the products.
#ifndef KOKKOSSPGEMM_HOSTDEVICESPLIT_HPP
#define KOKKOSSPGEMM_HOSTDEVICESPLIT_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Options.hpp>
#include <KokkosSpGEMM_SpGEMM.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <impl/operations/KokkosSpGEMM_SparseAdd.hpp>
#include <impl/operations/KokkosSpGEMM_SplitPartition.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <thread>
#include <type_traits>

namespace KokkosSpGEMM {

/// What spgemm_split did: the threshold on B's row lengths, the products each side got, and the stage times.
struct SplitReport {
  std::int64_t threshold = 0;      ///< rows of B with at least this many entries went to the host
  std::int64_t host_products = 0;  ///< products computed on the host
  std::int64_t products = 0;       ///< all products
  bool concurrent = false;         ///< host and device ran at the same time (false when they are one space)
  double partition_seconds = 0, host_seconds = 0, device_seconds = 0, merge_seconds = 0;
};

/// The choice of spgemm_split beside those of the multiplication (Options).
struct SplitOptions {
  /// The share of the products (those meeting B's longest rows) computed on the host execution space while the
  /// device computes the rest; 0 keeps everything on the device.
  double host_fraction = 0;
};

/// C = A*B on the device space with SplitOptions::host_fraction of the products on the host space at the same time.
/// A and B live in the device's memory; C is returned there with sorted rows (offset type as in spgemm). With
/// host_fraction 0, or when no row of B is light enough to give the host a share, this is spgemm on the device.
/// Throws what spgemm throws, and InvalidInput for a fraction outside [0, 1].
template <class COffset = void, class DeviceExec, class HostExec, class AMatrix, class BMatrix>
auto spgemm_split(const DeviceExec& device, const HostExec& host, const AMatrix& a, const BMatrix& b,
                  const SplitOptions& split, const Options& options = Options(), SplitReport* report = nullptr) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  using S = typename AMatrix::scalar_type;
  using O = typename AMatrix::ordinal_type;
  using DeviceMemory = typename DeviceExec::memory_space;
  using CMatrix = CsrMatrix<S, O, Offset, DeviceMemory>;
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  Impl::ProfilingRegion region("KokkosSpGEMM::spgemm_split");
  KOKKOSSPGEMM_REQUIRE(split.host_fraction >= 0 && split.host_fraction <= 1, InvalidInput, "spgemm_split",
                       "host_fraction is " << split.host_fraction << ", not in [0, 1]");
  Impl::check_operands(device, "spgemm_split", a, b);
  SplitReport r;
  Options sorted = options;
  sorted.sorted = true;  // the merge needs sorted partial rows

  auto t0 = Clock::now();
  std::int64_t host_products = 0;
  r.threshold = Impl::split_threshold(device, a, b, split.host_fraction, host_products, r.products);
  if (host_products == 0) {
    CMatrix c = spgemm<Offset>(device, a, b, sorted);
    device.fence();
    r.device_seconds = seconds(t0);
    if (report) *report = r;
    return c;
  }
  using Part = CsrMatrix<S, O, typename AMatrix::offset_type, DeviceMemory>;
  Part a_host_part, a_device_part;
  Impl::split_by_b_rows(device, a, b, r.threshold, a_host_part, a_device_part);
  const auto a_host = copy_to(host, a_host_part);
  const auto b_host = copy_to(host, b);
  device.fence();
  r.partition_seconds = seconds(t0);
  r.host_products = host_products;

  CsrMatrix<S, O, Offset, typename HostExec::memory_space> c_host;
  std::exception_ptr host_error;
  auto host_work = [&] {
    try {
      const auto t = Clock::now();
      c_host = spgemm<Offset>(host, a_host, b_host, sorted);
      host.fence();
      r.host_seconds = seconds(t);
    } catch (...) {
      host_error = std::current_exception();
    }
  };
  CMatrix c_device;
  // One execution space cannot run two pipelines at once (its instance state is shared): then one after the other.
  r.concurrent = !std::is_same<DeviceExec, HostExec>::value;
  if (r.concurrent) {
    std::thread host_thread(host_work);
    try {
      const auto t = Clock::now();
      c_device = spgemm<Offset>(device, a_device_part, b, sorted);
      device.fence();
      r.device_seconds = seconds(t);
    } catch (...) {
      host_thread.join();
      throw;
    }
    host_thread.join();
  } else {
    host_work();
    const auto t = Clock::now();
    c_device = spgemm<Offset>(device, a_device_part, b, sorted);
    device.fence();
    r.device_seconds = seconds(t);
  }
  if (host_error) std::rethrow_exception(host_error);

  t0 = Clock::now();
  const CMatrix c = Impl::add_sorted(device, c_device, copy_to(device, c_host), "spgemm_split");
  device.fence();
  r.merge_seconds = seconds(t0);
  if (report) *report = r;
  return c;
}

}  // namespace KokkosSpGEMM

#endif
