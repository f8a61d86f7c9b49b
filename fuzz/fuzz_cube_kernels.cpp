// libFuzzer target: the CUBE host kernels (tile/matrix_product.hpp,
// tile/matrix_kernels.hpp: packed panels and FMA micro-kernels of every ISA
// variant the host has) against the exact per-element path, the oracle they
// replace.  The input picks the TMATMUL / TGEMV form, the input types, the
// profile, the B.DATR rounding mode and the shape, then supplies the elements
// and MX scales; the handler runs once exact and once per kernel variant, and
// the destination's payload (padding included), definedness and flags must
// agree bit for bit.  The rig is tests/unit/cube_harness.hpp, shared with
// matrix_kernels_test.cpp.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <array>
#include <cstdlib>
#include <random>
#include <span>

#include "cube_harness.hpp"

namespace {

using namespace pto::test::cube;

class Bytes {
 public:
  explicit Bytes(std::span<const std::uint8_t> b) : b_(b) {}
  std::uint8_t next() { return at_ < b_.size() ? b_[at_++] : 0; }
  std::size_t left() const { return b_.size() - at_; }
  std::uint64_t bits(unsigned count) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < (count + 7) / 8; ++i) v |= std::uint64_t{next()} << (8 * i);
    return count == 64 ? v : v & ((1ULL << count) - 1);
  }
  template <class T, std::size_t N>
  const T& pick(const T (&options)[N]) { return options[next() % N]; }

 private:
  std::span<const std::uint8_t> b_;
  std::size_t at_ = 0;
};

// Elements straight from the input while it lasts, then from a generator
// seeded by the input (RandomDraw, with the input's choice of how many codes
// are wild), so short inputs still multiply rich values.
class InputDraw {
 public:
  InputDraw(Bytes& in, std::span<const std::uint8_t> whole)
      : in_(in), rng_(seed_of(whole)), rest_(std::array{0.0, 0.01, 0.2, 1.0}[in.next() % 4], rng_) {}
  std::uint64_t element(DataType t) {
    const unsigned bits = pto::tile::element_bits(t);
    return in_.left() >= (bits + 7) / 8 ? in_.bits(bits) : rest_.element(t);
  }
  std::uint64_t scale() { return in_.left() ? in_.next() : rest_.scale(); }

 private:
  static std::uint64_t seed_of(std::span<const std::uint8_t> whole) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
    for (const std::uint8_t b : whole) h = (h ^ b) * 0x100000001b3ULL;
    return h;
  }
  Bytes& in_;
  std::mt19937_64 rng_;
  RandomDraw rest_;
};

// K and N now and then reach past one 32-element K block and the kernels'
// panel widths; M then shrinks so that one product stays within kMacBudget
// multiply-adds (the exact path costs microseconds each under the sanitizers).
constexpr std::uint32_t kMacBudget = 8192;
std::uint32_t dimension(Bytes& in) {
  const std::uint8_t b = in.next();
  return b & 0x80 ? 1 + (b & 0x7F) : 1 + (b & 0x1F);
}
std::uint32_t rows_within_budget(std::uint32_t m, std::uint32_t k, std::uint32_t n) {
  return std::max<std::uint32_t>(1, std::min(m, kMacBudget / (k * n)));
}

[[noreturn]] void mismatch() { std::abort(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in({data, size});
  const Form& form = in.pick(kForms);
  const std::vector<DataType> lefts = left_types(form);
  const DataType left = lefts[in.next() % lefts.size()];
  const std::vector<DataType> rights = right_types(form, left);
  const DataType right = rights[in.next() % rights.size()];
  const NumericProfile profile = in.next() & 1 ? NumericProfile::Reference : NumericProfile::Ieee;
  const unsigned rounding = in.next() % kRoundingCodes;
  CubeHarness h(form, left, right, profile, rounding);
  const bool gemv = h.is_gemv();
  const std::uint32_t wanted_m = gemv ? 1 : 1 + in.next() % 32;
  const std::uint32_t k = dimension(in), n = dimension(in);
  const std::uint32_t m = rows_within_budget(wanted_m, k, n);
  const TileLayout layout = m <= 16 && in.next() & 1 ? TileLayout::CubeM16 : TileLayout::CubeM32;
  if (!h.shape(m, k, n, layout)) return 0;
  InputDraw draw(in, {data, size});
  if (!h.fill(draw)) return 0;
  const CubeHarness::Outcome exact = h.run(false);
  // Legal shapes and types always execute (no memory, no definedness gaps).
  if (!exact.legal || !exact.executed) mismatch();
  const std::string_view widest = pto::tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    pto::tile::kernels::select_kernel_isa(isa);
    const CubeHarness::Outcome fast = h.run(true);
    if (!fast.legal || !fast.executed || fast.payload != exact.payload || fast.defined != exact.defined ||
        fast.flags != exact.flags)
      mismatch();
  }
  pto::tile::kernels::select_kernel_isa(widest);
  return 0;
}
