// The public entry points. Data flow: input checks -> row bounds -> row bins -> bin configuration -> symbolic
// (per-bin counting, row map) -> numeric (per-bin accumulation, sorted rows). See impl/ for each stage.
#ifndef KOKKOSSPGEMM_SPGEMM_HPP
#define KOKKOSSPGEMM_SPGEMM_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Handle.hpp>
#include <KokkosSpGEMM_Tuning.hpp>
#include <impl/accumulate/KokkosSpGEMM_SemiringValue.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>
#include <impl/pipeline/KokkosSpGEMM_Numeric.hpp>
#include <impl/pipeline/KokkosSpGEMM_OnePass.hpp>
#include <impl/pipeline/KokkosSpGEMM_RowChunks.hpp>
#include <impl/pipeline/KokkosSpGEMM_Symbolic.hpp>

#include <Kokkos_Core.hpp>

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {

namespace Impl {
/// Opens a Kokkos profiling region for the lifetime of a public call, closed on exceptions too.
struct ProfilingRegion {
  explicit ProfilingRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

/// Runs f, turning an allocation failure into OutOfMemory. Kokkos reports one as a std::bad_alloc or (view
/// allocations, 3.4 and 4.x) a std::runtime_error saying "failed to allocate". The temporaries of the failed call
/// are views owned by its frames, so they are released on the way out.
template <class F>
void translate_allocation_failure(const char* function, F&& f) {
  const char* advice =
      "; its temporaries were released (a smaller problem, Options::memory_budget_bytes or a larger "
      "device may help)";
  try {
    f();
  } catch (const std::bad_alloc& e) {
    throw_error<OutOfMemory>(function, std::string("an allocation failed: ") + e.what() + advice);
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find("failed to allocate") == std::string::npos) throw;
    throw_error<OutOfMemory>(function, std::string("an allocation failed: ") + e.what() + advice);
  }
}

template <class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix>
void check_types() {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "KokkosSpGEMM: first argument must be an execution space");
  static_assert(std::is_same<typename HandleT::execution_space, ExecSpace>::value,
                "KokkosSpGEMM: the handle's execution space differs from the one passed");
  static_assert(std::is_same<typename AMatrix::ordinal_type, typename CMatrix::ordinal_type>::value &&
                    std::is_same<typename BMatrix::ordinal_type, typename CMatrix::ordinal_type>::value,
                "KokkosSpGEMM: A, B and C must share their ordinal type");
  static_assert(std::is_same<typename AMatrix::scalar_type, typename CMatrix::scalar_type>::value &&
                    std::is_same<typename BMatrix::scalar_type, typename CMatrix::scalar_type>::value,
                "KokkosSpGEMM: A, B and C must share their scalar type");
  static_assert(
      std::is_same<typename HandleT::ordinal_type, typename CMatrix::ordinal_type>::value &&
          std::is_same<typename HandleT::offset_type, typename CMatrix::offset_type>::value &&
          std::is_same<typename HandleT::scalar_type, Impl::stored_scalar_t<typename CMatrix::scalar_type>>::value,
      "KokkosSpGEMM: the handle's scalar, ordinal and offset types must be C's");
  using Space = typename ExecSpace::memory_space;
  static_assert(
      Kokkos::SpaceAccessibility<ExecSpace, typename AMatrix::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecSpace, typename BMatrix::memory_space>::accessible &&
          std::is_same<typename CMatrix::memory_space, Space>::value,
      "KokkosSpGEMM: A and B must be accessible from the execution space and C must live in its memory space");
}

/// spgemm_symbolic; checked: the caller has just checked A and B with check_operands (a second pass less).
template <class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix>
void symbolic_phase(const ExecSpace& exec, HandleT& handle, const AMatrix& a, const BMatrix& b, CMatrix& c,
                    bool checked) {
  Impl::check_types<ExecSpace, HandleT, AMatrix, BMatrix, CMatrix>();
  Impl::ProfilingRegion region("KokkosSpGEMM::spgemm_symbolic");
  Impl::require_methods<typename HandleT::methods_type>("spgemm_symbolic", handle.options().algorithm);
  // The analysis is about to be replaced: the verdicts of earlier reuse calls are read now (the phase waits anyway).
  Impl::settle_deferred_checks(handle, "spgemm_symbolic", true);
  // CPUs: A's rows and entries are checked in run_symbolic, as it reads them (a pass over A less). GPUs: the check
  // runs in run_symbolic too, its verdict read with the row bins' counts (a wait less), where A and B have the shape
  // of CSR matrices and nothing before the binning reads B's order.
  const bool a_checked = checked || BackendTraits<ExecSpace>::is_gpu;
  const bool defer_check = BackendTraits<ExecSpace>::is_gpu && !checked &&
                           !needs_sorted_b(handle.options().algorithm) &&
                           Impl::check_operand_shapes("spgemm_symbolic", a, b);
  if (!a_checked) {
    Impl::check_operands_past_a(exec, "spgemm_symbolic", a, b);
  } else if (!checked && !defer_check) {
    Impl::check_operands(exec, "spgemm_symbolic", a, b);
  }
  if (needs_sorted_b(handle.options().algorithm)) {
    Impl::check_rows_sorted(exec, "spgemm_symbolic", "B", algorithm_name(handle.options().algorithm), b);
  }
  handle.reset();
  try {
    Impl::translate_allocation_failure("spgemm_symbolic", [&] {
      using Chunking = Impl::RowChunking<typename CMatrix::ordinal_type, typename AMatrix::offset_type,
                                         typename CMatrix::offset_type>;
      const std::int64_t chunk_rows = Chunking::rows_per_chunk(a.num_rows(), handle.options().memory_budget_bytes);
      if (chunk_rows > 0) {
        if (!a_checked) Impl::check_operands_of_a(exec, "spgemm_symbolic", a, b);
        if (defer_check) Impl::check_operands(exec, "spgemm_symbolic", a, b);
        Impl::run_symbolic_chunked(exec, handle, a, b, c, chunk_rows);
      } else {
        Impl::run_symbolic(exec, handle, a, b, c, a_checked, defer_check);
      }
    });
  } catch (...) {
    handle.reset();  // no half-made analysis survives a failure, nor a half-made C
    c = CMatrix();
    throw;
  }
}
}  // namespace Impl

/// Symbolic phase: analyses the structures of A and B, stores the analysis in handle and gives C its row map
/// (entries and values are allocated by spgemm_numeric). nnz(C) is handle.nnz() afterwards.
/// Throws DimensionMismatch, InvalidInput (malformed CSR), IndexOverflow (nnz(C) too large for C's Offset).
template <class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix>
void spgemm_symbolic(const ExecSpace& exec, HandleT& handle, const AMatrix& a, const BMatrix& b, CMatrix& c) {
  Impl::symbolic_phase(exec, handle, a, b, c, false);
}

namespace Impl {
/// spgemm_numeric; checked: A and B are the very views the symbolic phase of the same call checked (one-shot).
/// values: what the kernels multiply B's rows by (A's own values, or the Jacobi operand's: AValues.hpp).
template <class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix,
          class AValues = Impl::StoredValues>
void numeric_phase(const ExecSpace& exec, HandleT& handle, const AMatrix& a, const BMatrix& b, CMatrix& c, bool checked,
                   const AValues& values = AValues()) {
  Impl::check_types<ExecSpace, HandleT, AMatrix, BMatrix, CMatrix>();
  Impl::ProfilingRegion region("KokkosSpGEMM::spgemm_numeric");
  KOKKOSSPGEMM_REQUIRE(handle.has_analysis(), HandleMismatch, "spgemm_numeric",
                       "the handle holds no analysis: call spgemm_symbolic first");
  Impl::settle_deferred_checks(handle, "spgemm_numeric", false);
  ++Impl::state(handle).numeric_calls;
  // A replay from the position map checks A and B beside its own work (one copy back less for small products).
  const bool defer_check = Impl::defers_operand_check(handle, c);
  if (!checked && (!defer_check || !Impl::check_operand_shapes("spgemm_numeric", a, b))) {
    Impl::check_operands(exec, "spgemm_numeric", a, b);
  }
  // The same views as the symbolic phase's (checked): their signature is the handle's (with check_structure, a
  // second hash of both patterns would only repeat it).
  const Impl::StructureSignature now = checked ? Impl::state(handle).signature : Impl::signature_of(exec, handle, a, b);
  const Impl::StructureSignature& then = Impl::state(handle).signature;
  KOKKOSSPGEMM_REQUIRE(now == then, HandleMismatch, "spgemm_numeric",
                       "A and B differ in structure from the analysed pair (analysed A "
                           << then.a_rows << "x" << then.a_cols << " nnz " << then.a_nnz << ", B " << then.b_rows << "x"
                           << then.b_cols << " nnz " << then.b_nnz << "; now A " << now.a_rows << "x" << now.a_cols
                           << " nnz " << now.a_nnz << ", B " << now.b_rows << "x" << now.b_cols << " nnz " << now.b_nnz
                           << (now.a_hash != then.a_hash || now.b_hash != then.b_hash ? "; patterns differ" : "")
                           << "): run spgemm_symbolic again");
  KOKKOSSPGEMM_REQUIRE(c.num_rows() == a.num_rows() && c.num_cols() == b.num_cols() &&
                           c.row_map().extent(0) == static_cast<std::size_t>(a.num_rows()) + 1,
                       InvalidInput, "spgemm_numeric", "C does not carry the row map of spgemm_symbolic");
  Impl::translate_allocation_failure("spgemm_numeric", [&] {
    if (Impl::state(handle).chunks.empty()) {
      Impl::run_numeric(exec, handle, a, b, c, false, checked || !defer_check, values);
    } else {
      Impl::run_numeric_chunked(exec, handle, a, b, c, values);
    }
  });
}
}  // namespace Impl

/// Numeric phase: fills C's column indices and values (allocating them when C does not have nnz(C) of each).
/// A and B may have new values but must have the structure the handle analysed; otherwise HandleMismatch.
/// On GPUs a reuse call's own checks are read at the handle's next call or at verify (Options::synchronous_checks).
template <class ExecSpace, class HandleT, class AMatrix, class BMatrix, class CMatrix>
void spgemm_numeric(const ExecSpace& exec, HandleT& handle, const AMatrix& a, const BMatrix& b, CMatrix& c) {
  Impl::numeric_phase(exec, handle, a, b, c, false);
}

/// Waits for the handle's reuse calls whose checks were left to a later call (Options::synchronous_checks) and
/// throws what the first failed one found (InvalidInput: A or B not well-formed; HandleMismatch: C's columns
/// changed since they were written). Returns at once when none is pending (always on CPU spaces).
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class Methods>
void verify(Handle<ExecSpace, Scalar, Ordinal, Offset, Methods>& handle) {
  Impl::settle_deferred_checks(handle, "verify", true);
}

namespace Impl {
/// The one-shot product on a handle of the given row methods.
template <class COffset, class Methods, class ExecSpace, class AMatrix, class BMatrix>
auto one_shot(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const Options& options, const Tuning& tuning) {
  using Offset = std::conditional_t<std::is_void<COffset>::value, typename AMatrix::offset_type, COffset>;
  using Scalar = typename AMatrix::scalar_type;
  using Ordinal = typename AMatrix::ordinal_type;
  using CMatrix = CsrMatrix<Scalar, Ordinal, Offset, typename ExecSpace::memory_space>;
  Handle<ExecSpace, Scalar, Ordinal, Offset, Methods> handle(options, tuning);
  Impl::state(handle).single_use = true;
  CMatrix c;
  if constexpr (!BackendTraits<ExecSpace>::is_gpu) {
    Impl::check_types<ExecSpace, decltype(handle), AMatrix, BMatrix, CMatrix>();
    bool one_pass = false;
    Impl::translate_allocation_failure("spgemm_symbolic", [&] {
      Impl::ProfilingRegion region("KokkosSpGEMM::spgemm_one_pass");
      one_pass = Impl::one_pass_product<CMatrix>(exec, Impl::state(handle).settings, a, b, c);
    });
    if (one_pass) return c;
  }
  spgemm_symbolic(exec, handle, a, b, c);
  // The symbolic phase just checked these views; nothing could change them since (a check and a wait less).
  Impl::numeric_phase(exec, handle, a, b, c, true);
  return c;
}
}  // namespace Impl

/// One-shot C = A*B. C has A's offset type unless COffset names another (e.g. int64_t when nnz(C) > 2^31 - 1).
template <class COffset = void, class ExecSpace, class AMatrix, class BMatrix>
auto spgemm(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const Options& options = Options(),
            const Tuning& tuning = Tuning()) {
  return Impl::one_shot<COffset, CoreMethods>(exec, a, b, options, tuning);
}

/// One-shot C = A*B with options and tuning knobs from one object of a type that derives from both.
template <class COffset = void, class ExecSpace, class AMatrix, class BMatrix, class Both,
          class = std::enable_if_t<std::is_base_of<Options, Both>::value && std::is_base_of<Tuning, Both>::value>>
auto spgemm(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, const Both& both) {
  return spgemm<COffset>(exec, a, b, static_cast<const Options&>(both), static_cast<const Tuning&>(both));
}

}  // namespace KokkosSpGEMM

#endif
