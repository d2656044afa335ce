// Matrix Market coordinate reader and writer. The whole file is read through zlib (which passes plain files
// through unchanged), then parsed line by line; every malformed input becomes a FileError naming the line.
#include <io/KokkosSpGEMM_MatrixMarketParse.hpp>

#include <KokkosSpGEMM_Errors.hpp>

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace KokkosSpGEMM {
namespace Impl {
namespace {

std::string read_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw FileError(path, 0, "cannot open file");
  std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(f, gzclose);
  std::string text;
  std::vector<char> buffer(1 << 20);
  while (true) {
    const int n = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n < 0) {
      int code = 0;
      throw FileError(path, 0, std::string("read error: ") + gzerror(f, &code));
    }
    if (n == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return text;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// Walks the lines of a text, skipping nothing; knows its 1-based line number.
class Lines {
 public:
  explicit Lines(const std::string& text) : m_text(text) {}
  bool next(std::string& line) {
    if (m_pos >= m_text.size()) return false;
    const std::size_t end = std::min(m_text.find('\n', m_pos), m_text.size());
    line.assign(m_text, m_pos, end - m_pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    m_pos = end + 1;
    ++m_number;
    return true;
  }
  long number() const { return m_number; }

 private:
  const std::string& m_text;
  std::size_t m_pos = 0;
  long m_number = 0;
};

bool blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); });
}

/// Reads whitespace-separated numeric tokens of one line, reporting the first bad one.
class Tokens {
 public:
  Tokens(const std::string& path, long line_number, const std::string& line)
      : m_path(path), m_line_number(line_number), m_p(line.c_str()) {}
  std::int64_t integer(const char* what) {
    skip();
    if (!*m_p) throw FileError(m_path, m_line_number, std::string("missing ") + what);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(m_p, &end, 10);
    if (end == m_p || (*end && !std::isspace(static_cast<unsigned char>(*end))) || errno == ERANGE) {
      throw FileError(m_path, m_line_number, std::string("bad ") + what + " '" + token() + "'");
    }
    m_p = end;
    return v;
  }
  double real(const char* what) {
    skip();
    if (!*m_p) throw FileError(m_path, m_line_number, std::string("missing ") + what);
    char* end = nullptr;
    const double v = std::strtod(m_p, &end);
    if (end == m_p || (*end && !std::isspace(static_cast<unsigned char>(*end)))) {
      throw FileError(m_path, m_line_number, std::string("bad ") + what + " '" + token() + "'");
    }
    m_p = end;
    return v;
  }
  void finish() {
    skip();
    if (*m_p) throw FileError(m_path, m_line_number, "unexpected trailing token '" + token() + "'");
  }

 private:
  void skip() {
    while (*m_p && std::isspace(static_cast<unsigned char>(*m_p))) ++m_p;
  }
  std::string token() const {
    const char* e = m_p;
    while (*e && !std::isspace(static_cast<unsigned char>(*e))) ++e;
    return std::string(m_p, e);
  }
  const std::string& m_path;
  long m_line_number;
  const char* m_p;
};

void parse_banner(const std::string& path, const std::string& line, CooData& out) {
  char words[5][64] = {};
  const int n = std::sscanf(line.c_str(), "%63s %63s %63s %63s %63s", words[0], words[1], words[2], words[3], words[4]);
  if (n < 1 || lower(words[0]) != "%%matrixmarket") throw FileError(path, 1, "missing %%MatrixMarket banner");
  if (n != 5) throw FileError(path, 1, "banner needs: %%MatrixMarket matrix coordinate <field> <symmetry>");
  if (lower(words[1]) != "matrix") throw FileError(path, 1, "unsupported object '" + std::string(words[1]) + "'");
  const std::string format = lower(words[2]);
  if (format == "array") throw FileError(path, 1, "dense 'array' format is not supported, only 'coordinate'");
  if (format != "coordinate") throw FileError(path, 1, "unknown format '" + std::string(words[2]) + "'");
  const std::string field = lower(words[3]);
  if (field == "real" || field == "double") {
    out.field = MatrixMarketField::Real;
  } else if (field == "integer") {
    out.field = MatrixMarketField::Integer;
  } else if (field == "pattern") {
    out.field = MatrixMarketField::Pattern;
  } else if (field == "complex") {
    out.field = MatrixMarketField::Complex;
  } else {
    throw FileError(path, 1, "unknown field '" + std::string(words[3]) + "'");
  }
  const std::string symmetry = lower(words[4]);
  if (symmetry == "general") {
    out.symmetry = MatrixMarketSymmetry::General;
  } else if (symmetry == "symmetric") {
    out.symmetry = MatrixMarketSymmetry::Symmetric;
  } else if (symmetry == "skew-symmetric") {
    out.symmetry = MatrixMarketSymmetry::SkewSymmetric;
  } else if (symmetry == "hermitian") {
    out.symmetry = MatrixMarketSymmetry::Hermitian;
  } else {
    throw FileError(path, 1, "unknown symmetry '" + std::string(words[4]) + "'");
  }
  if (out.symmetry == MatrixMarketSymmetry::Hermitian && out.field != MatrixMarketField::Complex) {
    throw FileError(path, 1, "hermitian symmetry needs the complex field");
  }
}

}  // namespace

CooData parse_matrix_market(const std::string& path) {
  const std::string text = read_all(path);
  Lines lines(text);
  std::string line;
  CooData out;
  if (!lines.next(line)) throw FileError(path, 1, "empty file: missing %%MatrixMarket banner");
  parse_banner(path, line, out);
  // Size line: the first line that is neither a comment nor blank.
  bool have_size = false;
  std::int64_t declared = 0;
  while (lines.next(line)) {
    if (blank(line) || line[0] == '%') continue;
    Tokens t(path, lines.number(), line);
    out.rows = t.integer("number of rows");
    out.cols = t.integer("number of columns");
    declared = t.integer("number of entries");
    t.finish();
    if (out.rows < 0 || out.cols < 0 || declared < 0) throw FileError(path, lines.number(), "negative size");
    have_size = true;
    break;
  }
  if (!have_size) throw FileError(path, lines.number() + 1, "missing size line (rows columns entries)");
  const bool symmetric = out.symmetry != MatrixMarketSymmetry::General;
  const bool complex = out.field == MatrixMarketField::Complex;
  // Guard the reservation against absurd declared counts in malformed files: grow as entries really arrive.
  const std::size_t reserve = static_cast<std::size_t>(std::min<std::int64_t>(declared, 1 << 24)) * (symmetric ? 2 : 1);
  out.row.reserve(reserve);
  out.col.reserve(reserve);
  out.re.reserve(reserve);
  if (complex) out.im.reserve(reserve);
  std::int64_t seen = 0;
  while (lines.next(line)) {
    if (blank(line) || line[0] == '%') continue;
    if (seen == declared)
      throw FileError(path, lines.number(), "more entries than the " + std::to_string(declared) + " declared");
    Tokens t(path, lines.number(), line);
    const std::int64_t i = t.integer("row index");
    const std::int64_t j = t.integer("column index");
    if (i < 1 || i > out.rows || j < 1 || j > out.cols) {
      throw FileError(path, lines.number(),
                      "index (" + std::to_string(i) + ", " + std::to_string(j) + ") outside the " +
                          std::to_string(out.rows) + " x " + std::to_string(out.cols) + " matrix");
    }
    double re = 1.0, im = 0.0;
    if (out.field != MatrixMarketField::Pattern) re = t.real("value");
    if (complex) im = t.real("imaginary part");
    t.finish();
    if (out.symmetry == MatrixMarketSymmetry::SkewSymmetric && i == j) {
      throw FileError(path, lines.number(), "skew-symmetric matrix with a diagonal entry");
    }
    out.row.push_back(i - 1);
    out.col.push_back(j - 1);
    out.re.push_back(re);
    if (complex) out.im.push_back(im);
    if (symmetric && i != j) {
      const double sign = out.symmetry == MatrixMarketSymmetry::SkewSymmetric ? -1.0 : 1.0;
      out.row.push_back(j - 1);
      out.col.push_back(i - 1);
      out.re.push_back(sign * re);
      if (complex) out.im.push_back(out.symmetry == MatrixMarketSymmetry::Hermitian ? -im : sign * im);
    }
    ++seen;
  }
  if (seen < declared) {
    throw FileError(path, lines.number() + 1,
                    "file ends after " + std::to_string(seen) + " of " + std::to_string(declared) + " entries");
  }
  return out;
}

void write_matrix_market_coo(const std::string& path, std::int64_t rows, std::int64_t cols,
                             const std::vector<std::int64_t>& row, const std::vector<std::int64_t>& col,
                             const std::vector<double>& re, const std::vector<double>& im) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  gzFile f = gzopen(path.c_str(), gz ? "wb6" : "wbT");  // T: plain output through the same calls
  if (!f) throw FileError(path, 0, "cannot open file for writing");
  std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(f, gzclose);
  std::string out = std::string("%%MatrixMarket matrix coordinate ") + (im.empty() ? "real" : "complex") + " general\n";
  out += std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(row.size()) + "\n";
  char buffer[128];
  auto flush = [&](bool force) {
    if (out.size() < (1 << 20) && !force) return;
    if (!out.empty() && gzwrite(f, out.data(), static_cast<unsigned>(out.size())) != static_cast<int>(out.size())) {
      throw FileError(path, 0, "write error");
    }
    out.clear();
  };
  for (std::size_t e = 0; e < row.size(); ++e) {
    const int n = im.empty() ? std::snprintf(buffer, sizeof(buffer), "%lld %lld %.17g\n", (long long)row[e] + 1,
                                             (long long)col[e] + 1, re[e])
                             : std::snprintf(buffer, sizeof(buffer), "%lld %lld %.17g %.17g\n", (long long)row[e] + 1,
                                             (long long)col[e] + 1, re[e], im[e]);
    out.append(buffer, static_cast<std::size_t>(n));
    flush(false);
  }
  flush(true);
}

}  // namespace Impl
}  // namespace KokkosSpGEMM
