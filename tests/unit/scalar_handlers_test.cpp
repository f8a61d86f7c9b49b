// Edge-case tests for the scalar family handlers (ALU, AGU, BRU), driven by
// encoded instructions.  Every expected value is derived by hand from the ASL
// rule cited next to it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "test_paths.hpp"
#include "scalar/handler_support.hpp"
#include "scalar/tables.hpp"
#include "scalar_harness.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using arch::Word;
using M = isa::Mnemonic;

constexpr Word kInt64Min = Word{1} << 63;
constexpr Word kMinusOne = ~Word{0};

class ScalarHandlers : public ::testing::Test {
 protected:
  ScalarHarness h;
  arch::State& st = h.state();

  ScalarResult run(M m, std::initializer_list<std::int64_t> fields) {
    return h.execute(encode_insn(m, fields), length_of(m));
  }
  // Executes and expects success, with TPC advanced by the length.
  void ok(M m, std::initializer_list<std::int64_t> fields) {
    const Word pc = st.pc;
    ASSERT_EQ(run(m, fields), ScalarResult::Executed) << isa::mnemonic_name(m);
    EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
    EXPECT_EQ(st.pc, pc + length_of(m) / 8);
  }
  Word r(unsigned i) const { return st.read_gpr(i); }
  void set(unsigned i, Word v) { st.write_gpr(i, v); }
};

// ---------------------------------------------------------------- tables ----

TEST(ScalarTables, SlotsMatchTheCatalogFieldOrder) {
  for (const scalar::ScalarFormSlots& s : scalar::scalar_form_slots()) {
    const auto forms = isa::forms_of_mnemonic(s.mnemonic);
    ASSERT_EQ(forms.size(), 1u) << isa::mnemonic_name(s.mnemonic);
    const isa::FormDesc& f = isa::form(forms[0]);
    SCOPED_TRACE(f.mnemonic);
    EXPECT_EQ(s.reg_dst, isa::field_index(f, "RegDst"));
    EXPECT_EQ(s.reg_dst0, isa::field_index(f, "RegDst0"));
    EXPECT_EQ(s.reg_dst1, isa::field_index(f, "RegDst1"));
    EXPECT_EQ(s.src_l, isa::field_index(f, "SrcL"));
    EXPECT_EQ(s.src_r, isa::field_index(f, "SrcR"));
    EXPECT_EQ(s.src_r_type, isa::field_index(f, "SrcRType"));
    EXPECT_EQ(s.shamt, isa::field_index(f, "shamt"));
    EXPECT_EQ(s.src_d, isa::field_index(f, "SrcD"));
    EXPECT_EQ(s.src_d1, isa::field_index(f, "SrcD1"));
    EXPECT_EQ(s.src_p, isa::field_index(f, "SrcP"));
    EXPECT_EQ(s.aq, isa::field_index(f, "aq"));
    EXPECT_EQ(s.rl, isa::field_index(f, "rl"));
    EXPECT_EQ(s.far, isa::field_index(f, "far"));
    EXPECT_EQ(s.model, isa::field_index(f, "model"));
    EXPECT_EQ(s.imml, isa::field_index(f, "imml"));
    EXPECT_EQ(s.imms, isa::field_index(f, "imms"));
    EXPECT_EQ(s.immr, isa::field_index(f, "immr"));
    EXPECT_EQ(s.src_a, isa::field_index(f, "SrcA"));
    EXPECT_EQ(s.src_type, isa::field_index(f, "SrcType"));
    EXPECT_EQ(s.dst_type, isa::field_index(f, "DstType"));
  }
}

// The committed table equals a fresh run of tools/gen_scalar_tables.py
// (skipped, visibly, when ../shared is absent).
TEST(ScalarTables, RegeneratedTableMatchesCommitted) {
  const std::filesystem::path catalog =
      std::filesystem::path(PTO_SHARED_DIR) / "pto-spec-0.58.3" / "catalog" / "scalar-forms.json";
  if (!std::filesystem::exists(catalog)) {
    GTEST_SKIP() << catalog << " is absent; cannot regenerate the scalar table";
  }
  const std::string cmd = "python3 " + (std::filesystem::path(PTO_SOURCE_DIR) / "tools" / "gen_scalar_tables.py").string() +
                          " --check --catalog " + catalog.string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(ScalarTables, AguMetadataCoversEveryAguForm) {
  std::set<M> agu;
  for (const scalar::AguForm& a : scalar::agu_forms()) agu.insert(a.mnemonic);
  std::size_t catalog_agu = 0;
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    if (f.family != isa::Family::AGU) continue;
    ++catalog_agu;
    EXPECT_TRUE(agu.contains(f.mnem)) << f.mnemonic;
  }
  EXPECT_EQ(catalog_agu, 183u);  // SPEC-MAP §5: 183 AGU forms
  EXPECT_EQ(agu.size(), catalog_agu);
}

// ---------------------------------------------------------- registration ----

// Forms the block layer owns (src/scalar/execute.hpp REGISTRATION).
bool block_owned(std::string_view n) {
  return n == "J" || n == "JR" || n == "SETRET" || n == "HL.SETRET" || n == "ADDTPC" || n == "HL.ADDTPC" ||
         n.starts_with("SETC.") || n.starts_with("C.SETC.") || n.starts_with("HL.SETC.");
}

// SYS forms src/scalar/sys.cpp executes: all but LSRGET and SETC.TGT (block layer).
const std::set<M> kScalarSysForms = {
    M::SSRGET,  M::HL_SSRGET, M::C_SSRGET, M::SSRSET,  M::HL_SSRSET, M::SSRSWAP, M::EBREAK,  M::C_EBREAK,
    M::ASSERT,  M::FENCE_D,   M::FENCE_I,  M::ACRC,    M::ACRE,      M::DC_IALL, M::DC_IVA,  M::DC_ISW,
    M::DC_ZVA,  M::DC_CVA,    M::DC_CIVA,  M::DC_CSW,  M::DC_CISW,   M::IC_IALL, M::IC_IVA,  M::BC_IALL,
    M::BC_IVA,  M::TLB_IV,    M::TLB_IAV,  M::TLB_IA,  M::TLB_IALL,  M::BSE,     M::BWE,     M::BWI,
    M::BWT};
// The General Queue Management commands, registered with the scalar families (src/scalar/gqm.cpp).
const std::set<M> kGqmCommands = {M::HL_QMT, M::HL_QPUSH, M::HL_QPOP};

TEST(ScalarRegistration, ScalarListsCoverEveryFamilyFormTheBlockLayerDoesNotOwn) {
  scalar::HandlerTable table;
  scalar::register_scalar_family_handlers(table);
  std::map<isa::Family, int> counts;
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    const bool scalar_family = f.family == isa::Family::ALU || f.family == isa::Family::AGU ||
                               f.family == isa::Family::BRU || f.family == isa::Family::AMO ||
                               f.family == isa::Family::FSU;
    if (f.family == isa::Family::SYS) {
      EXPECT_EQ(table.get(f.mnem) != nullptr, kScalarSysForms.contains(f.mnem)) << f.mnemonic;
      continue;
    }
    if (kGqmCommands.contains(f.mnem)) {
      EXPECT_NE(table.get(f.mnem), nullptr) << f.mnemonic;
      continue;
    }
    if (!scalar_family || block_owned(f.mnemonic)) {
      EXPECT_EQ(table.get(f.mnem), nullptr) << f.mnemonic << " is not registered by the scalar families";
      continue;
    }
    EXPECT_NE(table.get(f.mnem), nullptr) << f.mnemonic;
    ++counts[f.family];
  }
  EXPECT_EQ(counts[isa::Family::ALU], 106);  // 107 minus C.SETC.TGT
  EXPECT_EQ(counts[isa::Family::AGU], 183);
  EXPECT_EQ(counts[isa::Family::BRU], 26);   // CMP.*, HL.CMP.*, C.CMP.*
  EXPECT_EQ(counts[isa::Family::AMO], 53);
  EXPECT_EQ(counts[isa::Family::FSU], 30);
  // No mnemonic is listed twice across the family lists.
  std::size_t entries = 0;
  for (const auto list : {scalar::alu_handlers(), scalar::agu_handlers(), scalar::bru_handlers(),
                           scalar::amo_handlers(), scalar::sys_handlers(), scalar::fsu_handlers(),
                           scalar::gqm_handlers()}) {
    entries += list.size();
  }
  EXPECT_EQ(entries, 106u + 183u + 26u + 53u + 30u + kScalarSysForms.size() + kGqmCommands.size());
}

scalar::ExecOutcome sentinel_handler(arch::Machine&, const scalar::DecodedInsn&) {
  return scalar::ExecOutcome::NotImplemented;
}

TEST(ScalarRegistration, AnEarlierRegistrationIsKept) {
  scalar::HandlerTable table;
  ASSERT_TRUE(table.set(M::ADD, sentinel_handler));
  scalar::register_scalar_family_handlers(table);
  EXPECT_EQ(table.get(M::ADD), &sentinel_handler);
  EXPECT_NE(table.get(M::SUB), nullptr);
}

TEST(ScalarRegistration, ProcessTableExecutesEveryAluAguBruAmoFsuForm) {
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    if (f.family == isa::Family::ALU || f.family == isa::Family::AGU || f.family == isa::Family::BRU ||
        f.family == isa::Family::AMO || f.family == isa::Family::FSU) {
      EXPECT_NE(scalar::handler_table().get(f.mnem), nullptr) << f.mnemonic;
    }
  }
}

// ------------------------------------------------------------------- ALU ----

TEST_F(ScalarHandlers, AddAppliesNegThenShiftToTheRightSource) {
  // ADD: right = LSL(0 - SrcR, shamt) for SrcRType 10 (.neg).
  set(1, 100);
  set(2, 3);
  ok(M::ADD, {3, 1, 2, 2, 4});
  EXPECT_EQ(r(3), 100u - (3u << 4));
  // SrcRType 00 (.sw) sign-extends SrcR[31:0].
  set(2, 0x80000000u);
  ok(M::ADD, {3, 0, 2, 0, 0});
  EXPECT_EQ(r(3), 0xFFFFFFFF80000000u);
  // SrcRType 01 (.uw) zero-extends SrcR[31:0].
  set(2, 0xABCD0000FFFFFFFFu);
  ok(M::ADD, {3, 0, 2, 1, 0});
  EXPECT_EQ(r(3), 0xFFFFFFFFu);
}

TEST_F(ScalarHandlers, LogicalFamilyInvertsInsteadOfNegating) {
  set(1, 0xFF);
  set(2, 0x0F);
  ok(M::AND, {3, 1, 2, 2, 0});  // .not: 0xFF & ~0x0F
  EXPECT_EQ(r(3), 0xF0u);
}

TEST_F(ScalarHandlers, ShiftAmountsAreMaskedToTheOperandWidth) {
  set(1, 1);
  set(2, 65);  // ScalarBinary uses right[5:0] = 1
  ok(M::SLL, {3, 1, 2});
  EXPECT_EQ(r(3), 2u);
  set(2, 33);  // ScalarBinaryW uses right[4:0] = 1
  ok(M::SLLW, {3, 1, 2});
  EXPECT_EQ(r(3), 2u);
  set(2, 31);  // 1 << 31 in 32 bits, sign-extended
  ok(M::SLLW, {3, 1, 2});
  EXPECT_EQ(r(3), 0xFFFFFFFF80000000u);
  set(1, kInt64Min);
  set(2, 127);  // 63
  ok(M::SRA, {3, 1, 2});
  EXPECT_EQ(r(3), kMinusOne);
  ok(M::SRL, {3, 1, 2});
  EXPECT_EQ(r(3), 1u);
  ok(M::SRAI, {3, 1, 62});
  EXPECT_EQ(r(3), kMinusOne - 1);
  set(1, 0x80000000u);
  ok(M::SRAIW, {3, 1, 31});
  EXPECT_EQ(r(3), kMinusOne);
}

TEST_F(ScalarHandlers, DivisionByZeroAndOverflowFollowTheAsl) {
  set(1, kInt64Min);
  set(2, kMinusOne);
  ok(M::DIV, {3, 1, 2});
  EXPECT_EQ(r(3), kInt64Min);  // magnitude wraps
  ok(M::REM, {3, 1, 2});
  EXPECT_EQ(r(3), 0u);
  set(2, 0);
  ok(M::DIV, {3, 1, 2});
  EXPECT_EQ(r(3), 0u);  // x / 0 = 0
  ok(M::REM, {3, 1, 2});
  EXPECT_EQ(r(3), kInt64Min);  // x % 0 = x
  ok(M::DIVU, {3, 1, 2});
  EXPECT_EQ(r(3), 0u);
  ok(M::REMU, {3, 1, 2});
  EXPECT_EQ(r(3), kInt64Min);
  set(1, 0x80000000u);  // INT32_MIN as a word operand
  set(2, 0xFFFFFFFFu);  // -1 as a word operand
  ok(M::DIVW, {3, 1, 2});
  EXPECT_EQ(r(3), 0xFFFFFFFF80000000u);
  ok(M::REMW, {3, 1, 2});
  EXPECT_EQ(r(3), 0u);
  set(1, static_cast<Word>(-7));
  set(2, 2);
  ok(M::DIV, {3, 1, 2});
  EXPECT_EQ(r(3), static_cast<Word>(-3));  // truncation toward zero
  ok(M::REM, {3, 1, 2});
  EXPECT_EQ(r(3), static_cast<Word>(-1));
}

TEST_F(ScalarHandlers, PairResultsGoToDst0ThenDst1) {
  set(1, kMinusOne);
  set(2, kMinusOne);
  ok(M::HL_MUL, {3, 4, 1, 2});  // (-1)*(-1) = 1
  EXPECT_EQ(r(3), 1u);
  EXPECT_EQ(r(4), 0u);
  ok(M::HL_MULU, {3, 4, 1, 2});  // (2^64-1)^2 = 2^128 - 2^65 + 1
  EXPECT_EQ(r(3), 1u);
  EXPECT_EQ(r(4), 0xFFFFFFFFFFFFFFFEu);
  set(1, 17);
  set(2, 5);
  ok(M::HL_DIV, {3, 4, 1, 2});
  EXPECT_EQ(r(3), 3u);
  EXPECT_EQ(r(4), 2u);
  ok(M::HL_REM, {3, 4, 1, 2});  // remainder first
  EXPECT_EQ(r(3), 2u);
  EXPECT_EQ(r(4), 3u);
  ok(M::HL_DIV, {5, 5, 1, 2});  // equal destinations keep Dst1
  EXPECT_EQ(r(5), 2u);
  ok(M::HL_DIV, {31, 31, 1, 2});  // equal queues push Dst0 then Dst1
  EXPECT_EQ(st.t_queue.value[0], 2u);
  EXPECT_EQ(st.t_queue.value[1], 3u);
}

TEST_F(ScalarHandlers, MultiplyAddPairIsSigned128BitOrWord) {
  set(1, kInt64Min);
  set(2, 2);
  set(6, kMinusOne);
  ok(M::HL_MADD, {3, 4, 6, 1, 2});  // -2^64 - 1
  EXPECT_EQ(r(3), kMinusOne);
  EXPECT_EQ(r(4), kMinusOne - 1);
  set(1, 0x7FFFFFFF);
  set(2, 0x7FFFFFFF);
  set(6, 1);
  ok(M::HL_MADDW, {3, 4, 6, 1, 2});  // (2^31-1)^2 + 1 = 0x3FFFFFFF_00000002
  EXPECT_EQ(r(3), 2u);
  EXPECT_EQ(r(4), 0x3FFFFFFFu);
}

TEST_F(ScalarHandlers, ConcatenateShiftCoversAllShamts) {
  set(1, 0x1111111111111111u);
  set(2, 0x2222222222222222u);
  ok(M::HL_CCAT, {3, 4, 1, 2, 4});
  EXPECT_EQ(r(3), 0x1222222222222222u);
  EXPECT_EQ(r(4), 0x0111111111111111u);
  ok(M::HL_CCAT, {3, 4, 1, 2, 64});
  EXPECT_EQ(r(3), 0x1111111111111111u);
  EXPECT_EQ(r(4), 0u);
  ok(M::HL_CCATW, {3, 4, 1, 2, 64});  // 64..127 give two zeros
  EXPECT_EQ(r(3), 0u);
  EXPECT_EQ(r(4), 0u);
  set(1, 0x80000000u);
  ok(M::HL_CCATW, {3, 4, 1, 2, 0});
  EXPECT_EQ(r(3), 0x22222222u);
  EXPECT_EQ(r(4), 0xFFFFFFFF80000000u);
}

TEST_F(ScalarHandlers, BitfieldOperations) {
  // BXS/BXU/CLZ/CTZ/BCNT/BIC/BIS fields: RegDst, SrcL, imml (width-1), imms (offset)
  set(1, 0x8000);
  ok(M::BXS, {3, 1, 7, 8});
  EXPECT_EQ(r(3), 0xFFFFFFFFFFFFFF80u);
  ok(M::BXU, {3, 1, 7, 8});
  EXPECT_EQ(r(3), 0x80u);
  set(1, 0);
  ok(M::CLZ, {3, 1, 63, 0});
  EXPECT_EQ(r(3), 64u);
  set(1, 0x100);
  ok(M::CTZ, {3, 1, 7, 4});  // field (0x100 >> 4) & 0xFF = 0x10
  EXPECT_EQ(r(3), 4u);
  ok(M::CLZ, {3, 1, 7, 4});
  EXPECT_EQ(r(3), 3u);
  set(1, 0xF0F0);
  ok(M::BCNT, {3, 1, 63, 0});
  EXPECT_EQ(r(3), 8u);
  set(1, 0);
  ok(M::BIS, {3, 1, 7, 60});  // 8 bits from bit 60, wrapping to bit 3
  EXPECT_EQ(r(3), 0xF00000000000000Fu);
  set(1, kMinusOne);
  ok(M::BIC, {3, 1, 7, 60});
  EXPECT_EQ(r(3), 0x0FFFFFFFFFFFFFF0u);
  // REV fields: RegDst, SrcL, imml, immr
  set(1, 0x123456);
  ok(M::REV, {3, 1, 15, 0});
  EXPECT_EQ(r(3), 0x5634u);
  ok(M::REV, {3, 1, 11, 0});  // width 12 is not whole bytes
  EXPECT_EQ(r(3), 0u);
  // HL.BFI fields: RegDst, SrcL (base), SrcR (source), immr (first), imms (last)
  set(1, 0);
  set(2, 0xFF);
  ok(M::HL_BFI, {3, 1, 2, 60, 3});
  EXPECT_EQ(r(3), 0xF00000000000000Fu);
}

TEST_F(ScalarHandlers, DestinationCodesDiscardOrPush) {
  set(1, 5);
  set(2, 6);
  ok(M::ADD, {0, 1, 2, 3, 0});  // code 0 discards
  EXPECT_EQ(r(0), 0u);
  ok(M::ADD, {26, 1, 2, 3, 0});  // codes 24..29 discard
  EXPECT_EQ(st.t_queue.pushes + st.u_queue.pushes, 0u);
  ok(M::ADD, {30, 1, 2, 3, 0});  // ->u
  EXPECT_EQ(st.u_queue.value[0], 11u);
  EXPECT_TRUE(st.u_queue.valid[0]);
  ok(M::ADD, {3, 28, 1, 3, 0});  // u#1 source is not consumed
  EXPECT_EQ(r(3), 16u);
  EXPECT_TRUE(st.u_queue.valid[0]);
}

TEST_F(ScalarHandlers, CompressedFormsWriteT) {
  set(1, 40);
  set(2, 2);
  ok(M::C_SUB, {1, 2});
  EXPECT_EQ(st.t_queue.value[0], 38u);
  ok(M::C_ADDI, {1, -8});
  EXPECT_EQ(st.t_queue.value[0], 32u);
  ok(M::C_SLLI, {3});  // t#1 << 3
  EXPECT_EQ(st.t_queue.value[0], 256u);
  set(1, 0x80);
  ok(M::C_SEXT_B, {1});
  EXPECT_EQ(st.t_queue.value[0], 0xFFFFFFFFFFFFFF80u);
  ok(M::C_ZEXT_B, {1});
  EXPECT_EQ(st.t_queue.value[0], 0x80u);
  ok(M::C_MOVI, {4, -1});
  EXPECT_EQ(r(4), kMinusOne);
}

TEST_F(ScalarHandlers, ImplicitT1SourceMustBeValid) {
  // ScalarImplicitSourceOperandsLegal: C.SLLI reads t#1.
  st.pc = 0x40;
  EXPECT_EQ(run(M::C_SLLI, {1}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(st.fault_address, 0x40u);
  EXPECT_EQ(st.t_queue.pushes, 0u);
}

TEST_F(ScalarHandlers, CSetretWritesRaAndReturnAddress) {
  st.pc = 0x100;
  ok(M::C_SETRET, {3});
  EXPECT_EQ(r(arch::kRegRa), 0x106u);
  EXPECT_EQ(st.return_address, 0x106u);
}

TEST_F(ScalarHandlers, MaterializeImmediates) {
  ok(M::LUI, {3, 0x80000});
  EXPECT_EQ(r(3), 0xFFFFFFFF80000000u);
  ok(M::HL_LUI, {3, 0x12345678});
  EXPECT_EQ(r(3), 0x1234567800000000u);
  ok(M::HL_LIS, {3, -2});
  EXPECT_EQ(r(3), kMinusOne - 1);
  ok(M::HL_LIU, {3, 0xFFFFFFFF});
  EXPECT_EQ(r(3), 0xFFFFFFFFu);
  set(1, 7);
  ok(M::ADDI, {3, 1, 0xFFF});  // uimm12 is zero-extended
  EXPECT_EQ(r(3), 7u + 0xFFF);
  ok(M::ANDI, {3, 1, -2});  // simm12 is sign-extended
  EXPECT_EQ(r(3), 6u);
}

TEST_F(ScalarHandlers, CselNegatesTheFalseValueForType11) {
  // CSEL fields: RegDst, SrcL, SrcP, SrcR, SrcRType
  set(1, 10);
  set(2, 0);
  set(4, 3);
  ok(M::CSEL, {3, 1, 2, 4, 3});
  EXPECT_EQ(r(3), static_cast<Word>(-3));
  ok(M::CSEL, {3, 1, 2, 4, 0});
  EXPECT_EQ(r(3), 3u);
  set(2, 1);
  ok(M::CSEL, {3, 1, 2, 4, 3});
  EXPECT_EQ(r(3), 10u);
}

// ------------------------------------------------------------------- AGU ----

class AguHandlers : public ScalarHandlers {
 protected:
  void SetUp() override { h.machine.memory.write(0x100, 8, 0xF1E2D3C4B5A69788u); }
};

TEST_F(AguHandlers, EveryLoadWidthExtendsAsSpecified) {
  // NormalizeScalarLoadResult; fields RegDst, SrcL, SrcR, SrcRType (00 = none), shamt
  set(1, 0x100);
  const struct {
    M m;
    Word expected;
  } cases[] = {
      {M::LB, 0xFFFFFFFFFFFFFF88u}, {M::LBU, 0x88u},         {M::LH, 0xFFFFFFFFFFFF9788u},
      {M::LHU, 0x9788u},            {M::LW, 0xFFFFFFFFB5A69788u}, {M::LWU, 0xB5A69788u},
      {M::LD, 0xF1E2D3C4B5A69788u},
  };
  for (const auto& c : cases) {
    ok(c.m, {3, 1, 0, 0, 0});
    EXPECT_EQ(r(3), c.expected) << isa::mnemonic_name(c.m);
  }
}

TEST_F(AguHandlers, RegisterOffsetModifierThenShift) {
  // DecodeScalarAddressRightModifier: 11 negates; offset = LSL(-1, 3) = -8.
  set(1, 0x108);
  set(2, 1);
  ok(M::LD, {3, 1, 2, 3, 3});
  EXPECT_EQ(r(3), 0xF1E2D3C4B5A69788u);
}

TEST_F(AguHandlers, MisalignedLoadFaultsAtTheDataAddressAndWritesNothing) {
  st.pc = 0x40;
  set(1, 0x102);
  set(3, 0x5555);
  EXPECT_EQ(run(M::LW, {3, 1, 0, 0, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(st.fault_address, 0x102u);
  EXPECT_EQ(r(3), 0x5555u);
  EXPECT_EQ(st.pc, 0x102u);  // EVBASE = 0: TPC = fault address
  EXPECT_TRUE(st.trap_contexts[0].valid);
  EXPECT_EQ(st.trap_contexts[0].tpc, 0x40u);
}

TEST_F(AguHandlers, AccessBeyondModelMemoryIsADataPageFault) {
  set(1, 0x1000);  // PTO_MODEL_MEMORY_BYTES = 4096
  EXPECT_EQ(run(M::LD, {3, 1, 0, 0, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, 0x1000u);
}

TEST_F(AguHandlers, PreAndPostUpdate) {
  h.machine.memory.write(0x108, 4, 0x11223344);
  // HL.LWI.PR: RegDst0, RegDst1, SrcL, simm17 (scaled by 4)
  set(1, 0x100);
  ok(M::HL_LWI_PR, {3, 1, 1, 2});
  EXPECT_EQ(r(3), 0x11223344u);
  EXPECT_EQ(r(1), 0x108u);
  set(1, 0x100);
  ok(M::HL_LWI_PO, {3, 1, 1, 2});
  EXPECT_EQ(r(3), 0xFFFFFFFFB5A69788u);  // loaded from the old base
  EXPECT_EQ(r(1), 0x108u);
  // HL.SWI.PR: RegDst, SrcD, SrcR (base), simm17
  set(2, 0xCAFE);
  set(1, 0x200);
  ok(M::HL_SWI_PR, {1, 2, 1, -1});
  EXPECT_EQ(h.machine.memory.read(0x1FC, 4), 0xCAFEu);
  EXPECT_EQ(r(1), 0x1FCu);
}

TEST_F(AguHandlers, FaultingUpdateFormChangesNothing) {
  set(2, 0xCAFE);
  set(1, 0x202);
  EXPECT_EQ(run(M::HL_SWI_PO, {1, 2, 1, 1}), ScalarResult::Rejected);  // store at 0x202
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(st.fault_address, 0x202u);
  EXPECT_EQ(r(1), 0x202u);
  EXPECT_EQ(h.machine.memory.read(0x200, 8), 0u);
}

TEST_F(AguHandlers, PairsProbeBothAccessesFirst) {
  h.machine.memory.write(0x108, 8, 0x0102030405060708u);
  // HL.LDP: RegDst0, RegDst1, SrcL, SrcR, SrcRType, shamt
  set(1, 0x100);
  ok(M::HL_LDP, {3, 4, 1, 0, 0, 0});
  EXPECT_EQ(r(3), 0xF1E2D3C4B5A69788u);
  EXPECT_EQ(r(4), 0x0102030405060708u);
  set(1, 0xFF8);  // second half at 0x1000 is outside the model memory
  set(3, 0);
  set(4, 0);
  EXPECT_EQ(run(M::HL_LDP, {3, 4, 1, 0, 0, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, 0x1000u);
  EXPECT_EQ(r(3), 0u);
  EXPECT_EQ(r(4), 0u);
  // HL.SDP: SrcD, SrcD1, SrcL, SrcR, SrcRType (offset scaled by 8)
  set(5, 0xAAAA);
  set(6, 0xBBBB);
  EXPECT_EQ(run(M::HL_SDP, {5, 6, 1, 0, 0}), ScalarResult::Rejected);
  EXPECT_EQ(h.machine.memory.read(0xFF8, 8), 0u);  // the first half was not written
  set(1, 0x200);
  ok(M::HL_SDP, {5, 6, 1, 0, 0});
  EXPECT_EQ(h.machine.memory.read(0x200, 8), 0xAAAAu);
  EXPECT_EQ(h.machine.memory.read(0x208, 8), 0xBBBBu);
}

TEST_F(AguHandlers, PcRelativeBaseIsTheWordAlignedTpc) {
  h.machine.memory.write(0x108, 4, 0x7EADBEEF);
  st.pc = 0x106;  // base 0x104, LW.PCR offset simm17 << 2
  ok(M::LW_PCR, {3, 1});
  EXPECT_EQ(r(3), 0x7EADBEEFu);
}

TEST_F(AguHandlers, PrefetchHasNoMemoryEffect) {
  // HL.PRF.A: RegDst, SrcL, SrcR, SrcRType, model, shamt -> address result
  set(1, 0xFFFFFFFF00000001u);  // neither aligned nor inside the model memory
  set(2, 4);
  ok(M::HL_PRF_A, {3, 1, 2, 0, 1, 2});
  EXPECT_EQ(r(3), 0xFFFFFFFF00000011u);
  ok(M::PRF, {3, 1, 2, 0, 0});  // RegDst is an ignored alias
  EXPECT_EQ(r(3), 0xFFFFFFFF00000011u);
}

TEST_F(AguHandlers, CompressedLoadsPushTAndStoresReadT1) {
  set(1, 0x100);
  ok(M::C_LDI, {1, 0});
  EXPECT_EQ(st.t_queue.value[0], 0xF1E2D3C4B5A69788u);
  ok(M::C_SDI, {1, 2});  // t#1 stored at 0x100 + 2*8
  EXPECT_EQ(h.machine.memory.read(0x110, 8), 0xF1E2D3C4B5A69788u);
}

// ------------------------------------------------------------------- BRU ----

TEST_F(ScalarHandlers, CompareSignedAndUnsigned) {
  // CMP.*: RegDst, SrcL, SrcR, SrcRType (00 = none)
  set(1, kMinusOne);
  set(2, 1);
  ok(M::CMP_LT, {3, 1, 2, 0});
  EXPECT_EQ(r(3), 1u);
  ok(M::CMP_LTU, {3, 1, 2, 0});
  EXPECT_EQ(r(3), 0u);
  ok(M::CMP_GEU, {3, 1, 2, 0});
  EXPECT_EQ(r(3), 1u);
  ok(M::CMP_GEUI, {3, 1, 0xFFF});  // uimm12 zero-extended
  EXPECT_EQ(r(3), 1u);
  ok(M::CMP_LTI, {3, 1, 0});
  EXPECT_EQ(r(3), 1u);
}

TEST_F(ScalarHandlers, CompareIgnoresNegButLogicalCompareInverts) {
  set(1, 5);
  set(2, 5);
  ok(M::CMP_EQ, {3, 1, 2, 3});  // ApplyRestrictedCompareModifier: .neg ignored
  EXPECT_EQ(r(3), 1u);
  set(1, 0xF0);
  set(2, 0xF0);
  ok(M::CMP_AND, {3, 1, 2, 0});
  EXPECT_EQ(r(3), 1u);
  ok(M::CMP_AND, {3, 1, 2, 3});  // .not: 0xF0 & ~0xF0 = 0
  EXPECT_EQ(r(3), 0u);
  ok(M::CMP_ORI, {3, 0, 0});
  EXPECT_EQ(r(3), 0u);
}

TEST_F(ScalarHandlers, CompressedCompareReadsT1AndPushesT) {
  st.t_queue.push(static_cast<Word>(-3));
  ok(M::C_CMP_EQI, {-3});
  EXPECT_EQ(st.t_queue.value[0], 1u);
  ok(M::C_CMP_NEI, {1});  // t#1 is now 1
  EXPECT_EQ(st.t_queue.value[0], 0u);
}

}  // namespace
}  // namespace pto::test
