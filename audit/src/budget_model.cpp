#include "distgrid/audit/budget_model.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "distgrid/error.hpp"

namespace distgrid::audit {

namespace {

/// Recursive descent over the text, evaluating as it goes.
class Parser {
 public:
  Parser(std::string_view text, const ModelNames& names) : text_(text), names_(names) {}

  double parse() {
    const double v = sum();
    skip_space();
    if (at_ < text_.size()) fail("unexpected '" + std::string(1, text_[at_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::badfile, "budget model \"" + std::string(text_) + "\": " + what + " at character " +
                                        std::to_string(at_ + 1));
  }

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  double sum() {
    double v = product();
    for (;;) {
      if (take('+')) v += product();
      else if (take('-')) v -= product();
      else return v;
    }
  }

  double product() {
    double v = unary();
    for (;;) {
      if (take('*')) v *= unary();
      else if (take('/')) v /= unary();
      else return v;
    }
  }

  double unary() {
    if (take('-')) return -unary();
    if (take('+')) return unary();
    return power();
  }

  double power() {
    const double base = primary();
    if (take('^')) return std::pow(base, unary());
    return base;
  }

  double primary() {
    skip_space();
    if (at_ >= text_.size()) fail("expected a number, a name or '('");
    const char c = text_[at_];
    if (take('(')) {
      const double v = sum();
      if (!take(')')) fail("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail("unexpected '" + std::string(1, c) + "'");
  }

  double number() {
    // Digits, a fraction and an exponent; no sign, no hex, no inf or nan.
    const std::size_t start = at_;
    while (at_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[at_])) || text_[at_] == '.')) ++at_;
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      std::size_t k = at_ + 1;
      if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
      if (k < text_.size() && std::isdigit(static_cast<unsigned char>(text_[k]))) {
        at_ = k;
        while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
      }
    }
    const std::string digits(text_.substr(start, at_ - start));
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) {
      at_ = start;
      fail("malformed number '" + digits + "'");
    }
    return v;
  }

  double name() {
    const std::size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) ++at_;
    const std::string_view id = text_.substr(start, at_ - start);
    if (take('(')) {
      const double a = sum();
      if (id == "min" || id == "max") {
        if (!take(',')) fail("expected ',' in " + std::string(id) + "(a, b)");
        const double b = sum();
        if (!take(')')) fail("expected ')'");
        return id == "min" ? std::fmin(a, b) : std::fmax(a, b);
      }
      if (!take(')')) fail("expected ')'");
      if (id == "sqrt") return std::sqrt(a);
      if (id == "abs") return std::fabs(a);
      if (id == "log2") return std::log2(a);
      at_ = start;
      fail("unknown function '" + std::string(id) + "' (known: sqrt, abs, log2, min, max)");
    }
    const auto it = names_.find(id);
    if (it == names_.end()) {
      at_ = start;
      std::string known;
      for (const auto& [n, v] : names_) known += (known.empty() ? "" : ", ") + n;
      fail("unknown name '" + std::string(id) + "' (known: " + known + ")");
    }
    return it->second;
  }

  std::string_view text_;
  const ModelNames& names_;
  std::size_t at_ = 0;
};

}  // namespace

double evaluate_model(std::string_view expression, const ModelNames& names) {
  Parser parser(expression, names);
  const double v = parser.parse();
  if (!std::isfinite(v))
    throw Error(ErrorCode::badfile, "budget model \"" + std::string(expression) + "\" is not a finite number here");
  return v;
}

const std::map<std::string, std::string, std::less<>>& model_name_meanings() {
  static const std::map<std::string, std::string, std::less<>> meanings{
      {"h", "the run's voxel size (world units)"},
      {"band", "the run's band half-width in voxels"},
      {"u", "a stored node's largest error relative to band h in the entry's storage: 2^-24 + 2^-149 / (band h) for "
            "float, 2^-53 for double, 2^-11 + 2^-24 / (band h) for half, 1/65535 + 2^-48 for q16, 1/255 + 2^-48 for q8"},
      {"u64", "unit roundoff of the 64-bit arithmetic, 2^-53"},
      {"pow2_h", "1 when h is a power of two (so i*h and x/h do not round), else 0"},
      {"reach", "largest |x|/h of a part's inputs at the origin (its box padded by the band)"},
      {"x_over_h", "largest |x|/h of any input, far copies included"},
      {"n", "values a volume sums, at most: the nodes of the largest part's box, (2 reach)^3"},
  };
  return meanings;
}

}  // namespace distgrid::audit
