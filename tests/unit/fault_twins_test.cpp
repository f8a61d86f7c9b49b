// Negative twins of block fault points: the spec point's faulting word
// sequence, and the same sequence made legal by the smallest change that
// removes the faulting condition of the rule it is named for.  The faulting
// sequence must raise the point's fault; its twin (<AVS id>-TWIN) must
// execute.  A rule that rejects too much fails the twin; one that rejects
// too little fails the fault half.  (Twins living next to their suites:
// MatrixBundle.UnusedIor001Twin, MatrixSharedBundle.TgemvRejectsASharedOperandThatTmatmulAccepts;
// docs/conformance.md lists the fault points without a twin.)
#include <gtest/gtest.h>

#include <vector>

#include "bundle_test_host.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;

constexpr std::uint64_t kBstartStdFall = 0x00001001;     // BSTART.STD FALL, simm17 0
constexpr std::uint64_t kEnterBody = 0x00000015;         // ADDI zero, 0, ->zero: the first body instruction
const std::uint64_t kBcatr = encode_form("b_catr_32_e90bd52fa480", {});
std::uint64_t iot_src(unsigned s, bool last, unsigned pe_mode = 7) {
  return encode_form(kBIotSrc, {{"SrcTile0", s}, {"PEMode", pe_mode}, {"L", last}});
}

struct Twin {
  const char* avs_id;
  std::vector<std::uint64_t> setup;    // executes in both runs
  std::vector<std::uint64_t> faulting;  // the point's rejected tail
  std::vector<std::uint64_t> twin;      // the same tail, legal
  FaultCode fault;
};

std::vector<Twin> twins() {
  const std::uint64_t datr = encode_form(kBDatr, {});
  return {
      // SetBundleDimension: a second write of the same LB; the twin writes another LB.
      {"PTO-AVS-BLOCK-B-DIM-DUPLICATE-001", {tload_start(kU32), bdim(0, 2)}, {bdim(0, 3)}, {bdim(1, 3)},
       FaultCode::Fault_BundleControl},
      // At most one B.DATR / B.CATR: the twin has only the first.
      {"PTO-AVS-BLOCK-B-DATR-DUPLICATE-001", {tload_start(kU32)}, {datr, datr}, {datr}, FaultCode::Fault_BundleControl},
      {"PTO-AVS-BLOCK-B-CATR-DUPLICATE-001", {tload_start(kU32)}, {kBcatr, kBcatr}, {kBcatr},
       FaultCode::Fault_BundleControl},
      // L closes the B.IOT stream: the twin marks the later binding last instead.
      {"PTO-AVS-BLOCK-B-IOT-LAST-ORDER-001", {tepl_start(0, kU32)}, {iot_src(1, true), iot_src(2, false)},
       {iot_src(1, false), iot_src(2, true)}, FaultCode::Fault_BundleControl},
      // Shared ids are unique: the twin names another id.
      {"PTO-AVS-BLOCK-B-IOS-STREAM-LIMIT-001", {tload_start(kU32)}, {ios(3, 0), ios(3, 0)}, {ios(3, 0), ios(4, 0)},
       FaultCode::Fault_BundleControl},
      // One PE mask for every binding: the twin repeats the first mask.
      {"PTO-AVS-BLOCK-B-IOS-MASK-CONSISTENCY-001", {tload_start(kU32)}, {ios(1, 0, 7), ios(2, 0, 1)},
       {ios(1, 0, 7), ios(2, 0, 7)}, FaultCode::Fault_TileLegality},
      // Header commands only in an active block's header: the faulting runs
      // are in the body; the twins precede the body's first instruction.
      {"PTO-AVS-BLOCK-B-DIM-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, bdim(0, 1)}, {bdim(0, 1), kEnterBody},
       FaultCode::Fault_BundleControl},
      {"PTO-AVS-BLOCK-B-DATR-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, datr}, {datr, kEnterBody},
       FaultCode::Fault_BundleControl},
      {"PTO-AVS-BLOCK-B-CATR-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, kBcatr}, {kBcatr, kEnterBody},
       FaultCode::Fault_BundleControl},
      {"PTO-AVS-BLOCK-B-IOR-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, bior(1, 0)}, {bior(1, 0), kEnterBody},
       FaultCode::Fault_BundleControl},
      {"PTO-AVS-BLOCK-B-IOS-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, ios(1, 0)}, {ios(1, 0), kEnterBody},
       FaultCode::Fault_BundleControl},
      {"PTO-AVS-BLOCK-B-IOT-PLACEMENT-001", {tepl_start(0, kU32)}, {kEnterBody, iot_src(1, true)},
       {iot_src(1, true), kEnterBody}, FaultCode::Fault_BundleControl},
      // BSTOP needs an active block: the twin opens one first.
      {"PTO-AVS-BLOCK-BSTOP-INACTIVE-001", {}, {kBstop}, {kBstartStdFall, kBstop}, FaultCode::Fault_BundleControl},
  };
}

class FaultTwin : public ::testing::TestWithParam<std::size_t> {};

TEST_P(FaultTwin, FaultsAndTwinExecutes) {
  const Twin t = twins()[GetParam()];
  BundleTestHost faulting;
  ASSERT_TRUE(faulting.run(t.setup).ok()) << t.avs_id;
  EXPECT_EQ(faulting.run(t.faulting).fault, t.fault) << t.avs_id;
  BundleTestHost twin;
  ASSERT_TRUE(twin.run(t.setup).ok()) << t.avs_id;
  const BundleOutcome o = twin.run(t.twin);
  EXPECT_TRUE(o.ok()) << t.avs_id << "-TWIN: " << arch::fault_name(o.fault) << " " << o.message;
}

std::string twin_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string n = std::string(twins()[info.param].avs_id) + "_TWIN";
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(AVS, FaultTwin, ::testing::Range<std::size_t>(0, twins().size()), twin_name);

}  // namespace
}  // namespace pto::test
