// A vendor peer's device buffer, freed on scope exit; Api gives allocate(void**, bytes) and release(void*)
// (cudaMalloc/cudaFree, hipMalloc/hipFree).
#ifndef KOKKOSSPGEMM_PEERBUFFER_HPP
#define KOKKOSSPGEMM_PEERBUFFER_HPP

#include <cstddef>
#include <utility>

namespace KokkosSpGEMMPerf {

template <class Api>
struct PeerBuffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  PeerBuffer() = default;
  explicit PeerBuffer(std::size_t n) : bytes(n) {
    if (n) Api::allocate(&ptr, n);
  }
  PeerBuffer(const PeerBuffer&) = delete;
  PeerBuffer& operator=(const PeerBuffer&) = delete;
  PeerBuffer(PeerBuffer&& o) noexcept : ptr(o.ptr), bytes(o.bytes) {
    o.ptr = nullptr;
    o.bytes = 0;
  }
  PeerBuffer& operator=(PeerBuffer&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(bytes, o.bytes);
    return *this;
  }
  ~PeerBuffer() {
    if (ptr) Api::release(ptr);
  }
};

}  // namespace KokkosSpGEMMPerf

#endif
