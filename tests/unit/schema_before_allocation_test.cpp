// The closed schemas of asl/block/model/dispatch/*-schema.asl read source
// tiles and the B.IOR scalar before ResolveBundleTileDestinationsForOperation
// (tile-execution.asl): a bundle whose source is illegal AND whose
// destination cannot be allocated faults Fault_TileLegality, with no effect.
// Each case also runs with a legal source to show the capacity really is
// exhausted (Fault_TileAllocation).  Expected faults are hand-derived from
// the ASL schema named in each test.
#include <gtest/gtest.h>

#include "bundle_test_host.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using isa::TileOp;
using tile::DataType;

struct Host : BundleTestHost {
  // A 1 x columns RowMajor source of type t in hand 0; `defined` publishes
  // it.  Element c holds value + c * step (step 0: constant).
  void source(tile::TileIndex i, DataType t, bool defined, std::uint64_t value = 1, std::int64_t step = 0,
              std::uint32_t columns = 8) {
    tile::ConfigureRequest r;
    r.capacity_bytes = 128;
    r.columns = columns;
    r.valid_rows = 1;
    r.valid_columns = columns;
    r.data_type = t;
    r.mask = 0b1111;
    ASSERT_EQ(file.configure(i, r), arch::FaultCode::Fault_None);
    if (!defined) return;
    tile::Tile& x = file.tile(i);
    for (unsigned c = 0; c < columns; ++c) x.store_raw(x.linear_index(0, c), value + static_cast<std::uint64_t>(step * c));
    x.mark_valid_region_defined();
  }
  // No destination fits any more (ResolveBundleTileDestinations capacity).
  void exhaust_capacity() { m.state.sysregs.tile_capacity = file.core_capacity_in_use(); }

  // Runs words; expects `fault` and no destination allocated.
  void expect(const std::vector<std::uint64_t>& words, FaultCode fault) {
    const std::uint32_t in_use = file.core_capacity_in_use();
    std::vector<std::uint64_t> bundle = words;
    bundle.push_back(kBstop);
    const BundleOutcome o = run(bundle);
    EXPECT_EQ(o.status, BundleStatus::Fault);
    EXPECT_EQ(o.fault, fault);
    EXPECT_TRUE(o.trace.destinations.empty());
    EXPECT_EQ(file.core_capacity_in_use(), in_use);
    for (tile::TileIndex t = tile::kTilesPerHand; t < 2 * tile::kTilesPerHand; ++t)
      EXPECT_FALSE(file.tile(t).allocated());
  }
};

std::uint64_t srcs_to_hand1(unsigned s0, unsigned s1) {
  return encode_form(kBIotSrcSrcDst,
                     {{"SrcTile0", s0}, {"SrcTile1", s1}, {"DstTile", 1}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}});
}

// SelectedBundleClosedTileScalarBinarySchemaLegal: integer DIV by a zero
// B.IOR scalar (SelectedBundleTileScalarRawValue) fails the schema.
TEST(SchemaBeforeAllocation, TdivsZeroScalarIsLegalityNotAllocation) {  // PTO-AVS-TILE-TDIVS-ZERO-001
  for (const std::uint64_t divisor : {0ULL, 3ULL}) {
    Host h;
    h.source(0, DataType::U32, true, 6);
    h.exhaust_capacity();
    h.gpr[5] = divisor;
    h.expect({start_of(TileOp::TDIVS, kU32), bdim(0, 8), bior(5, 0), src_to_hand1(0)},
             divisor == 0 ? FaultCode::Fault_TileLegality : FaultCode::Fault_TileAllocation);
  }
}

// SelectedBundleTileScalarSourceLegal: TileSourceContentsDefined and the
// BSTART data type.
TEST(SchemaBeforeAllocation, TaddsSourceIsCheckedBeforeAllocation) {  // PTO-AVS-TILE-TADDS-TYPES-001
  struct Case {
    DataType type;
    bool defined;
    FaultCode fault;
  };
  for (const Case c : {Case{DataType::FP32, false, FaultCode::Fault_TileLegality},
                       Case{DataType::U32, true, FaultCode::Fault_TileLegality},  // BSTART says FP32
                       Case{DataType::FP32, true, FaultCode::Fault_TileAllocation}}) {
    Host h;
    h.source(0, c.type, c.defined);
    h.exhaust_capacity();
    h.expect({start_of(TileOp::TADDS, kFP32), bdim(0, 8), bior(5, 0), src_to_hand1(0)}, c.fault);
  }
}

// SelectedBundleClosedTCMPSSchemaLegal: TileNumericEncodingValid of the raw
// B.IOR scalar (TF32 keeps its low 13 bits zero).
TEST(SchemaBeforeAllocation, TcmpsInvalidScalarEncoding) {
  for (const std::uint64_t scalar : {0x3f800001ULL, 0x3f800000ULL}) {
    Host h;
    h.source(0, DataType::TF32, true, 0);
    h.exhaust_capacity();
    h.gpr[5] = scalar;
    h.expect({start_of(TileOp::TCMPS, 2), bdim(0, 8), bior(5, 0), src_to_hand1(0)},
             scalar == 0x3f800000 ? FaultCode::Fault_TileAllocation : FaultCode::Fault_TileLegality);
  }
}

// SelectedBundleClosedTCMPSSchemaLegal: SelectedBundleTileScalarSourceLegal.
TEST(SchemaBeforeAllocation, TcmpsUndefinedSource) {
  for (const bool defined : {false, true}) {
    Host h;
    h.source(0, DataType::U32, defined);
    h.exhaust_capacity();
    h.expect({start_of(TileOp::TCMPS, kU32), bdim(0, 8), bior(5, 0), src_to_hand1(0)},
             defined ? FaultCode::Fault_TileAllocation : FaultCode::Fault_TileLegality);
  }
}

// SelectedBundleClosedReductionSchemaLegal: the source's data type.
TEST(SchemaBeforeAllocation, RowSumSourceTypeMismatch) {
  for (const DataType t : {DataType::S32, DataType::U32}) {
    Host h;
    h.source(0, t, true);
    h.exhaust_capacity();
    h.expect({start_of(TileOp::TROWSUM, kU32), bdim(0, 8), src_to_hand1(0)},
             t == DataType::U32 ? FaultCode::Fault_TileAllocation : FaultCode::Fault_TileLegality);
  }
}

// SelectedBundleClosedTCMPSchemaLegal and SelectedBundleClosedPartialSchemaLegal:
// both sources defined.
TEST(SchemaBeforeAllocation, TwoSourceUndefinedRightSource) {
  for (const TileOp op : {TileOp::TCMP, TileOp::TPARTADD}) {
    SCOPED_TRACE(op == TileOp::TCMP ? "TCMP" : "TPARTADD");
    for (const bool defined : {false, true}) {
      Host h;
      h.source(0, DataType::U32, true);
      h.source(1, DataType::U32, defined);
      h.exhaust_capacity();
      h.expect({start_of(op, kU32), bdim(0, 8), srcs_to_hand1(0, 1)},
               defined ? FaultCode::Fault_TileAllocation : FaultCode::Fault_TileLegality);
    }
  }
}

// SelectedBundleClosedExpansionSchemaLegal: the broadcast's data type
// (TROWEXPAND copies a 1 x 1 broadcast over the 1 x 8 loop).
TEST(SchemaBeforeAllocation, RowExpandBroadcastTypeMismatch) {
  for (const DataType t : {DataType::S32, DataType::U32}) {
    Host h;
    h.source(0, t, true, 1, 0, 1);
    h.exhaust_capacity();
    h.expect({start_of(TileOp::TROWEXPAND, kU32), bdim(0, 8), src_to_hand1(0)},
             t == DataType::U32 ? FaultCode::Fault_TileAllocation : FaultCode::Fault_TileLegality);
  }
}

// SelectedBundleClosedSortingSchemaLegal: TMRGSORT's runs must be ordered in
// the direction B.IOR flag0 selects (BundleSortingDescending).
TEST(SchemaBeforeAllocation, TmrgsortRunOrderFollowsFlag0) {
  for (const std::uint64_t descending : {0ULL, 1ULL}) {
    Host h;
    h.source(0, DataType::FP32, true, 0x3f800000, 1);  // ascending positive FP32 bit patterns
    h.source(1, DataType::FP32, true, 0x40000000, 1);
    h.exhaust_capacity();
    h.gpr[5] = descending;
    h.expect({start_of(TileOp::TMRGSORT, kFP32), bior(5, 0), srcs_to_hand1(0, 1)},
             descending == 0 ? FaultCode::Fault_TileAllocation : FaultCode::Fault_TileLegality);
  }
}

// SelectedBundleClosedTSELSchemaLegal (comparison-schema.asl):
// TilePredicateValuesLegal(mask) -- a Predicate-kind descriptor whose
// contents are defined -- before the destination is resolved.  The direct
// handler's check (TileOperandsLegal_ExecuteTileSelect, PTO-AVS-TILE-TSEL-MASK-001)
// comes after allocation, so only this bundle reaches the schema's copy.
TEST(SchemaBeforeAllocation, TselMaskIsCheckedBeforeAllocation) {
  enum class Mask { DefinedPredicate, UndefinedPredicate, Numeric };
  for (const Mask mask : {Mask::DefinedPredicate, Mask::UndefinedPredicate, Mask::Numeric}) {
    SCOPED_TRACE(static_cast<int>(mask));
    Host h;
    if (mask == Mask::Numeric) {
      h.source(0, DataType::U32, true);
    } else {
      h.file.configure_predicate(0, 128, 4, 8, 1, 8, 0b1111);  // the sources' 4 x 8 shape, 1 x 8 valid
      if (mask == Mask::DefinedPredicate) h.file.tile(0).mark_valid_region_defined();
    }
    h.source(1, DataType::U32, true, 7);
    h.source(2, DataType::U32, true, 8);
    h.exhaust_capacity();
    h.expect({start_of(TileOp::TSEL, kU32), bdim(0, 8),
              encode_form(kBIotSrcSrc, {{"SrcTile0", 0}, {"SrcTile1", 1}, {"PEMode", 7}}), src_to_hand1(2)},
             mask == Mask::DefinedPredicate ? FaultCode::Fault_TileAllocation : FaultCode::Fault_TileLegality);
  }
}

}  // namespace
}  // namespace pto::test
