// Typed errors: one exception type per kind of user error, each message naming the function and the value.
#ifndef KOKKOSSPGEMM_ERRORS_HPP
#define KOKKOSSPGEMM_ERRORS_HPP

#include <sstream>
#include <stdexcept>
#include <string>

namespace KokkosSpGEMM {

/// Base of every exception KokkosSpGEMM throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A matrix violates the CSR invariants the called function needs (row map, column indices).
class InvalidInput : public Error {
 public:
  using Error::Error;
};

/// Operand shapes do not agree (e.g. A.num_cols() != B.num_rows()).
class DimensionMismatch : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

/// A count does not fit the chosen ordinal or offset type (e.g. nnz(C) > 2^31 - 1 with 32-bit offsets).
class IndexOverflow : public Error {
 public:
  using Error::Error;
};

/// A device or host allocation failed, or the work would exceed the memory budget.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

/// A handle was reused with operands whose structure differs from the one it analysed.
class HandleMismatch : public Error {
 public:
  using Error::Error;
};

/// A file could not be read or is malformed; file() and line() say where (line 0: not tied to a line).
class FileError : public Error {
 public:
  FileError(const std::string& file, long line, const std::string& what)
      : Error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what),
        m_file(file),
        m_line(line) {}
  const std::string& file() const { return m_file; }
  long line() const { return m_line; }

 private:
  std::string m_file;
  long m_line;
};

namespace Impl {
template <class Exception>
[[noreturn]] void throw_error(const char* function, const std::string& message) {
  throw Exception(std::string("KokkosSpGEMM::") + function + ": " + message);
}
}  // namespace Impl

}  // namespace KokkosSpGEMM

/// Throws ExceptionType with "KokkosSpGEMM::<function>: <streamed message>" unless cond holds.
#define KOKKOSSPGEMM_REQUIRE(cond, ExceptionType, function, message)                       \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::ostringstream kokkosspgemm_msg_;                                                \
      kokkosspgemm_msg_ << message;                                                        \
      ::KokkosSpGEMM::Impl::throw_error<ExceptionType>(function, kokkosspgemm_msg_.str()); \
    }                                                                                      \
  } while (0)

#endif
