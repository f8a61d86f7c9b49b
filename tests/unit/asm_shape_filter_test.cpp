// operand_shape_fits: the pre-filter parse_instruction applies to the
// candidate forms of a mnemonic must never reject a form the full parser
// accepts (checked over the round-trip text of every form of the mnemonics
// with several forms, the only ones it is applied to), and it
// must tell the forms of a multi-form mnemonic apart by operand shape.
#include <gtest/gtest.h>

#include <random>

#include "asm/syntax.hpp"
#include "isa/decoder.hpp"

namespace pto::as {
namespace {

std::int64_t random_value(const isa::FormDesc& f, std::size_t i, std::mt19937_64& rng) {
  for (const auto& c : isa::constraints_of(f)) {
    if (c.field == i && c.op == isa::ConstraintOp::OneOf) {
      const auto vals = isa::values_of(c);
      return vals[rng() % vals.size()];
    }
  }
  const auto& fd = isa::fields_of(f)[i];
  const auto r = isa::field_range(fd);
  const std::int64_t step = isa::field_step(fd);
  return r.min + static_cast<std::int64_t>(rng() % (static_cast<std::uint64_t>((r.max - r.min) / step) + 1)) * step;
}

// Text after the mnemonic word of a printed instruction.
std::string_view operands_of(std::string_view text) {
  const std::size_t end = text.find(' ');
  return end == std::string_view::npos ? std::string_view{} : text.substr(end);
}

TEST(AsmShapeFilter, AcceptsTheCanonicalTextOfEveryMultiFormMnemonic) {
  std::mt19937_64 rng(0x5348);
  int checked = 0;
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    if (f.status != isa::FormStatus::Accepted || isa::forms_of_mnemonic(f.mnem).size() < 2) continue;
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<std::int64_t> values(f.field_count);
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = random_value(f, i, rng);
      const auto enc = isa::encode(f, values);
      if (!std::holds_alternative<std::uint64_t>(enc)) continue;
      const std::uint64_t bits = std::get<std::uint64_t>(enc);
      const isa::Decoded d = isa::decode(bits, f.length_bits);
      if (!d.ok() || d.form != isa::index_of(f)) continue;
      PrintContext ctx;
      ctx.pc = 0x10000;
      const std::string text = print_instruction(f, bits, ctx);
      ASSERT_TRUE(operand_shape_fits(isa::index_of(f), operands_of(text))) << f.form_id << ": '" << text << "'";
      ++checked;
    }
  }
  EXPECT_GT(checked, 400);
}

// Number of forms of `m` whose shape fits `operands`.
int fitting_forms(isa::Mnemonic m, std::string_view operands) {
  int n = 0;
  for (isa::FormIndex fi : isa::forms_of_mnemonic(m)) n += operand_shape_fits(fi, operands) ? 1 : 0;
  return n;
}

// Expected counts from the catalog asm templates: B.IOT has five operand
// lists (tile/tile/mask/last/dtile subsets), BSTART.STD one form per kind
// keyword, B.DIM one form per loop-bound destination ->LB0..->LB2, B.HINT
// keyword fields (L/UL=, V=, prefetch_size=, temp=) or TRACE.begin / TRACE.end.
TEST(AsmShapeFilter, SeparatesTheFormsOfOneMnemonic) {
  EXPECT_EQ(fitting_forms(isa::Mnemonic::B_IOT, " T#1, T#2, mask=1111, ->T<1>"), 1);
  EXPECT_EQ(fitting_forms(isa::Mnemonic::B_IOT, " T#1, mask=1111"), 1);
  EXPECT_EQ(fitting_forms(isa::Mnemonic::B_IOT, " mask=1111, last, ->U<2>"), 1);
  EXPECT_EQ(fitting_forms(isa::Mnemonic::BSTART_STD, " FALL"), 1);
  EXPECT_EQ(fitting_forms(isa::Mnemonic::BSTART_STD, " direct, 0x40"), 1);
  EXPECT_EQ(fitting_forms(isa::Mnemonic::B_DIM, " a0, 64, ->LB1"), 1);
  EXPECT_EQ(fitting_forms(isa::Mnemonic::B_HINT, " TRACE.end"), 1);
  // Text no form fits: none passes, so the full parser reports the error.
  EXPECT_EQ(fitting_forms(isa::Mnemonic::B_DIM, " a0, 64"), 0);
}

}  // namespace
}  // namespace pto::as
