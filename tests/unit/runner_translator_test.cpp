// The translation tier's code (src/runner/translator.cpp) op by op: every
// RegisterOp it accepts against the spec's ScalarBinary / ScalarBinaryW
// (asl/scalar/model/alu/semantics.asl, scalar/alu_semantics.hpp) and
// NormalizeScalarLoadResult, including the operations predecode never fuses
// today, and the pass bookkeeping against run_fused's contract
// (docs/architecture.md "Translation tier").  Whole programs in both tiers
// are compared in runner_run_loop_exactness_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "arch/machine.hpp"
#include "block/control.hpp"
#include "isa/decoder.hpp"
#include "runner/dispatch.hpp"
#include "runner/translator.hpp"
#include "scalar/alu_semantics.hpp"
#include "scalar/register_op.hpp"

namespace {

using pto::arch::Machine;
using pto::arch::Word;
using pto::runner::FusedBlockShape;
using pto::runner::PassContext;
using pto::runner::PassExit;
using pto::scalar::BinaryOp;
using pto::scalar::RegisterOp;
using Kind = RegisterOp::Kind;

constexpr Word kStart = 0x1000, kElsewhere = 0x2000, kData = 0x20000;

class TranslatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!pto::runner::translation_supported()) GTEST_SKIP() << "this build has no translation tier";
  }

  // A DIRECT block of `ops` committing to `commit`; one translated run of
  // passes from `steps`.
  PassExit run(const std::vector<RegisterOp>& ops, Word commit = kElsewhere, std::uint64_t max_steps = 1000) {
    FusedBlockShape shape;
    shape.body = ops;
    shape.split = static_cast<std::uint32_t>(ops.size());
    shape.start = kStart;
    shape.commit_taken = shape.commit_not_taken = commit;
    shape.count = static_cast<std::uint32_t>(ops.size()) + 2;
    return run_shape(shape, max_steps);
  }
  // One translated run of `shape`'s passes from no steps.
  PassExit run_shape(const FusedBlockShape& shape, std::uint64_t max_steps = 1000) {
    const auto code = pto::runner::translate_fused_block(m, shape);
    EXPECT_NE(code, nullptr);
    ctx = PassContext{m.state.gpr[0].data(), 0, max_steps, 0};
    return code ? code->run(ctx) : PassExit{};
  }
  Word& gpr(unsigned n) { return m.state.gpr[0][n]; }

  Machine m;
  PassContext ctx;
};

RegisterOp binary(BinaryOp op, bool word, bool immediate, Word imm = 0, unsigned shamt = 0) {
  RegisterOp r;
  r.kind = immediate ? Kind::BinaryImmediate : Kind::Binary;
  r.op = op;
  r.word = word;
  r.dst = 4, r.left = 2, r.right = 3;
  r.imm = imm;
  r.shamt = static_cast<std::uint8_t>(shamt);
  return r;
}

RegisterOp load(unsigned size, bool sign, Word imm, bool indexed = false, unsigned shamt = 0) {
  RegisterOp r;
  r.kind = Kind::Load;
  r.dst = 4, r.left = 2, r.index = 3;
  r.size = static_cast<std::uint8_t>(size);
  r.sign = sign;
  r.imm = imm;
  r.indexed = indexed;
  r.shamt = static_cast<std::uint8_t>(shamt);
  return r;
}

constexpr Word kValues[] = {0,
                            1,
                            2,
                            31,
                            32,
                            63,
                            64,
                            65,
                            0x7fffffff,
                            0x80000000,
                            0xffffffff,
                            0x123456789abcdef0,
                            static_cast<Word>(std::numeric_limits<std::int64_t>::max()),
                            static_cast<Word>(std::numeric_limits<std::int64_t>::min()),
                            ~Word{0},
                            ~Word{0} - 40};
constexpr BinaryOp kOps[] = {BinaryOp::ADD, BinaryOp::SUB, BinaryOp::AND, BinaryOp::OR,
                             BinaryOp::XOR, BinaryOp::SLL, BinaryOp::SRL, BinaryOp::SRA,
                             BinaryOp::MIN, BinaryOp::MINU, BinaryOp::MAX, BinaryOp::MAXU};

bool has_word_form(BinaryOp op) {
  return op != BinaryOp::MIN && op != BinaryOp::MINU && op != BinaryOp::MAX && op != BinaryOp::MAXU;
}

TEST_F(TranslatorTest, RegisterBinaryOpsAreScalarBinary) {
  for (BinaryOp op : kOps) {
    for (bool word : {false, true}) {
      if (word && !has_word_form(op)) continue;
      for (unsigned shamt : {0u, 3u}) {
        for (Word l : kValues) {
          for (Word r : kValues) {
            gpr(2) = l, gpr(3) = r, gpr(4) = 0xdead;
            const PassExit exit = run({binary(op, word, false, 0, shamt)});
            const Word right = r << shamt;
            const Word expected =
                word ? pto::scalar::scalar_binary_w(op, l, right) : pto::scalar::scalar_binary(op, l, right);
            ASSERT_EQ(gpr(4), expected) << static_cast<int>(op) << " word " << word << " shamt " << shamt
                                        << " l " << l << " r " << r;
            ASSERT_EQ(exit.op, PassExit::kCompleted);
          }
        }
      }
    }
  }
}

TEST_F(TranslatorTest, ImmediateBinaryOpsAreScalarBinary) {
  for (BinaryOp op : kOps) {
    for (bool word : {false, true}) {
      if (word && !has_word_form(op)) continue;
      for (Word l : kValues) {
        for (Word imm : kValues) {
          gpr(2) = l, gpr(4) = 0xdead;
          run({binary(op, word, true, imm)});
          const Word expected = word ? pto::scalar::scalar_binary_w(op, l, imm) : pto::scalar::scalar_binary(op, l, imm);
          ASSERT_EQ(gpr(4), expected) << static_cast<int>(op) << " word " << word << " l " << l << " imm " << imm;
        }
      }
    }
  }
}

// ScalarBinaryW has no MIN/MAX: such an op is declined, not guessed.
TEST_F(TranslatorTest, WordMinMaxIsDeclined) {
  const std::vector<RegisterOp> ops = {binary(BinaryOp::MIN, true, false)};
  FusedBlockShape shape;
  shape.body = ops;
  shape.split = 1;
  shape.count = 3;
  EXPECT_EQ(pto::runner::translate_fused_block(m, shape), nullptr);
}

// NormalizeScalarLoadResult: zero- or sign-extension of 1, 2, 4, 8 bytes,
// from the page read last (inline) and from another page (the helper).
TEST_F(TranslatorTest, LoadsExtendAsNormalizeScalarLoadResult) {
  const Word bytes = 0x8899aabbccddeeffull;
  m.memory.write(kData, 8, bytes);
  m.memory.write(kData + 0x3000, 8, ~bytes);
  for (unsigned size : {1u, 2u, 4u, 8u}) {
    for (bool sign : {false, true}) {
      for (Word page : {Word{0}, Word{0x3000}, Word{0}}) {
        const Word raw = (page == 0 ? bytes : ~bytes) & (size == 8 ? ~Word{0} : (Word{1} << (8 * size)) - 1);
        const Word expected = sign ? pto::scalar::sign_extend(raw, 8 * size) : raw;
        gpr(2) = kData + page - 8, gpr(4) = 0xdead;
        EXPECT_EQ(run({load(size, sign, 8)}).op, PassExit::kCompleted);
        EXPECT_EQ(gpr(4), expected) << size << " sign " << sign << " page " << page;
        // Indexed: base + (index << shamt).
        gpr(2) = kData + page - 32, gpr(3) = 4, gpr(4) = 0xdead;
        run({load(size, sign, 0, true, 3)});
        EXPECT_EQ(gpr(4), expected) << "indexed " << size << " sign " << sign << " page " << page;
      }
    }
  }
}

// A load load_fast declines (misaligned, at or above the fast-path bound)
// leaves at its op with no effect; ops before it have run.
TEST_F(TranslatorTest, LoadsLeavingTheFastPathExitWithoutEffect) {
  m.memory.write(kData, 8, 5);
  const Word fast_end = *m.fast_end_location();
  ASSERT_GT(fast_end, Word{8});
  for (Word address : {kData + 1, kData + 4, fast_end + 1, (fast_end + 8) & ~Word{7}, ~Word{7}}) {
    gpr(2) = address, gpr(3) = 0, gpr(4) = 0xdead, gpr(5) = 0;
    RegisterOp first = binary(BinaryOp::ADD, false, true, 7);
    first.dst = 5, first.left = 0;
    const PassExit exit = run({first, load(8, false, 0)});
    EXPECT_EQ(exit.op, 1u) << address;
    EXPECT_EQ(gpr(5), 7u) << "the op before the load ran";
    EXPECT_EQ(gpr(4), 0xdeadu) << address;
    EXPECT_EQ(ctx.steps, 0u);
    EXPECT_EQ(ctx.passes, 0u);
  }
}

// Whole passes: time, steps and passes advance by the block's attempts;
// passes go on while they commit to the start and the budget holds one.
TEST_F(TranslatorTest, PassesRunWhileTheyReturnAndTheBudgetHolds) {
  RegisterOp inc = binary(BinaryOp::ADD, false, true, 1);
  inc.dst = 2;
  const std::uint32_t count = 3;  // BSTART, ADDI, BSTOP
  const Word cycle = m.state.sysregs.cycle;
  gpr(2) = 0;
  EXPECT_EQ(run({inc}, kStart, 3 * count + 1).op, PassExit::kCompleted);
  EXPECT_EQ(ctx.passes, 3u);
  EXPECT_EQ(ctx.steps, 3u * count);
  EXPECT_EQ(gpr(2), 3u);
  EXPECT_EQ(m.state.sysregs.cycle, cycle + 3 * count);
  EXPECT_EQ(m.state.pc, kStart);
  // Committing elsewhere: one pass.
  EXPECT_EQ(run({inc}, kElsewhere).op, PassExit::kCompleted);
  EXPECT_EQ(ctx.passes, 1u);
  EXPECT_EQ(m.state.pc, kElsewhere);
}

// A RET block (asl/block/model/dispatch/start.asl): each pass commits to
// _ReturnAddress as its start reads it; an odd one leaves before the start
// with nothing done (the start's fault is taken step by step).
TEST_F(TranslatorTest, ReturnBlockCommitsToTheReturnAddress) {
  RegisterOp inc = binary(BinaryOp::ADD, false, true, 1);
  inc.dst = 2;
  const std::vector<RegisterOp> ops = {inc};
  FusedBlockShape shape;
  shape.body = ops;
  shape.split = 1;
  shape.start = kStart;
  shape.returns = true;
  shape.commit_taken = shape.commit_not_taken = kStart;  // unused by a RET block
  shape.count = 3;
  gpr(2) = 0;
  m.state.return_address = kElsewhere;
  EXPECT_EQ(run_shape(shape).op, PassExit::kCompleted);
  EXPECT_EQ(ctx.passes, 1u);
  EXPECT_EQ(m.state.pc, kElsewhere);
  m.state.return_address = kStart;  // returning to its own start: a loop
  EXPECT_EQ(run_shape(shape, 4 * 3 + 2).op, PassExit::kCompleted);
  EXPECT_EQ(ctx.passes, 4u);
  EXPECT_EQ(m.state.pc, kStart);
  EXPECT_EQ(gpr(2), 5u);
  const Word cycle = m.state.sysregs.cycle;
  m.state.return_address = kElsewhere + 1;
  m.state.pc = kStart;
  EXPECT_EQ(run_shape(shape).op, PassExit::kBeforeStart);
  EXPECT_EQ(ctx.passes, 0u);
  EXPECT_EQ(ctx.steps, 0u);
  EXPECT_EQ(gpr(2), 5u);
  EXPECT_EQ(m.state.sysregs.cycle, cycle);
  EXPECT_EQ(m.state.pc, kStart);
}

// A RET block's links are keyed by its run-time target: a pass goes on in
// the block linked for the target it read (two slots: kY1 and kY2), never
// in another block sharing the slot (kY3), and only while the epoch and
// the budget hold.  A block chaining into a RET block whose target is odd
// exits from the RET block's code before its start.
class TranslatorLinkTest : public TranslatorTest {
 protected:
  static constexpr Word kY1 = 0x3000, kY2 = 0x3002, kY3 = 0x3008;  // slots 0, 1, 0
  // A DIRECT block at `start` to `commit` adding 1 to `reg` (3 attempts).
  std::unique_ptr<pto::runner::TranslatedBlock> block(Word start, Word commit, unsigned reg, bool returns = false) {
    RegisterOp inc = binary(BinaryOp::ADD, false, true, 1);
    inc.dst = inc.left = static_cast<std::uint8_t>(reg);
    ops_.push_back(std::make_unique<std::vector<RegisterOp>>(1, inc));
    FusedBlockShape shape;
    shape.body = *ops_.back();
    shape.split = 1;
    shape.start = start;
    shape.returns = returns;
    shape.commit_taken = shape.commit_not_taken = commit;
    shape.count = 3;
    shape.link_epoch = &epoch;
    return pto::runner::translate_fused_block(m, shape);
  }
  PassExit enter(const pto::runner::TranslatedBlock& b, std::uint64_t max_steps = 1000) {
    ctx = PassContext{m.state.gpr[0].data(), 0, max_steps, 0};
    return b.run(ctx);
  }
  std::uint64_t epoch = 7;
  std::vector<std::unique_ptr<std::vector<RegisterOp>>> ops_;
};

TEST_F(TranslatorLinkTest, ReturnBlockLinksByItsRunTimeTarget) {
  const auto r = block(kStart, 0, 2, true);
  const auto y1 = block(kY1, kElsewhere, 5);
  const auto y2 = block(kY2, kElsewhere, 6);
  const auto y3 = block(kY3, kElsewhere, 7);
  ASSERT_TRUE(r && y1 && y2 && y3);
  r->link(*y1, epoch);
  r->link(*y2, epoch);
  struct Case {
    Word target;
    const pto::runner::TranslatedBlock* exits;
    unsigned reg;  // the register the chained block adds to, 0 if none ran
  };
  for (const Case& c : {Case{kY1, y1.get(), 5}, Case{kY2, y2.get(), 6}, Case{kY3, r.get(), 0}}) {
    gpr(2) = gpr(5) = gpr(6) = gpr(7) = 0;
    m.state.return_address = c.target;
    EXPECT_EQ(enter(*r).op, PassExit::kCompleted);
    EXPECT_EQ(ctx.block, c.exits) << c.target;
    EXPECT_EQ(ctx.passes, c.reg != 0 ? 2u : 1u) << c.target;
    EXPECT_EQ(m.state.pc, c.reg != 0 ? kElsewhere : c.target) << c.target;
    EXPECT_EQ(gpr(2), 1u);
    for (unsigned reg : {5u, 6u, 7u}) EXPECT_EQ(gpr(reg), reg == c.reg ? 1u : 0u) << c.target;
  }
  // The budget must hold the linked block's whole pass.
  m.state.return_address = kY1;
  enter(*r, 5);
  EXPECT_EQ(ctx.block, r.get());
  EXPECT_EQ(m.state.pc, kY1);
  enter(*r, 6);
  EXPECT_EQ(ctx.block, y1.get());
  // A new epoch kills every link.
  ++epoch;
  enter(*r);
  EXPECT_EQ(ctx.block, r.get());
  EXPECT_EQ(m.state.pc, kY1);
}

TEST_F(TranslatorLinkTest, ChainingIntoAReturnBlockWithAnOddTarget) {
  const auto x = block(kY1, kStart, 5);
  const auto r = block(kStart, 0, 2, true);
  ASSERT_TRUE(x && r);
  x->link(*r, epoch);
  gpr(2) = gpr(5) = 0;
  m.state.return_address = kElsewhere + 1;
  EXPECT_EQ(enter(*x).op, PassExit::kBeforeStart);
  EXPECT_EQ(ctx.block, r.get());
  EXPECT_EQ(ctx.passes, 1u);
  EXPECT_EQ(ctx.steps, 3u);
  EXPECT_EQ(m.state.pc, kStart);
  EXPECT_EQ(gpr(5), 1u);
  EXPECT_EQ(gpr(2), 0u);
}

// A COND block: the condition's result is COMMIT_ARGUMENT and selects the
// commit PC; a load leaving after the SETC reports it.
TEST_F(TranslatorTest, CondBlockCommitsByItsCondition) {
  static constexpr auto differ = [](const pto::arch::State& s, const pto::scalar::DecodedInsn&) {
    return s.gpr[0][2] != s.gpr[0][6];
  };
  pto::scalar::DecodedInsn setc;
  RegisterOp inc = binary(BinaryOp::ADD, false, true, 1);
  inc.dst = 2;
  std::vector<RegisterOp> ops = {inc, RegisterOp{}};
  FusedBlockShape shape;
  shape.body = ops;
  shape.split = 1;
  shape.condition = differ;
  shape.condition_insn = &setc;
  shape.start = kStart;
  shape.commit_taken = kStart;
  shape.commit_not_taken = kElsewhere;
  shape.count = 4;
  gpr(2) = 0, gpr(6) = 5;
  EXPECT_EQ(run_shape(shape).op, PassExit::kCompleted);
  EXPECT_EQ(ctx.passes, 5u);  // taken while a0 != 5
  EXPECT_EQ(gpr(2), 5u);
  EXPECT_EQ(m.state.commit_argument, 0u);
  EXPECT_EQ(m.state.pc, kElsewhere);

  ops.push_back(load(8, false, 1));  // misaligned: leaves after the SETC
  shape.body = ops;
  shape.count = 5;
  gpr(2) = 0, gpr(4) = 0;
  const PassExit exit = run_shape(shape);
  EXPECT_EQ(exit.op, 2u);
  EXPECT_TRUE(exit.holds);
  EXPECT_EQ(m.state.commit_argument, 1u);
}

// The SETC evaluated inline (block::CommitTest) against ConditionHolds and
// the logical forms' (left AND/OR right') != 0 with right' the modified
// register: every condition, every SrcRType, the immediate forms.
TEST_F(TranslatorTest, InlineCommitTestsAreConditionHolds) {
  using pto::block::Condition;
  constexpr Condition kConditions[] = {Condition::EQ, Condition::NE,  Condition::LT,
                                       Condition::GE, Condition::LTU, Condition::GEU};
  const std::vector<RegisterOp> ops = {RegisterOp{}};
  auto holds = [&](const pto::block::CommitTest& t) {
    FusedBlockShape shape;
    shape.body = ops;
    shape.split = 0;
    shape.test = t;
    shape.start = kStart;
    shape.commit_taken = kElsewhere;
    shape.commit_not_taken = kElsewhere + 4;
    shape.count = 3;
    run_shape(shape);
    EXPECT_EQ(m.state.pc, m.state.commit_argument != 0 ? kElsewhere : kElsewhere + 4);
    return m.state.commit_argument != 0;
  };
  auto modified = [](Word v, unsigned type, bool logical) -> Word {
    if (type == 1) return static_cast<Word>(static_cast<std::int64_t>(static_cast<std::int32_t>(v)));
    if (type == 2) return v & 0xffffffffu;
    return type == 3 && logical ? ~v : v;
  };
  for (Word l : kValues) {
    for (Word r : kValues) {
      gpr(2) = l, gpr(3) = r;
      for (unsigned type = 0; type < 4; ++type) {
        pto::block::CommitTest t;
        t.left = 2, t.right_is_register = true, t.right = 3, t.right_type = static_cast<std::uint8_t>(type);
        for (Condition c : kConditions) {
          t.condition = c;
          ASSERT_EQ(holds(t), pto::block::condition_holds(c, l, modified(r, type, false)))
              << static_cast<int>(c) << " type " << type << " l " << l << " r " << r;
        }
        t.logical = true;
        for (bool combine_or : {false, true}) {
          t.combine_or = combine_or;
          const Word right = modified(r, type, true);
          ASSERT_EQ(holds(t), ((combine_or ? l | right : l & right) != 0)) << "or " << combine_or << " type " << type;
        }
      }
      pto::block::CommitTest imm;
      imm.left = 2, imm.immediate = r, imm.condition = Condition::LT;
      ASSERT_EQ(holds(imm), pto::block::condition_holds(Condition::LT, l, r));
    }
  }
}

}  // namespace

namespace {

constexpr std::string_view kFsuForms[] = {"FABS",  "FEXP",   "FRECIP", "FSQRT",  "FADD",  "FSUB",  "FMUL",
                                          "FDIV",  "FMIN",   "FMAX",   "FEQ",    "FLTS",  "FMADD", "FMSUB",
                                          "FNMADD", "FNMSUB", "FCVT",  "FCVTA",  "FCVTZ", "SCVTF", "UCVTF"};

// The first form of an FSU mnemonic: RegDst r4, SrcL r2, SrcR r3, SrcA r5
// where the form has them, SrcType `type`, DstType `dst_type`.
Word fsu_word(std::string_view mnemonic, std::int64_t type, std::int64_t dst_type) {
  const auto& f = pto::isa::form(pto::isa::forms_of_mnemonic(*pto::isa::mnemonic_from_name(mnemonic)).front());
  std::vector<std::int64_t> values(pto::isa::fields_of(f).size(), 0);
  const std::pair<std::string_view, std::int64_t> named[] = {
      {"RegDst", 4}, {"SrcL", 2}, {"SrcR", 3}, {"SrcA", 5}, {"SrcType", type}, {"DstType", dst_type}};
  for (const auto& [name, v] : named) {
    if (const int i = pto::isa::field_index(f, name); i >= 0) values[static_cast<std::size_t>(i)] = v;
  }
  return std::get<std::uint64_t>(pto::isa::encode(f, values));
}

bool has_destination_type(std::string_view mnemonic) {
  const auto& f = pto::isa::form(pto::isa::forms_of_mnemonic(*pto::isa::mnemonic_from_name(mnemonic)).front());
  return pto::isa::field_index(f, "DstType") >= 0;
}

// Carriers around the normalisation edges: FP32 words with the upper half
// set, signs of both widths, zeros, NaNs.
constexpr Word kCarriers[] = {0,
                              1,
                              0x7FFF,
                              0x8000,
                              0x7FFFFFFF,
                              0x80000000,
                              0xFFFFFFFF,
                              0x3F800000,
                              0x7F800001,
                              0x123456789ABCDEF0,
                              0x3FF0000000000000,
                              0x7FF0000000000001,
                              0x8000000000000000,
                              0xFFFFFFFF80000001,
                              ~Word{0}};

// Every FSU record with GPR operands, translated as a one-op block, against
// its own handler (the model's ExecuteDecodedFP*, src/scalar/fsu.cpp) on
// the same registers: the destination and CORE_STATE (flags) must agree.
// In the reference profile the translator inlines the carrier arithmetic
// (FloatOp), in the ieee profile only ABS; the rest call the handler.
TEST(TranslatorFsuTest, FsuOpsComputeWhatTheirHandlersDo) {
  if (!pto::runner::translation_supported()) GTEST_SKIP() << "this build has no translation tier";
  for (const auto profile : {pto::arch::NumericProfileKind::Reference, pto::arch::NumericProfileKind::Ieee}) {
    pto::arch::MachineConfig config = pto::arch::MachineConfig::real();
    config.numeric_profile = profile;
    Machine m(config);
    auto& gpr = m.state.gpr[0];
    for (const std::string_view mnemonic : kFsuForms) {
      for (std::int64_t type : {0, 1}) {
        for (std::int64_t dst_type = 0; dst_type <= (has_destination_type(mnemonic) ? 14 : 0); ++dst_type) {
          const pto::scalar::DecodedInsn d = pto::runner::predecode(fsu_word(mnemonic, type, dst_type), 32);
          const std::optional<RegisterOp> op = pto::scalar::register_op_of(d);
          ASSERT_TRUE(op.has_value()) << mnemonic;
          ASSERT_EQ(op->kind, Kind::Fsu);
          const std::vector<RegisterOp> ops = {*op};
          FusedBlockShape shape;
          shape.body = ops;
          shape.split = 1;
          shape.start = kStart;
          shape.commit_taken = shape.commit_not_taken = kElsewhere;
          shape.count = 3;
          const auto code = pto::runner::translate_fused_block(m, shape);
          ASSERT_NE(code, nullptr);
          for (Word l : kCarriers) {
            for (Word r : kCarriers) {
              const auto set = [&] {
                gpr[2] = l, gpr[3] = r, gpr[4] = 0xDEAD, gpr[5] = r ^ l;
                m.state.sysregs.core_state = 0;
              };
              set();
              d.handler(m, d);
              const Word expected = gpr[4], expected_flags = m.state.sysregs.core_state;
              set();
              PassContext ctx{gpr.data(), 0, 3, 0};
              EXPECT_EQ(code->run(ctx).op, PassExit::kCompleted);
              ASSERT_EQ(gpr[4], expected) << mnemonic << " type " << type << " dst " << dst_type << " l " << l
                                          << " r " << r << " profile " << static_cast<int>(profile);
              ASSERT_EQ(m.state.sysregs.core_state, expected_flags) << mnemonic;
            }
          }
        }
      }
    }
  }
}

}  // namespace
