// Errors on MPI ranks are collective: a rank that fails in local work does not throw at once (its peers would wait
// forever in the next collective call); it records what failed, and at the next agreement point every rank learns
// the first failing rank's error and throws the same typed exception.
#ifndef KOKKOSSPGEMM_COLLECTIVEERRORS_HPP
#define KOKKOSSPGEMM_COLLECTIVEERRORS_HPP

#include <KokkosSpGEMM_Errors.hpp>
#include <KokkosSpGEMM_Options.hpp>

#include <Teuchos_Comm.hpp>
#include <Teuchos_CommHelpers.hpp>

#include <exception>
#include <new>
#include <string>

namespace KokkosSpGEMM {
namespace Distributed {
namespace Impl {

enum class ErrorKind : int { None = 0, Dimension, InvalidInput, HandleMismatch, IndexOverflow, OutOfMemory, Other };

/// The options of a rank's local handles: their reuse calls read their own checks in the call (on GPUs too), so
/// that a failure is caught with the rank's local work and made collective, never read by a later call alone.
inline Options local_handle_options(Options options) {
  options.synchronous_checks = true;
  return options;
}

/// What a rank's local work ended with.
struct LocalVerdict {
  ErrorKind kind = ErrorKind::None;
  std::string message;

  bool failed() const { return kind != ErrorKind::None; }
  void fail(ErrorKind k, const std::string& m) {
    if (!failed()) {  // the first failure on a rank is the one reported
      kind = k;
      message = m;
    }
  }
};

/// Runs local work (no collective call inside) and records its exception instead of letting it escape.
template <class F>
void run_locally(LocalVerdict& verdict, F&& work) {
  if (verdict.failed()) return;  // a failed rank skips later local work but still joins every collective
  try {
    work();
  } catch (const DimensionMismatch& e) {
    verdict.fail(ErrorKind::Dimension, e.what());
  } catch (const InvalidInput& e) {
    verdict.fail(ErrorKind::InvalidInput, e.what());
  } catch (const KokkosSpGEMM::HandleMismatch& e) {
    verdict.fail(ErrorKind::HandleMismatch, e.what());
  } catch (const IndexOverflow& e) {
    verdict.fail(ErrorKind::IndexOverflow, e.what());
  } catch (const OutOfMemory& e) {
    verdict.fail(ErrorKind::OutOfMemory, e.what());
  } catch (const std::bad_alloc&) {
    verdict.fail(ErrorKind::OutOfMemory, "host allocation failed (std::bad_alloc)");
  } catch (const std::exception& e) {
    verdict.fail(ErrorKind::Other, e.what());
  }
}

[[noreturn]] inline void throw_kind(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::Dimension:
      throw DimensionMismatch(message);
    case ErrorKind::InvalidInput:
      throw InvalidInput(message);
    case ErrorKind::HandleMismatch:
      throw KokkosSpGEMM::HandleMismatch(message);
    case ErrorKind::IndexOverflow:
      throw IndexOverflow(message);
    case ErrorKind::OutOfMemory:
      throw OutOfMemory(message);
    default:
      throw Error(message);
  }
}

/// Collective: returns on every rank when no rank failed; otherwise every rank throws the error of the lowest
/// failing rank, its message prefixed with that rank. One reduction when every rank succeeded.
inline void agree(const Teuchos::Comm<int>& comm, const LocalVerdict& verdict) {
  const int size = comm.getSize();
  const int mine = verdict.failed() ? comm.getRank() : size;
  int first = size;
  Teuchos::reduceAll<int, int>(comm, Teuchos::REDUCE_MIN, mine, Teuchos::outArg(first));
  if (first == size) return;
  int kind = static_cast<int>(verdict.kind);
  Teuchos::broadcast<int, int>(comm, first, &kind);
  int length = static_cast<int>(verdict.message.size());
  Teuchos::broadcast<int, int>(comm, first, &length);
  std::string message = comm.getRank() == first ? verdict.message : std::string(static_cast<std::size_t>(length), ' ');
  if (length > 0) Teuchos::broadcast<int, char>(comm, first, length, &message[0]);
  throw_kind(static_cast<ErrorKind>(kind),
             "on rank " + std::to_string(first) + " of " + std::to_string(size) + ": " + message);
}

/// Shorthand: run local work, then agree.
template <class F>
void run_and_agree(const Teuchos::Comm<int>& comm, F&& work) {
  LocalVerdict verdict;
  run_locally(verdict, work);
  agree(comm, verdict);
}

}  // namespace Impl
}  // namespace Distributed
}  // namespace KokkosSpGEMM

#endif
