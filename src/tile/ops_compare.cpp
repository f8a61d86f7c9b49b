// TCMP, TCMPS, TSEL, TSELS: schema (asl/block/model/dispatch/
// {comparison,tile-scalar}-schema.asl), predicate destination
// (destination-shape.asl ResolveBundlePredicateDestination), operand
// legality (asl/tile/model/legality/operand-schema.asl) and semantics
// (asl/tile/model/execution/comparison.asl).
#include "tile/ops_compare.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>

#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "numerics/simd_compare.hpp"
#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {

// ---- predicate storage ----

bool logical_shape_match_any_storage(const TileFile& f, TileIndex a, TileIndex b) noexcept {
  if (!f.descriptor_legal(a) || !f.descriptor_legal(b)) return false;
  const TileDescriptor& x = f.tile(a).descriptor();
  const TileDescriptor& y = f.tile(b).descriptor();
  return x.rows == y.rows && x.columns == y.columns && x.valid_rows == y.valid_rows &&
         x.valid_columns == y.valid_columns && x.layout == y.layout;
}

bool predicate_values_legal(const TileFile& f, TileIndex i) noexcept {
  const Tile& t = f.tile(i);
  return f.descriptor_legal(i) && t.contents_defined() &&
         t.descriptor().storage_kind == TileStorageKind::Predicate;
}

namespace {

std::uint32_t predicate_logical_index(const Tile& t, std::uint32_t row, std::uint32_t column) noexcept {
  return row * t.descriptor().columns + column;  // TilePredicateLogicalIndex
}

void store_predicate_bit(Tile& t, std::uint32_t logical, bool value) noexcept {
  std::byte& byte = t.payload()[logical / 8];
  const auto bit = static_cast<std::byte>(1U << (logical % 8));
  byte = value ? (byte | bit) : (byte & ~bit);
}

// PredicateTileWithPadding after the valid region was written and defined:
// every other bit of the Row x Col grid takes the padding bit, defined unless
// the padding is Null.
void pad_predicate(Tile& t, PadValue pad) noexcept {
  const TileDescriptor& d = t.descriptor();
  if (d.valid_rows == d.rows && d.valid_columns == d.columns) return;  // no padding bit
  const bool one = pad == PadValue::Max;
  for (std::uint32_t r = 0; r < d.rows; ++r) {
    const std::uint32_t first = r < d.valid_rows ? d.valid_columns : 0;
    for (std::uint32_t c = first; c < d.columns; ++c) store_predicate_bit(t, r * d.columns + c, one);
    if (pad != PadValue::Null && first < d.columns) t.define_range(r * d.columns + first, d.columns - first);
  }
}

// TileFloatingOrderKey on the element's carrier width: monotonic in value
// for non-NaN encodings, -0 below +0.
std::uint64_t floating_order_key(DataType t, std::uint64_t value) noexcept {
  const unsigned bits = element_bits(t);
  const std::uint64_t width = bits >= 64 ? ~0ULL : (std::uint64_t{1} << bits) - 1;
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  const std::uint64_t carrier = value & width;
  return (carrier & sign) ? (~carrier & width) : (carrier | sign);
}

// TileProfileFloatingCompare (asl/arch/profile/reference-profile.asl).
CompareOutcome reference_floating_compare(TileComparison comparison, DataType t, std::uint64_t left,
                                          std::uint64_t right) noexcept {
  const num::ValueClass lc = num::classify(t, left), rc = num::classify(t, right);
  if (num::is_nan(lc) || num::is_nan(rc)) {
    const bool signaling = lc == num::ValueClass::SignalingNaN || rc == num::ValueClass::SignalingNaN;
    return {comparison == TileComparison::NE, signaling ? num::kNV : num::Flags{0}};
  }
  const bool both_zero = num::is_zero(lc) && num::is_zero(rc);
  const bool equal = both_zero || left == right;
  const bool left_less = !both_zero && floating_order_key(t, left) < floating_order_key(t, right);
  return {compare_boolean(comparison, left_less, equal), 0};
}

num::CompareOp numerics_compare(TileComparison c) noexcept {
  switch (c) {
    case TileComparison::EQ: return num::CompareOp::EQ;
    case TileComparison::NE: return num::CompareOp::NE;
    case TileComparison::LT: return num::CompareOp::LT;
    case TileComparison::GT: return num::CompareOp::GT;
    case TileComparison::LE: return num::CompareOp::LE;
    case TileComparison::GE: return num::CompareOp::GE;
  }
  return num::CompareOp::EQ;
}

// TileIntegerOperandValue: signed types sign-extend their element bits.
std::int64_t signed_value(std::uint64_t raw, DataType t) noexcept {
  const unsigned shift = 64 - element_bits(t);
  return static_cast<std::int64_t>(raw << shift) >> shift;
}

// ---- span fast paths (docs/numerics.md, compare and select) ----

constexpr std::size_t kSpanChunk = 4096;  // elements per vector call (64 bit words)

// Writes `count` (<= 64) low bits of `value` at bit `bit` of a predicate
// payload (bit i of byte i / 8), keeping every other bit.
void deposit_bits(std::span<std::byte> payload, std::size_t bit, std::uint64_t value, std::size_t count) noexcept {
  for (std::size_t done = 0; done < count;) {
    const std::size_t at = bit + done, shift = at % 8, take = std::min<std::size_t>(8 - shift, count - done);
    const unsigned mask = ((1U << take) - 1U) << shift;
    std::byte& byte = payload[at / 8];
    byte = static_cast<std::byte>((static_cast<unsigned>(byte) & ~mask) |
                                  ((static_cast<unsigned>(value >> done) << shift) & mask));
    done += take;
  }
}

// Writes bits [0, count) of words (bit i of words[i / 64]) at bit `bit` of a
// predicate payload (PTO-TCMP-CONTRACT-001: logical comparison i in bit
// i mod 8 of byte floor(i / 8)): whole bytes copied when `bit` is
// byte-aligned.
void deposit_words(std::span<std::byte> payload, std::size_t bit, const std::uint64_t* words, std::size_t count) noexcept {
  std::size_t done = 0;
  if constexpr (std::endian::native == std::endian::little) {
    if (bit % 8 == 0) {
      done = count / 64 * 64;
      std::memcpy(payload.data() + bit / 8, words, done / 8);
    }
  }
  for (; done < count; done += 64) deposit_bits(payload, bit + done, words[done / 64], std::min<std::size_t>(64, count - done));
}

// The `count` (<= 64) bits of a predicate payload from bit `bit`, bit 0 first.
std::uint64_t extract_bits(std::span<const std::byte> payload, std::size_t bit, std::size_t count) noexcept {
  std::uint64_t value = 0;
  for (std::size_t done = 0; done < count;) {
    const std::size_t at = bit + done, shift = at % 8, take = std::min<std::size_t>(8 - shift, count - done);
    const std::uint64_t bits = (static_cast<unsigned>(payload[at / 8]) >> shift) & ((1U << take) - 1U);
    value |= bits << done;
    done += take;
  }
  return value;
}

// Reads bits [bit, bit + count) of a predicate payload into words (bit i
// of words[i / 64]; the bits of the last word from `count` on unspecified;
// PTO-TSEL-CONTRACT-001: one low-first packed bit per logical element):
// whole bytes copied when `bit` is byte-aligned.
void extract_words(std::span<const std::byte> payload, std::size_t bit, std::uint64_t* words, std::size_t count) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    if (bit % 8 == 0) {
      std::memcpy(words, payload.data() + bit / 8, (count + 7) / 8);
      return;
    }
  }
  for (std::size_t done = 0; done < count; done += 64)
    words[done / 64] = extract_bits(payload, bit + done, std::min<std::size_t>(64, count - done));
}

// The order TileCompareElement gives the carriers of a compare type:
// TileIntegerOperandValue's signed or unsigned order, or for floating
// types the value order of the non-NaN encodings (TileFloatingOrderKey
// with -0 == +0; the ieee profile's quiet compare agrees on them), whose
// NaNs are the magnitudes above `nan_above` (asl/arch/data-types/formats:
// the +infinity encoding; E4M3 has none and 0x7F is its NaN).
struct CarrierOrder {
  num::simd::Order order;
  std::uint64_t nan_above = 0;
};

CarrierOrder carrier_order(DataType t) noexcept {
  using num::simd::Order;
  switch (t) {
    case DataType::FP64: return {Order::Floating, 0x7FF0000000000000ULL};
    case DataType::FP32: case DataType::TF32: case DataType::HF32: return {Order::Floating, 0x7F800000U};
    case DataType::FP16: return {Order::Floating, 0x7C00U};
    case DataType::BF16: return {Order::Floating, 0x7F80U};
    case DataType::E5M2: return {Order::Floating, 0x7CU};
    case DataType::E4M3: return {Order::Floating, 0x7EU};
    default: return {data_type_is_signed_integer(t) ? Order::Signed : Order::Unsigned};
  }
}

// One compare (TCMP/TCMPS) over runs of carriers T: the vector loop gives
// the predicate bits of the non-NaN pairs; a pair holding a NaN (whose
// predicate is NE and whose signalling operand raises NV) is decided by
// compare_element, the exact path, so NaN rules and flags stay the ASL's.
template <typename T>
struct CompareSpan {
  TileComparison comparison;
  DataType type;
  NumericProfile profile;
  CarrierOrder order;
  std::span<std::byte> predicate;

  bool nan_pair(T x, T y) const noexcept {
    const auto magnitude = static_cast<T>(~(T{1} << (sizeof(T) * 8 - 1)));
    return order.order == num::simd::Order::Floating &&
           (static_cast<T>(x & magnitude) > order.nan_above || static_cast<T>(y & magnitude) > order.nan_above);
  }

  // Predicate bits [bit, bit + n) from a[0, n) against b[0, n) (or `scalar`).
  num::Flags run(const T* a, const T* b, T scalar, std::size_t n, std::size_t bit) const {
    // TileCompareBoolean(comparison, left_less, equal) for each outcome.
    const num::simd::Outcomes holds{compare_boolean(comparison, true, false), compare_boolean(comparison, false, true),
                                    compare_boolean(comparison, false, false)};
    std::array<std::uint64_t, kSpanChunk / 64> words;
    num::Flags flags = 0;
    for (std::size_t i = 0; i < n; i += kSpanChunk) {
      const std::size_t m = std::min(kSpanChunk, n - i);
      if (num::simd::compare_bits(order.order, holds, static_cast<T>(order.nan_above), a + i,
                                  b != nullptr ? b + i : nullptr, scalar, m, words.data()))
        flags |= decide_nan_pairs(a + i, b != nullptr ? b + i : nullptr, scalar, m, words.data());
      deposit_words(predicate, bit + i, words.data(), m);
    }
    return flags;
  }

  // The exact path for the pairs holding a NaN.
  num::Flags decide_nan_pairs(const T* a, const T* b, T scalar, std::size_t n, std::uint64_t* words) const {
    num::Flags flags = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const T x = a[j], y = b != nullptr ? b[j] : scalar;
      if (!nan_pair(x, y)) continue;
      const CompareOutcome o = compare_element(comparison, type, x, y, profile);
      const std::uint64_t bit = std::uint64_t{1} << (j % 64);
      words[j / 64] = o.value ? (words[j / 64] | bit) : (words[j / 64] & ~bit);
      flags |= o.flags;
    }
    return flags;
  }
};

}  // namespace

bool predicate_bit(const Tile& t, std::uint32_t row, std::uint32_t column) noexcept {
  const std::uint32_t logical = predicate_logical_index(t, row, column);
  return (static_cast<unsigned>(t.payload()[logical / 8]) >> (logical % 8)) & 1U;
}

bool compare_boolean(TileComparison comparison, bool left_less, bool equal) noexcept {
  switch (comparison) {
    case TileComparison::EQ: return equal;
    case TileComparison::NE: return !equal;
    case TileComparison::LT: return left_less;
    case TileComparison::LE: return left_less || equal;
    case TileComparison::GT: return !left_less && !equal;
    case TileComparison::GE: return !left_less || equal;
  }
  return false;
}

CompareOutcome compare_element(TileComparison comparison, DataType t, std::uint64_t left, std::uint64_t right,
                               NumericProfile profile) {
  if (num::is_float(t)) {
    if (profile == NumericProfile::Reference) return reference_floating_compare(comparison, t, left, right);
    const num::CompareResult r = num::ieee_compare(numerics_compare(comparison), t, left, right);
    return {r.value, r.flags};
  }
  const std::uint64_t l = raw_element_value(left, t), r = raw_element_value(right, t);
  const bool left_less = data_type_is_signed_integer(t) ? signed_value(l, t) < signed_value(r, t) : l < r;
  return {compare_boolean(comparison, left_less, l == r), 0};
}

num::Flags tile_compare(TileComparison comparison, Tile& predicate, const Tile& left, const Tile* right,
                        std::uint64_t scalar, PadValue pad, NumericProfile profile) {
  // Predicate and numeric storage never alias, so the sources are read as
  // they are.  Restarting the destination's definedness (it is the newly
  // resolved predicate destination) leaves Null padding undefined as
  // PredicateTileWithPadding requires.
  const TileDescriptor descriptor = predicate.descriptor();
  predicate.configure(descriptor);
  const DataType t = left.data_type();
  const std::uint64_t normalized_scalar = raw_element_value(scalar, t);
  num::Flags flags = 0;
  visit_carrier(t, [&]<typename T>() {
    const CompareSpan<T> span{comparison, t, profile, carrier_order(t), predicate.payload()};
    const T* a = left.row_data<T>(0);
    const T* b = right != nullptr ? right->row_data<T>(0) : nullptr;
    for_each_valid_run(left.descriptor(), [&](std::size_t first, std::size_t n) {
      flags |= span.run(a + first, b != nullptr ? b + first : nullptr, static_cast<T>(normalized_scalar), n, first);
    });
  });
  predicate.mark_valid_region_defined();  // RowMajor: element index == logical predicate index
  pad_predicate(predicate, pad);
  return flags;
}

void tile_select(Tile& destination, const Tile& mask, const Tile& on_true, const Tile* on_false,
                 std::uint64_t scalar_false, PadValue pad) {
  const TileDescriptor& d = on_true.descriptor();
  visit_carrier(d.data_type, [&]<typename T>() {
    const auto false_scalar = static_cast<T>(raw_element_value(scalar_false, d.data_type));
    const T* a = on_true.row_data<T>(0);
    const T* b = on_false != nullptr ? on_false->row_data<T>(0) : nullptr;
    T* out = destination.row_data<T>(0);  // may alias a or b: same index, read first
    std::array<std::uint64_t, kSpanChunk / 64> take{};
    // Element r * Col + c of the RowMajor sources is predicate bit r * Col + c.
    for_each_valid_run(d, [&](std::size_t first, std::size_t n) {
      for (std::size_t i = 0; i < n; i += kSpanChunk) {
        const std::size_t m = std::min(kSpanChunk, n - i);
        extract_words(mask.payload(), first + i, take.data(), m);
        num::simd::select_bits(take.data(), a + first + i, b != nullptr ? b + first + i : nullptr, false_scalar,
                               out + first + i, m);
      }
    });
  });
  publish(destination, pad);
}

namespace {

// ---- kernels ----

bool compare_type_supported(DataType t) noexcept { return vec_arithmetic_data_type_supported(t); }  // TileCompareDataTypeSupported
bool select_type_supported(DataType t) noexcept { return vec_arithmetic_data_type_supported(t); }   // TileSelectDataTypeSupported

bool operation_type_is(const arch::BlockState& b, bool (*supported)(DataType) noexcept) {
  const auto t = operation_data_type(b);
  return t && supported(*t);
}

bool comparison_mode_legal(const arch::BlockState& b) noexcept { return b.data_attributes.comparison_mode <= 5; }

bool numeric_kind(const TileFile& f, TileIndex i) noexcept {
  return f.tile(i).descriptor().storage_kind == TileStorageKind::Numeric;
}
bool predicate_kind(const TileFile& f, TileIndex i) noexcept {
  return f.tile(i).descriptor().storage_kind == TileStorageKind::Predicate;
}

// The storage checks of ResolveBundlePredicateDestination: a numeric source
// whose Row x Col grid fits its own capacity and whose packed bits fit the
// destination SizeCode.  All three raise Fault_TileAllocation, like the
// capacity budget and the hand rename the engine performs for plan.predicate
// (their relative order is unobservable).
DestinationPlan predicate_destination(const arch::BlockState& b, const TileFile& f, TileIndex source) {
  const TileDescriptor& s = f.tile(source).descriptor();
  if (s.storage_kind != TileStorageKind::Numeric ||
      std::uint64_t{s.rows} * s.columns > logical_element_capacity(s.capacity_bytes, s.data_type) ||
      predicate_storage_bytes(s.rows, s.columns) > size_code_bytes(b.tile_bindings[0].destination_size))
    return DestinationPlan::failed(FaultCode::Fault_TileAllocation);
  DestinationPlan p;
  p.predicate = true;
  return p;
}

// ---- TCMP ----

// SelectedBundleClosedTCMPSchemaLegal, sources included (before allocation).
bool tcmp_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  if (!single_binding_schema(b, true, true) || b.scalar_bindings[0].valid || !comparison_mode_legal(b) ||
      !operation_type_is(b, compare_type_supported))
    return false;
  const TileIndex l = b.tile_bindings[0].source0, r = b.tile_bindings[0].source1;
  return bundle_source_legal(v.tiles, l, *operation_data_type(b), b) && same_shape_and_type(v.tiles, l, r) &&
         source_encodings_valid(v.tiles, r);
}

DestinationPlan tcmp_destinations(const arch::BlockState& b, const TileFile& f) {
  return predicate_destination(b, f, b.tile_bindings[0].source0);
}

// TileOperandsLegal_ExecuteTileCompare.
bool tcmp_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], l = o.source[0], r = o.source[1];
  return same_shape_and_type(f, l, r) && numeric_row_major(f, l) && compare_type_supported(f.tile(l).data_type()) &&
         source_encodings_valid(f, l) && source_encodings_valid(f, r) && logical_shape_match_any_storage(f, d, l) &&
         predicate_kind(f, d);
}

TileResult tcmp_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const num::Flags flags = tile_compare(c.operands.comparison, d, c.tiles.tile(c.operands.source[0]),
                                        &c.tiles.tile(c.operands.source[1]), 0, c.pad_value, c.profile);
  return TileResult::written(d.valid_element_count(), flags);  // RecordNumericStatusFlags
}

// ---- TCMPS ----

// SelectedBundleClosedTCMPSSchemaLegal: source and B.IOR scalar encoding
// before allocation.
bool tcmps_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  if (!single_binding_schema(b, true, false) || !comparison_mode_legal(b) ||
      !operation_type_is(b, compare_type_supported))
    return false;
  const DataType t = *operation_data_type(b);
  return bundle_source_legal(v.tiles, b.tile_bindings[0].source0, t, b) &&
         num::encoding_valid(t, raw_element_value(v.scalar_raw, t));
}

DestinationPlan tcmps_destinations(const arch::BlockState& b, const TileFile& f) {
  return predicate_destination(b, f, b.tile_bindings[0].source0);
}

// TileOperandsLegal_ExecuteTileCompareScalar.
bool tcmps_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!numeric_row_major(f, s)) return false;
  const DataType t = f.tile(s).data_type();
  return compare_type_supported(t) && source_encodings_valid(f, s) &&
         num::encoding_valid(t, raw_element_value(o.scalar0, t)) && logical_shape_match_any_storage(f, d, s) &&
         predicate_kind(f, d);
}

TileResult tcmps_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const num::Flags flags = tile_compare(c.operands.comparison, d, c.tiles.tile(c.operands.source[0]), nullptr,
                                        c.operands.scalar0, c.pad_value, c.profile);
  return TileResult::written(d.valid_element_count(), flags);  // RecordNumericStatusFlags
}

// ---- TSEL: bindings (Predicate, SrcTrue) then (SrcFalse ->Dst) ----

// SelectedBundleClosedTSELSchemaLegal, sources included (no encoding
// validity: selection copies carriers).
bool tsel_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  const TileFile& f = v.tiles;
  if (!paired_binding_schema(b) || b.scalar_bindings[0].valid || !operation_type_is(b, select_type_supported))
    return false;
  const TileIndex mask = b.tile_bindings[0].source0, on_true = b.tile_bindings[0].source1,
                  on_false = b.tile_bindings[1].source0;
  return predicate_values_legal(f, mask) && same_shape_and_type(f, on_true, on_false) &&
         numeric_row_major(f, on_true) && f.tile(on_true).data_type() == *operation_data_type(b) &&
         f.source_contents_defined(on_true) && f.source_contents_defined(on_false) &&
         logical_shape_match_any_storage(f, mask, on_true) && bundle_shape_matches(b, f.tile(on_true));
}

// TileOperandsLegal_ExecuteTileSelect: operands are mask, true, false.
bool tsel_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], mask = o.source[0], on_true = o.source[1], on_false = o.source[2];
  return same_shape_and_type(f, on_true, on_false) && numeric_row_major(f, on_true) &&
         select_type_supported(f.tile(on_true).data_type()) && f.source_contents_defined(on_true) &&
         f.source_contents_defined(on_false) && predicate_values_legal(f, mask) &&
         logical_shape_match_any_storage(f, mask, on_true) && same_shape_and_type(f, d, on_true) && numeric_kind(f, d);
}

TileResult tsel_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  tile_select(d, c.tiles.tile(c.operands.source[0]), c.tiles.tile(c.operands.source[1]),
              &c.tiles.tile(c.operands.source[2]), 0, c.pad_value);
  return TileResult::written(d.valid_element_count());  // no numeric status
}

// ---- TSELS: binding (Predicate, SrcTrue ->Dst), B.IOR false scalar ----

// SelectedBundleClosedTSELSSchemaLegal, sources included:
// SelectedBundleTileScalarSourceLegal checks TileSourceEncodingsValid for the
// true source (the ASL, unlike TSEL).
bool tsels_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  if (!single_binding_schema(b, true, true) || !operation_type_is(b, select_type_supported)) return false;
  const TileIndex mask = b.tile_bindings[0].source0, on_true = b.tile_bindings[0].source1;
  return predicate_values_legal(v.tiles, mask) && bundle_source_legal(v.tiles, on_true, *operation_data_type(b), b) &&
         logical_shape_match_any_storage(v.tiles, mask, on_true);
}

// TileOperandsLegal_ExecuteTileSelectScalar.
bool tsels_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], mask = o.source[0], on_true = o.source[1];
  return numeric_row_major(f, on_true) && select_type_supported(f.tile(on_true).data_type()) &&
         f.source_contents_defined(on_true) && predicate_values_legal(f, mask) &&
         logical_shape_match_any_storage(f, mask, on_true) && same_shape_and_type(f, d, on_true) && numeric_kind(f, d);
}

TileResult tsels_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  tile_select(d, c.tiles.tile(c.operands.source[0]), c.tiles.tile(c.operands.source[1]), nullptr,
              c.operands.scalar0, c.pad_value);
  return TileResult::written(d.valid_element_count());  // no numeric status
}

constexpr TileKernel kTcmp{tcmp_schema, tcmp_destinations, false, tcmp_operands, tcmp_execute};
constexpr TileKernel kTcmps{tcmps_schema, tcmps_destinations, false, tcmps_operands, tcmps_execute};
constexpr TileKernel kTsel{tsel_schema, closed_loop_destinations, false, tsel_operands, tsel_execute};
constexpr TileKernel kTsels{tsels_schema, closed_loop_destinations, false, tsels_operands, tsels_execute};

}  // namespace

void register_compare_kernels(TileKernelTable& t) {
  t.set(isa::TileOp::TCMP, kTcmp);
  t.set(isa::TileOp::TCMPS, kTcmps);
  t.set(isa::TileOp::TSEL, kTsel);
  t.set(isa::TileOp::TSELS, kTsels);
}

}  // namespace pto::tile::ops
