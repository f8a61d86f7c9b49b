// FSU handlers.  Reference configuration: the ASL reference numeric profile
// (spec test points translated by hand, AVS ids in the test names); default
// configuration: IEEE results (hand derived).
#include <gtest/gtest.h>

#include "scalar_harness.hpp"

namespace pto::test {
namespace {

using arch::Word;
using M = isa::Mnemonic;

constexpr Word kRoundingRtp = Word{2} << arch::kCoreStateRoundingShift;  // CORE_STATE[39:37] = 010

Word flags(const arch::State& st) { return (st.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F; }

class FsuReference : public ::testing::Test {
 protected:
  ScalarHarness h;
  arch::State& st = h.state();
  void SetUp() override {
    st.pc = 0x100;
    st.write_gpr(3, 0x5555555555555555u);
  }
};

// PTO-AVS-FSU-FADD-EXEC-001 (ValidateScalarFSUExecute_FADD): fadd.s with the
// reference profile adds the FP32 carriers as integers; flags stay sticky.
TEST_F(FsuReference, PTO_AVS_FSU_FADD_EXEC_001) {
  st.sysregs.core_state = kRoundingRtp | (Word{0x10} << arch::kCoreStateFlagsShift);
  st.write_gpr(1, 0x1234567880000001u);
  st.write_gpr(2, 0x0000000011111111u);
  ASSERT_EQ(h.execute(0x22081cb, 32), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 0x91111112u);
  EXPECT_EQ(flags(st), 0x10u);
  EXPECT_EQ(st.pc, 0x104u);
  st.sysregs.core_state = kRoundingRtp;
  st.pc = 0x100;
  st.write_gpr(2, 5);
  ASSERT_EQ(h.execute(0x22081cb, 32), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 0x80000006u);
  EXPECT_EQ(flags(st), 0u);
}

// PTO-AVS-FSU-FNE-EXEC-001 (ValidateScalarFSUExecute_FNE): 1.0f != 2.0f.
TEST_F(FsuReference, PTO_AVS_FSU_FNE_EXEC_001) {
  st.sysregs.core_state = kRoundingRtp | (Word{0x10} << arch::kCoreStateFlagsShift);
  st.write_gpr(1, 0x3F800000);
  st.write_gpr(2, 0x40000000);
  ASSERT_EQ(h.execute(0x22091db, 32), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 1u);
  EXPECT_EQ(flags(st), 0x10u);
  st.write_gpr(2, 0x3F800000);
  ASSERT_EQ(h.execute(0x22091db, 32), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 0u);
}

// PTO-AVS-FSU-FLTS-FLAGS-001 (ValidateScalarFSUFlags_FLTS): a signaling
// compare with a quiet NaN raises NV and is false.
TEST_F(FsuReference, PTO_AVS_FSU_FLTS_FLAGS_001) {
  st.sysregs.core_state = kRoundingRtp;
  st.write_gpr(1, 0x7FC00042);
  st.write_gpr(2, 0x3F800000);
  ASSERT_EQ(h.execute(0xa20a1db, 32), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 0u);
  EXPECT_EQ(flags(st), 0x01u);
}

// ---- hand-derived cases; fields in catalog order ----

class FsuIeee : public ::testing::Test {
 protected:
  ScalarHarness h{arch::MachineConfig::real()};
  arch::State& st = h.state();
  ScalarResult run(M m, std::initializer_list<std::int64_t> fields) {
    return h.execute(encode_insn(m, fields), length_of(m));
  }
};

constexpr Word kOne64 = 0x3FF0000000000000u;
constexpr Word kTwo64 = 0x4000000000000000u;
constexpr Word kThree64 = 0x4008000000000000u;
constexpr Word kQuietNaN32 = 0x7FC00000u;

TEST_F(FsuIeee, AddIsCorrectlyRounded) {
  st.write_gpr(1, kOne64);
  st.write_gpr(2, kTwo64);
  ASSERT_EQ(run(M::FADD, {3, 1, 2, 0}), ScalarResult::Executed);  // RegDst, SrcL, SrcR, SrcType (FP64)
  EXPECT_EQ(st.read_gpr(3), kThree64);
  EXPECT_EQ(flags(st), 0u);
}

TEST_F(FsuIeee, Fp32CarriersUseTheLowWordAndResultsAreZeroExtended) {
  st.write_gpr(1, 0xFFFFFFFFBF800000u);  // -1.0f with garbage above
  ASSERT_EQ(run(M::FABS, {3, 1, 1}), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 0x3F800000u);
}

TEST_F(FsuIeee, QuietCompareWithNaNIsFalseForEveryRelationWithoutFlags) {
  st.write_gpr(1, kQuietNaN32);
  st.write_gpr(2, 0x3F800000);
  for (const M m : {M::FEQ, M::FNE, M::FLT, M::FGE}) {
    ASSERT_EQ(run(m, {3, 1, 2, 1}), ScalarResult::Executed);
    EXPECT_EQ(st.read_gpr(3), 0u) << isa::mnemonic_name(m);  // ScalarFPEncodingCompare
  }
  EXPECT_EQ(flags(st), 0u);
  ASSERT_EQ(run(M::FEQS, {3, 1, 2, 1}), ScalarResult::Executed);
  EXPECT_EQ(flags(st), 0x01u);
}

TEST_F(FsuIeee, ZerosCompareEqualAndMinPrefersNegativeZero) {
  st.write_gpr(1, 0x80000000u);  // -0.0f
  st.write_gpr(2, 0);
  ASSERT_EQ(run(M::FEQ, {3, 1, 2, 1}), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 1u);
  ASSERT_EQ(run(M::FMIN, {3, 1, 2, 1}), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 0x80000000u);
  ASSERT_EQ(run(M::FMAX, {3, 1, 2, 1}), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 0u);
  st.write_gpr(1, kQuietNaN32);
  ASSERT_EQ(run(M::FMAX, {3, 1, 2, 1}), ScalarResult::Executed);  // one NaN selects the other
  EXPECT_EQ(st.read_gpr(3), 0u);
}

TEST_F(FsuIeee, FixedRoundingConversionsToInteger) {
  st.write_gpr(1, 0x4004000000000000u);  // 2.5
  // FCVT*: DstType (integer code), RegDst, SrcL, SrcType; DstType 8 = S64
  ASSERT_EQ(run(M::FCVTZ, {8, 3, 1, 0}), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 2u);
  EXPECT_EQ(flags(st), 0x10u);  // NX
  ASSERT_EQ(run(M::FCVTA, {8, 3, 1, 0}), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 3u);
  ASSERT_EQ(run(M::FCVTN, {8, 3, 1, 0}), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(3), 2u);
  st.write_gpr(1, 0xC004000000000000u);  // -2.5
  ASSERT_EQ(run(M::FCVTM, {9, 3, 1, 0}), ScalarResult::Executed);  // S32, sign-extended
  EXPECT_EQ(st.read_gpr(3), static_cast<Word>(-3));
}

TEST_F(FsuIeee, IntegerToFloat) {
  st.write_gpr(1, 0xFFFFFFFFu);  // S32 -1 (SrcType 1 selects the 32-bit source)
  ASSERT_EQ(run(M::SCVTF, {0, 3, 1, 1}), ScalarResult::Executed);  // DstType 0 = FP64
  EXPECT_EQ(st.read_gpr(3), 0xBFF0000000000000u);
  ASSERT_EQ(run(M::UCVTF, {0, 3, 1, 1}), ScalarResult::Executed);  // U32 4294967295
  EXPECT_EQ(st.read_gpr(3), 0x41EFFFFFFFE00000u);
}

TEST_F(FsuIeee, ReservedSourceTypeIsIllegal) {
  st.pc = 0x40;
  EXPECT_EQ(run(M::FADD, {3, 1, 2, 0}), ScalarResult::Executed);
  // SrcType 2 violates the catalog constraint one-of {0, 1}.
  const std::uint64_t bits = encode_insn(M::FADD, {3, 1, 2, 0}) | (std::uint64_t{2} << 25);
  EXPECT_EQ(h.execute(bits, 32), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, arch::FaultCode::Fault_IllegalInstruction);
}

}  // namespace
}  // namespace pto::test
