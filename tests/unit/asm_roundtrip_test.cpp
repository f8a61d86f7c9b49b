// Round trip for every accepted catalog form: random legal field values ->
// canonical text -> parser -> identical bits; canonical text is a fixed point.
#include <gtest/gtest.h>

#include <random>

#include "asm/syntax.hpp"
#include "isa/decoder.hpp"

namespace pto::as {
namespace {

struct NoSymbols : ExprEnv {
  std::uint64_t pc = 0;
  std::optional<std::int64_t> symbol(std::string_view) const override { return std::nullopt; }
  std::optional<std::int64_t> local_label(unsigned, bool) const override { return std::nullopt; }
  std::uint64_t dot() const override { return pc; }
  bool final_pass() const override { return true; }
};

std::int64_t random_value(const isa::FormDesc& f, std::size_t i, std::mt19937_64& rng) {
  const auto& fd = isa::fields_of(f)[i];
  for (const auto& c : isa::constraints_of(f)) {
    if (c.field == i && c.op == isa::ConstraintOp::OneOf) {
      const auto vals = isa::values_of(c);
      return vals[rng() % vals.size()];
    }
  }
  const auto r = isa::field_range(fd);
  const std::int64_t step = isa::field_step(fd);
  const auto span = static_cast<std::uint64_t>((r.max - r.min) / step);
  return r.min + static_cast<std::int64_t>(rng() % (span + 1)) * step;
}

TEST(AsmRoundTrip, EveryAcceptedFormRandomFields) {
  std::mt19937_64 rng(0x5054);
  NoSymbols env;
  int forms = 0;
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    if (f.status != isa::FormStatus::Accepted) continue;
    ++forms;
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<std::int64_t> values(f.field_count);
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = random_value(f, i, rng);
      auto enc = isa::encode(f, values);
      if (!std::holds_alternative<std::uint64_t>(enc)) continue;
      const std::uint64_t bits = std::get<std::uint64_t>(enc);
      const isa::Decoded d = isa::decode(bits, f.length_bits);
      if (!d.ok() || d.form != isa::index_of(f)) continue;  // a constraint (e.g. not-equal) or a more specific form
      if (always_illegal_reason(f, bits)) continue;  // printed as data; asm_llvm_spellings_test covers these
      env.pc = 0x10000 + 2 * (rng() % 4096);
      PrintContext ctx;
      ctx.pc = env.pc;
      const std::string text = print_instruction(f, bits, ctx);
      try {
        const ParsedInstruction p = parse_instruction(text, 0, env.pc, env);
        ASSERT_EQ(p.bits, bits) << f.form_id << ": '" << text << "'";
        ASSERT_EQ(p.form, isa::index_of(f)) << text;
        ASSERT_EQ(print_instruction(isa::form(p.form), p.bits, ctx), text);
      } catch (const ParseFailure& e) {
        FAIL() << f.form_id << ": '" << text << "' col " << e.error.column << ": " << e.error.message;
      }
    }
  }
  EXPECT_EQ(forms, 537);  // 540 catalog forms minus ESAVE, ERCOV, XB (reserved in PTO)
}

}  // namespace
}  // namespace pto::as
