// TSORT and TMRGSORT (asl/tile/model/execution/sorting.asl,
// asl/tile/model/ordering/sorting.asl, asl/tile/model/legality/sorting.asl,
// asl/block/model/dispatch/sorting-schema.asl).  TSORT's 64-pass
// adjacent-swap loop over groups of at most 64 columns is a stable sort by
// TileSortLeftBefore, so std::stable_sort with the matching strict order
// produces the same permutation; TMRGSORT takes the left element on ties.
#include <algorithm>
#include <bit>
#include <numeric>
#include <vector>

#include "numerics/format.hpp"
#include "tile/ops_common.hpp"
#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {
namespace {

bool sort_type(DataType t) noexcept { return t == DataType::FP32 || t == DataType::FP16; }

// TileFloatingOrderKey for FP32/FP16.
std::uint64_t order_key(DataType t, std::uint64_t v) noexcept {
  const std::uint64_t sign = t == DataType::FP32 ? 0x80000000ULL : 0x8000ULL;
  const std::uint64_t width = t == DataType::FP32 ? 0xFFFFFFFFULL : 0xFFFFULL;
  v &= width;
  return (v & sign) ? (~v & width) : (v | sign);
}

// TileSortLeftBefore: NaNs last, zeros and equal encodings tie (true).
bool left_before(DataType t, std::uint64_t l, std::uint64_t r, bool descending) noexcept {
  const num::ValueClass lc = num::classify(t, l), rc = num::classify(t, r);
  if (num::is_nan(lc)) return num::is_nan(rc);
  if (num::is_nan(rc)) return true;
  if ((num::is_zero(lc) && num::is_zero(rc)) || l == r) return true;
  return descending ? order_key(t, l) > order_key(t, r) : order_key(t, l) < order_key(t, r);
}

// TileSortSourceHasSignalingNaN: the sticky NV both sorts record (a
// signalling NaN stays a sortable value, asl/tile/model/execution/sorting.asl).
num::Flags signaling_nan_flags(const Tile& t) {
  const TileDescriptor& d = t.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c)
      if (num::classify(d.data_type, t.read_raw(t.linear_index(r, c))) == num::ValueClass::SignalingNaN) return num::kNV;
  return 0;
}

// TileSortSequenceOrdered on row 0.
bool sequence_ordered(const Tile& t, bool descending) {
  const TileDescriptor& d = t.descriptor();
  for (std::uint32_t c = 0; c + 1 < d.valid_columns; ++c)
    if (!left_before(t.data_type(), t.read_raw(t.linear_index(0, c)), t.read_raw(t.linear_index(0, c + 1)), descending))
      return false;
  return true;
}

bool sort_source_legal(const TileFile& f, TileIndex s, DataType t) {
  return numeric_row_major(f, s) && f.tile(s).data_type() == t && f.tile(s).descriptor().valid_rows > 0 &&
         f.tile(s).descriptor().valid_columns > 0 && source_encodings_valid(f, s);
}

// SelectedBundleClosedSortingSchemaLegal, bundle part.
template <bool Tsort>
bool sort_bundle_legal(const arch::BlockState& b) {
  const BindingTally tally = tally_tile_bindings(b);
  if (shared_binding_count(b) != 0 || tally.sources != (Tsort ? 1U : 2U) ||
      tally.destinations != (Tsort ? 2U : 1U) || !tally.destinations_fresh || !tally.terminated)
    return false;
  if (Tsort ? (b.dimension_present[1] || b.dimension_present[2] || (b.dimension_present[0] && b.dimensions[0] > 64))
            : (b.dimension_present[0] || b.dimension_present[1] || b.dimension_present[2]))
    return false;
  const auto t = operation_data_type(b);
  return t && sort_type(*t) && bundle_layout_row_major(b);
}

// The first (and second) Local source in binding order (BundleSortingSourceAt).
TileIndex sorting_source(const arch::BlockState& b, unsigned ordinal) {
  unsigned current = 0;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    if (t.source0_valid && current++ == ordinal) return t.source0;
    if (t.source1_valid && current++ == ordinal) return t.source1;
  }
  return 0;
}

// SelectedBundleClosedSortingSchemaLegal, sources included (before
// allocation); TMRGSORT also requires both runs ordered in the direction
// the B.IOR flag0 selects (BundleSortingDescending).
template <bool Tsort>
bool sort_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  const TileFile& f = v.tiles;
  if (!sort_bundle_legal<Tsort>(b)) return false;
  const DataType t = *operation_data_type(b);
  const TileIndex left = sorting_source(b, 0);
  if (!sort_source_legal(f, left, t)) return false;
  if (Tsort) return true;
  const TileIndex right = sorting_source(b, 1);
  // The output bound is the literal 32768 of sorting-schema.asl, not PTO_MODEL_TILE_ELEMENTS.
  if (!sort_source_legal(f, right, t) || f.tile(left).descriptor().valid_rows != 1 ||
      f.tile(right).descriptor().valid_rows != 1 ||
      f.tile(left).descriptor().valid_columns + f.tile(right).descriptor().valid_columns > 32768)
    return false;
  return sequence_ordered(f.tile(left), v.descending) && sequence_ordered(f.tile(right), v.descending);
}

// The destination shape of ResolveBundleTileDestinationsForOperation.
template <bool Tsort>
DestinationPlan sort_destinations(const arch::BlockState& b, const TileFile& f) {
  const auto t = operation_data_type(b);
  const TileIndex left = sorting_source(b, 0);
  const TileDescriptor& ld = f.tile(left).descriptor();
  DestinationPlan p;
  p.explicit_shape = true;
  p.primary_type = *t;
  if (Tsort) {
    p.valid_rows = ld.valid_rows;
    p.valid_columns = ld.valid_columns;
    p.columns = ld.columns;
    return p;
  }
  const std::uint32_t output = ld.valid_columns + f.tile(sorting_source(b, 1)).descriptor().valid_columns;
  p.valid_rows = 1;
  p.valid_columns = output;
  p.columns = std::bit_ceil(output);  // SmallestTilePhysicalColumns
  return p;
}

// ---- TSORT: destination 0 values, destination 1 U32 in-group indices ----

bool tsort_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {  // TileOperandsLegal_TSORT
  const TileIndex d = o.destination[0], di = o.destination[1], s = o.source[0];
  if (d == di || d == s || di == s || !numeric_row_major(f, d) || !numeric_row_major(f, di) || !numeric_row_major(f, s))
    return false;
  const DataType t = f.tile(s).data_type();
  return sort_type(t) && f.tile(d).data_type() == t && f.tile(di).data_type() == DataType::U32 &&
         f.tile(s).descriptor().valid_rows > 0 && f.tile(s).descriptor().valid_columns > 0 &&
         logical_shape_match(f, d, s) && logical_shape_match(f, di, s) && source_encodings_valid(f, s) &&
         o.sort_width >= 1 && o.sort_width <= 64;
}

TileResult tsort_execute(TileExecutionContext& c) {
  Tile& values = c.tiles.tile(c.operands.destination[0]);
  Tile& indices = c.tiles.tile(c.operands.destination[1]);
  const Tile& s = c.tiles.tile(c.operands.source[0]);
  const TileDescriptor& sd = s.descriptor();
  const DataType t = s.data_type();
  const bool descending = c.operands.flag0;
  const std::uint32_t width = c.operands.sort_width;
  const num::Flags flags = signaling_nan_flags(s);  // before any write: the destinations never alias s
  std::vector<std::uint32_t> order;
  for (std::uint32_t r = 0; r < sd.valid_rows; ++r)
    for (std::uint32_t begin = 0; begin < sd.valid_columns; begin += width) {
      const std::uint32_t end = std::min(begin + width, sd.valid_columns);
      order.resize(end - begin);
      std::iota(order.begin(), order.end(), 0U);
      const auto value = [&](std::uint32_t i) { return s.read_raw(s.linear_index(r, begin + i)); };
      std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return !left_before(t, value(b), value(a), descending);  // a strictly before b
      });
      for (std::uint32_t i = 0; i < order.size(); ++i) {
        values.store_raw(values.linear_index(r, begin + i), value(order[i]));
        indices.store_raw(indices.linear_index(r, begin + i), order[i]);
      }
    }
  publish(values, PadValue::Null);
  publish(indices, PadValue::Null);
  return TileResult::written(2 * values.valid_element_count(), flags);
}

// ---- TMRGSORT ----

bool tmrgsort_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {  // TileOperandsLegal_TMRGSORT
  const TileIndex d = o.destination[0], l = o.source[0], r = o.source[1];
  if (d == l || d == r || !numeric_row_major(f, d) || !numeric_row_major(f, l) || !numeric_row_major(f, r)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& ld = f.tile(l).descriptor();
  const TileDescriptor& rd = f.tile(r).descriptor();
  if (!sort_type(ld.data_type) || rd.data_type != ld.data_type || dd.data_type != ld.data_type) return false;
  if (ld.valid_rows != 1 || rd.valid_rows != 1 || dd.valid_rows != 1 || ld.valid_columns == 0 || rd.valid_columns == 0 ||
      dd.valid_columns != ld.valid_columns + rd.valid_columns)
    return false;
  if (!source_encodings_valid(f, l) || !source_encodings_valid(f, r)) return false;
  return sequence_ordered(f.tile(l), o.flag0) && sequence_ordered(f.tile(r), o.flag0);
}

TileResult tmrgsort_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const Tile& l = c.tiles.tile(c.operands.source[0]);
  const Tile& r = c.tiles.tile(c.operands.source[1]);
  const std::uint32_t ln = l.descriptor().valid_columns, rn = r.descriptor().valid_columns;
  const DataType t = l.data_type();
  const num::Flags flags = static_cast<num::Flags>(signaling_nan_flags(l) | signaling_nan_flags(r));
  std::uint32_t li = 0, ri = 0;
  for (std::uint32_t out = 0; out < ln + rn; ++out) {
    bool take_left = ri >= rn;
    if (li < ln && ri < rn)
      take_left = left_before(t, l.read_raw(l.linear_index(0, li)), r.read_raw(r.linear_index(0, ri)), c.operands.flag0);
    const std::uint64_t v = take_left ? l.read_raw(l.linear_index(0, li++)) : r.read_raw(r.linear_index(0, ri++));
    d.store_raw(d.linear_index(0, out), v);
  }
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count(), flags);
}

constexpr TileKernel kTsort{sort_schema<true>, sort_destinations<true>, false, tsort_operands, tsort_execute};
constexpr TileKernel kTmrgsort{sort_schema<false>, sort_destinations<false>, false, tmrgsort_operands, tmrgsort_execute};

}  // namespace

void register_sort_kernels(TileKernelTable& t) {
  t.set(isa::TileOp::TSORT, kTsort);
  t.set(isa::TileOp::TMRGSORT, kTmrgsort);
}

}  // namespace pto::tile::ops
