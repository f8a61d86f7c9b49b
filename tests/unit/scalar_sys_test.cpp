// SYS handlers without block state of their own: SSRGET/SSRSET/SSRSWAP (and
// HL./C. forms), EBREAK/C.EBREAK, ASSERT.  They run in an active SYS block
// body (ScalarOperationApplicable).  Expected values are hand derived from
// asl/scalar/model/sys/{registers,semantics}.asl and
// asl/arch/system-registers/{interrupt,timer}.asl.
#include <gtest/gtest.h>

#include "block/control.hpp"
#include "scalar/system_registers.hpp"
#include "scalar_harness.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using arch::Word;
using M = isa::Mnemonic;

class SysHandlers : public ::testing::Test {
 protected:
  ScalarHarness h;
  arch::State& st = h.state();

  void SetUp() override {
    st.pc = 0x100;
    block::begin_bundle_at(h.machine, 0x100, arch::BundleKind::System, arch::BundleTransfer::Fallthrough, 0, 0x104,
                           0, false);
    block::enter_bundle_body(h.machine);
    ASSERT_EQ(st.last_fault, FaultCode::Fault_None);
  }
  ScalarResult run(M m, std::initializer_list<std::int64_t> fields) {
    return h.execute(encode_insn(m, fields), length_of(m));
  }
  void ok(M m, std::initializer_list<std::int64_t> fields) {
    ASSERT_EQ(run(m, fields), ScalarResult::Executed) << isa::mnemonic_name(m);
    EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
  }
  void rejected(M m, std::initializer_list<std::int64_t> fields, FaultCode code) {
    const Word pc = st.pc;
    ASSERT_EQ(run(m, fields), ScalarResult::Rejected) << isa::mnemonic_name(m);
    EXPECT_EQ(st.last_fault, code);
    EXPECT_EQ(st.fault_address, pc);
  }
  Word r(unsigned i) const { return st.read_gpr(i); }
  void set(unsigned i, Word v) { st.write_gpr(i, v); }
};

TEST(SystemRegisterAccess, FollowsTheCatalogClasses) {
  using scalar::SystemRegisterAccess;
  EXPECT_EQ(scalar::system_register_access_of(0x000), SystemRegisterAccess::ReadWrite);   // THREAD_PTR
  EXPECT_EQ(scalar::system_register_access_of(0x023), SystemRegisterAccess::ReadOnly);    // VERSION
  EXPECT_EQ(scalar::system_register_access_of(0xF0A), SystemRegisterAccess::WriteOnly);   // EOIEI, ring 0
  EXPECT_EQ(scalar::system_register_access_of(0x5F01), SystemRegisterAccess::ReadWrite);  // EVBASE, ring 5
  EXPECT_EQ(scalar::system_register_access_of(0x1F10), SystemRegisterAccess::ReadWrite);  // TTBR0, fixed ACR1
  EXPECT_EQ(scalar::system_register_access_of(0x0F10), SystemRegisterAccess::Unknown);    // TTBR0 outside ACR1
  EXPECT_EQ(scalar::system_register_access_of(0x030), SystemRegisterAccess::Unknown);
  EXPECT_EQ(scalar::system_register_access_of(0x00FFFF), SystemRegisterAccess::Unknown);
  EXPECT_EQ(scalar::system_register_access_of(0x100000), SystemRegisterAccess::Unknown);
}

TEST_F(SysHandlers, SetThenGetABaseRegister) {
  set(1, 0x1234);
  ok(M::SSRSET, {0x000, 1});  // SSR_ID, SrcL
  EXPECT_EQ(st.sysregs.thread_ptr, 0x1234u);
  ok(M::SSRGET, {3, 0x000});  // RegDst, SSR_ID
  EXPECT_EQ(r(3), 0x1234u);
  ok(M::SSRGET, {3, 0x023});  // VERSION resets to 1
  EXPECT_EQ(r(3), 1u);
}

TEST_F(SysHandlers, ReadOnlyUnknownAndRingRestrictedAccessesAreIllegal) {
  set(1, 7);
  rejected(M::SSRSET, {0x023, 1}, FaultCode::Fault_IllegalInstruction);  // VERSION is RO
  EXPECT_EQ(st.sysregs.version, 1u);
  rejected(M::SSRGET, {3, 0x030}, FaultCode::Fault_IllegalInstruction);  // unassigned
}

TEST_F(SysHandlers, ContextRegistersNeedAcr0) {
  h.machine.set_current_acr(2);
  set(3, 0x99);
  rejected(M::SSRGET, {3, 0xF01}, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(r(3), 0x99u);
  EXPECT_EQ(st.current_acr, 1);  // faults from ACR >= 1 trap to ACR1
}

TEST_F(SysHandlers, CoreStateWriteSwitchesTheRing) {
  set(1, 0x5);
  ok(M::SSRSET, {0x020, 1});
  EXPECT_EQ(st.current_acr, 5);
  EXPECT_EQ(st.sysregs.core_state, 0x5u);
}

TEST_F(SysHandlers, BankedRegistersUseAddressBits15To12) {
  set(1, 0x4000);
  ok(M::HL_SSRSET, {0x3F01, 1});  // EVBASE of ring 3
  EXPECT_EQ(st.banked_reg(3, arch::kEvbaseLow), 0x4000u);
  EXPECT_EQ(st.banked_reg(0, arch::kEvbaseLow), 0u);
  ok(M::HL_SSRGET, {4, 0x3F01});
  EXPECT_EQ(r(4), 0x4000u);
}

TEST_F(SysHandlers, TimerCompareDrivesThePendingTimerInterrupt) {
  st.sysregs.cycle = 100;
  set(1, 50);
  ok(M::HL_SSRSET, {0xF21, 1});  // TIMECMP(ring 0) = 50 <= cycle: timer id 1 pending
  ok(M::SSRGET, {3, 0xF08});
  EXPECT_EQ(r(3), 0b10u);
  ok(M::SSRGET, {3, 0xF09});  // TOPEI: lowest pending id
  EXPECT_EQ(r(3), 1u);
  set(1, 1000);
  ok(M::HL_SSRSET, {0xF21, 1});
  ok(M::SSRGET, {3, 0xF08});
  EXPECT_EQ(r(3), 0u);
}

TEST_F(SysHandlers, EndOfInterruptClearsOnePendingBitAndIsWriteOnly) {
  st.banked_reg(0, 0xF08) = (Word{1} << 5) | (Word{1} << 9);
  st.trap_status[0].asynchronous = true;
  st.trap_status[0].argument_valid = true;
  set(1, 5);
  ok(M::SSRSET, {0xF0A, 1});
  EXPECT_EQ(st.banked_reg(0, 0xF08), Word{1} << 9);
  EXPECT_EQ(st.banked_reg(0, 0xF09), 9u);
  EXPECT_FALSE(st.trap_status[0].asynchronous);
  EXPECT_FALSE(st.trap_status[0].argument_valid);
  rejected(M::SSRGET, {3, 0xF0A}, FaultCode::Fault_IllegalInstruction);
}

TEST_F(SysHandlers, TrapStatusPacksAndUnpacks) {
  const Word packed = (Word{1} << 63) | (Word{0xABCDEF} << 24) | 34;
  set(1, packed);
  ok(M::SSRSET, {0xF02, 1});
  EXPECT_TRUE(st.trap_status[0].asynchronous);
  EXPECT_FALSE(st.trap_status[0].argument_valid);
  EXPECT_EQ(st.trap_status[0].cause, 0xABCDEFu);
  EXPECT_EQ(st.trap_status[0].number, 34);
  ok(M::SSRGET, {3, 0xF02});
  EXPECT_EQ(r(3), packed);
}

TEST_F(SysHandlers, SwapReturnsTheOldValueAndChecksBeforeReading) {
  st.sysregs.global_ptr = 0x11;
  set(1, 0x22);
  ok(M::SSRSWAP, {3, 0x001, 1});  // RegDst, SSR_ID, SrcL
  EXPECT_EQ(r(3), 0x11u);
  EXPECT_EQ(st.sysregs.global_ptr, 0x22u);
  set(3, 0x77);
  rejected(M::SSRSWAP, {3, 0x010, 1}, FaultCode::Fault_IllegalInstruction);  // TIME is RO
  EXPECT_EQ(r(3), 0x77u);
}

TEST_F(SysHandlers, CompressedGetPushesTime) {
  st.sysregs.cycle = 41;
  ok(M::C_SSRGET, {16});  // TIME = cycle after this attempt's increment
  EXPECT_EQ(st.t_queue.value[0], 42u);
}

TEST_F(SysHandlers, SoftwareBreakpointCarriesItsTag) {
  rejected(M::EBREAK, {7}, FaultCode::Fault_SoftwareBreakpoint);
  EXPECT_EQ(st.trap_status[0].cause, 7u);
  EXPECT_EQ(st.trap_status[0].number, 50);
}

TEST_F(SysHandlers, AssertFaultsOnZero) {
  set(1, 1);
  ok(M::ASSERT, {1});
  rejected(M::ASSERT, {0}, FaultCode::Fault_Assert);
}

TEST(SysApplicability, OutsideASysBlockBodyIsABundleControlFault) {
  ScalarHarness h;
  EXPECT_EQ(h.execute(encode_insn(M::SSRGET, {3, 0}), 32), ScalarResult::Rejected);
  EXPECT_EQ(h.state().last_fault, FaultCode::Fault_BundleControl);
}

}  // namespace
}  // namespace pto::test
