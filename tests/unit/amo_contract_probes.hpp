// Behavioural probes for the AMO contract facts of asl/scalar/amo/<MN>.asl:
// InstructionContract{AtomicSizeBytes, AtomicOperation, PublishesOldValue,
// SignExtendsOldValue, CompareSizeBytes, LoadSizeBytes, StoreSizeBytes,
// ReservationGranuleBytes, SuccessStatus, MissStatus, MissIsProbeFree,
// IgnoresSrcZero, HasFarField}_<MN>().  The model keeps these facts as
// template arguments of its handler table (src/scalar/amo.cpp), so each is
// checked by what executes: MN's form is encoded with its operands in fixed
// GPRs, run on fresh reference machines with memory and registers chosen so
// that the fact shows, and the observation is compared with the ASL's value
// ("expect_amo_contract" steps, tools/extract_exec_vectors.py).  The meaning
// of an AtomicOperation value is the test's own reference (atomic_value,
// after AtomicValueSized in asl/scalar/model/amo/semantics.asl).  HasFarField
// has no behaviour in the reference profile (far is a routing hint) and is
// checked against the model's form table.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arch/machine.hpp"
#include "isa/decoder.hpp"
#include "runner/dispatch.hpp"

namespace pto::test::amo {

using arch::Word;
using nlohmann::json;

// ---- Test-side reference of AtomicOperation / AtomicValueSized ----
enum class AmoOp { Swap, Add, And, Or, Xor, Smin, Smax, Umin, Umax };
inline constexpr AmoOp kAllAmoOps[] = {AmoOp::Swap, AmoOp::Add,  AmoOp::And,  AmoOp::Or,  AmoOp::Xor,
                                       AmoOp::Smin, AmoOp::Smax, AmoOp::Umin, AmoOp::Umax};

// The operation an AtomicOperation name suffix ("ADD" of Atomic_ADD, LD.ADD) means.
inline std::optional<AmoOp> amo_op_named(std::string_view name) {
  constexpr std::pair<std::string_view, AmoOp> kOps[] = {
      {"SWAP", AmoOp::Swap}, {"ADD", AmoOp::Add},   {"AND", AmoOp::And},   {"OR", AmoOp::Or},    {"XOR", AmoOp::Xor},
      {"SMIN", AmoOp::Smin}, {"SMAX", AmoOp::Smax}, {"UMIN", AmoOp::Umin}, {"UMAX", AmoOp::Umax}};
  for (const auto& [n, op] : kOps) {
    if (n == name) return op;
  }
  return std::nullopt;
}

inline Word width_mask(unsigned size) { return size >= 8 ? ~Word{0} : (Word{1} << (8 * size)) - 1; }
inline std::int64_t signed_value(Word v, unsigned size) {
  const unsigned shift = 64 - 8 * size;
  return static_cast<std::int64_t>(v << shift) >> shift;
}
// AtomicValueSized: the new memory value of `size` bytes.
inline Word atomic_value(AmoOp op, Word old, Word operand, unsigned size) {
  const Word o = old & width_mask(size);
  const Word x = operand & width_mask(size);
  switch (op) {
    case AmoOp::Swap: return x;
    case AmoOp::Add: return (o + x) & width_mask(size);
    case AmoOp::And: return o & x;
    case AmoOp::Or: return o | x;
    case AmoOp::Xor: return o ^ x;
    case AmoOp::Smin: return signed_value(o, size) < signed_value(x, size) ? o : x;
    case AmoOp::Smax: return signed_value(o, size) > signed_value(x, size) ? o : x;
    case AmoOp::Umin: return o < x ? o : x;
    case AmoOp::Umax: return o > x ? o : x;
  }
  return x;
}

// ---- The probe machine ----
// Operand registers: the address in SrcL (SrcR for StoreConditional, whose
// SrcL is the store value), the operand / expected value in SrcR, the
// desired value in SrcD, the published value in RegDst = GPR 5.
constexpr unsigned kAddressGpr = 1;
constexpr unsigned kOperandGpr = 2;
constexpr unsigned kDesiredGpr = 3;
constexpr unsigned kDestinationGpr = 5;
constexpr Word kProbeAddress = 0x400;  // 64-byte aligned, inside the 4096-byte reference memory
constexpr Word kWindowBase = kProbeAddress - 8;
constexpr unsigned kWindowBytes = 24;  // the doubleword before, at and after the probe address
// Bytes 0x71..0x78: nonzero, below 0x7F and positive at every width.
constexpr Word kPositivePattern = 0x7877767574737271;
// Bytes 0xF1..0xF8: the sign bit of every width set.
constexpr Word kNegativePattern = 0xF8F7F6F5F4F3F2F1;
constexpr Word kRegisterSentinelBase = 0x5A5A'0000'0000'0000;

enum class Handler { ReadModifyWrite, CompareAndSwap, LoadReserved, StoreConditional };

inline Handler handler_named(const std::string& name) {
  if (name == "AtomicReadModifyWrite") return Handler::ReadModifyWrite;
  if (name == "CompareAndSwap") return Handler::CompareAndSwap;
  if (name == "LoadReserved") return Handler::LoadReserved;
  if (name == "StoreConditional") return Handler::StoreConditional;
  throw std::runtime_error("no AMO probe for handler " + name);
}

struct ProbeInput {
  Word memory = kPositivePattern;  // the doubleword at the probe address (its neighbours: kPositivePattern)
  Word address = kProbeAddress;
  Word operand = 0;                // SrcR (RMW operand, CAS expected value) or SC's store value
  Word desired = 0;                // CAS SrcD
  std::int64_t src_zero = 0;       // LR's SrcZero field
  std::optional<Word> reserved;    // a valid reservation of this address before the instruction
};

struct ProbeOutcome {
  bool executed = false;
  arch::FaultCode fault = arch::FaultCode::Fault_None;
  std::array<std::uint8_t, kWindowBytes> before{};
  std::array<std::uint8_t, kWindowBytes> after{};
  Word destination = 0;     // GPR 5 after
  bool published = false;   // some GPR or temporary-queue entry changed
  bool reservation_valid = false;
  Word reservation_address = 0;
  std::array<Word, 8> queues{};  // T#1..T#4, U#1..U#4 after
};

// The form's word with the probe's operand registers and `src_zero`; every
// other field (aq, rl, far) zero.
inline std::uint64_t probe_word(const isa::FormDesc& f, Handler h, std::int64_t src_zero) {
  const bool sc = h == Handler::StoreConditional;
  std::vector<std::int64_t> values;
  for (const isa::FieldDesc& field : isa::fields_of(f)) {
    const std::string_view n = field.name;
    values.push_back(n == "SrcL"      ? (sc ? kOperandGpr : kAddressGpr)
                     : n == "SrcR"    ? (sc ? kAddressGpr : kOperandGpr)
                     : n == "SrcD"    ? kDesiredGpr
                     : n == "RegDst"  ? kDestinationGpr
                     : n == "SrcZero" ? src_zero
                                      : 0);
  }
  const auto word = isa::encode(f, values);
  if (const auto* e = std::get_if<isa::EncodeError>(&word)) throw std::runtime_error(e->message);
  return std::get<std::uint64_t>(word);
}

// Every GPR gets a distinct value and every queue entry one (so a write
// anywhere shows), then the probe's operands.
inline void seed_registers(arch::State& st, const ProbeInput& in) {
  for (unsigned r = 1; r < 24; ++r) st.write_gpr(r, kRegisterSentinelBase + r);
  for (unsigned i = 0; i < 4; ++i) {
    st.t_queue.push(kRegisterSentinelBase + 0x100 + i);
    st.u_queue.push(kRegisterSentinelBase + 0x200 + i);
  }
  st.write_gpr(kAddressGpr, in.address);
  st.write_gpr(kOperandGpr, in.operand);
  st.write_gpr(kDesiredGpr, in.desired);
}

inline std::array<Word, 8> queue_entries(const arch::State& st) {
  std::array<Word, 8> q{};
  for (unsigned i = 0; i < 4; ++i) {
    q[i] = st.t_queue.value[i];
    q[4 + i] = st.u_queue.value[i];
  }
  return q;
}

inline std::array<std::uint8_t, kWindowBytes> window(arch::Machine& m) {
  std::array<std::uint8_t, kWindowBytes> w{};
  for (unsigned i = 0; i < kWindowBytes; ++i) w[i] = static_cast<std::uint8_t>(m.memory.read(kWindowBase + i, 1));
  return w;
}

// Runs MN's probe word once on a fresh reference machine prepared from `in`.
inline ProbeOutcome run_probe(const isa::FormDesc& f, Handler h, const ProbeInput& in) {
  arch::Machine m(arch::MachineConfig::reference());
  arch::State& st = m.state;
  m.memory.write(kWindowBase, 8, kPositivePattern);
  m.memory.write(kProbeAddress, 8, in.memory);
  m.memory.write(kProbeAddress + 8, 8, kPositivePattern);
  if (in.reserved) {
    st.reservation_valid = true;
    st.reservation_address = *in.reserved;
    st.reservation_size = 8;
  }
  seed_registers(st, in);
  std::array<Word, 24> gprs{};
  for (unsigned r = 1; r < 24; ++r) gprs[r] = st.read_gpr(r);
  const std::array<Word, 8> queues = queue_entries(st);
  ProbeOutcome out;
  out.before = window(m);
  const auto o = runner::execute_instruction(m, probe_word(f, h, in.src_zero), f.length_bits);
  out.executed = arch::is_success(o);
  out.fault = st.last_fault;
  out.after = window(m);
  out.destination = st.read_gpr(kDestinationGpr);
  out.queues = queue_entries(st);
  out.published = out.queues != queues;
  for (unsigned r = 1; r < 24; ++r) out.published = out.published || st.read_gpr(r) != gprs[r];
  out.reservation_valid = st.reservation_valid;
  out.reservation_address = st.reservation_address;
  return out;
}

// The byte offsets (from the window base) that differ after the run.
inline std::vector<unsigned> changed_bytes(const ProbeOutcome& o) {
  std::vector<unsigned> c;
  for (unsigned i = 0; i < kWindowBytes; ++i) {
    if (o.before[i] != o.after[i]) c.push_back(i);
  }
  return c;
}

// A set of byte offsets, as an access size: the bytes must be the first n
// bytes at the probe address (0 when the set is empty); nullopt otherwise.
inline std::optional<unsigned> access_size(const std::vector<bool>& at_offset) {
  unsigned n = 0;
  while (n < kWindowBytes && at_offset[n]) ++n;
  for (unsigned i = n; i < at_offset.size(); ++i) {
    if (at_offset[i]) return std::nullopt;
  }
  return n;
}

// Window offsets relative to the probe address (bytes before it fail the size).
inline std::vector<bool> from_probe_address(const std::vector<unsigned>& window_offsets, bool& before_address) {
  std::vector<bool> v(kWindowBytes, false);
  for (const unsigned i : window_offsets) {
    if (i < kProbeAddress - kWindowBase) before_address = true;
    else v[i - (kProbeAddress - kWindowBase)] = true;
  }
  return v;
}

inline std::string size_text(const std::optional<unsigned>& n, bool before_address) {
  if (before_address) return "bytes below the address change";
  return n ? fmt::format("{} bytes", *n) : "the changed bytes are not contiguous from the address";
}

// AtomicSizeBytes (read-modify-write): the bytes one of three operands
// changes.  With the positive byte pattern 0x71..0x78 every operation
// changes every byte of its width for at least one of them (SWAP, AND, SMIN,
// UMIN with 0; OR, XOR, UMAX with all ones; ADD, SMAX with 0x7F bytes).
// (AmoContractProbe.SizeOperandsChangeEveryByteForEveryOperation.)
inline constexpr Word kSizeOperands[] = {0, ~Word{0}, 0x7F7F7F7F7F7F7F7F};
inline std::optional<unsigned> rmw_size(const isa::FormDesc& f, std::string& why) {
  std::vector<unsigned> all;
  for (const Word operand : kSizeOperands) {
    const ProbeOutcome o = run_probe(f, Handler::ReadModifyWrite, {.operand = operand});
    if (!o.executed) {
      why = fmt::format("the probe faulted ({})", arch::fault_name(o.fault));
      return std::nullopt;
    }
    for (const unsigned i : changed_bytes(o)) all.push_back(i);
  }
  bool before = false;
  const auto n = access_size(from_probe_address(all, before));
  why = size_text(n, before);
  return before ? std::nullopt : n;
}

// (old, operand) pairs on which every two operations differ at every width
// (checked by AmoContractProbe.OperationPairsSeparateTheOperations): negative
// old / positive operand, the reverse, and two positives, old the larger.
inline constexpr std::pair<Word, Word> kOperationPairs[] = {
    {0xF3C5A7E9B1D38F95, 0x2A4C6E1B3D5F7A19},
    {0x2A4C6E1B3D5F7A19, 0xF3C5A7E9B1D38F95},
    {0x3B5D7F2C4E6A1B57, 0x1A2B3C1D2E3F0A11},
};

// AtomicOperation: at the width the instruction writes, the new value is
// the operation's result for each pair; bytes above it keep their value.
inline std::string atomic_operation_step(const isa::FormDesc& f, const std::string& value) {
  const std::string prefix = "Atomic_";
  const auto op = value.starts_with(prefix) ? amo_op_named(std::string_view(value).substr(prefix.size())) : std::nullopt;
  if (!op) return "unknown atomic operation " + value;
  std::string why;
  const auto size = rmw_size(f, why);
  if (!size || *size == 0) return "no access width: " + why;
  for (const auto& [old, operand] : kOperationPairs) {
    const ProbeOutcome o = run_probe(f, Handler::ReadModifyWrite, {.memory = old, .operand = operand});
    Word got = 0;
    for (unsigned i = 0; i < 8; ++i) got |= Word{o.after[kProbeAddress - kWindowBase + i]} << (8 * i);
    const Word want = (old & ~width_mask(*size)) | atomic_value(*op, old, operand, *size);
    if (got != want) return fmt::format("old {:#x}, operand {:#x}: memory {:#x}, {} gives {:#x}", old, operand, got, value, want);
  }
  return "";
}

// Sizes measured by flipping one byte at a time: the byte offsets k (0..7
// from the probe address) whose flip `shows` -- must be 0..n-1.
template <typename Shows>
std::optional<unsigned> flipped_byte_size(Shows&& shows) {
  std::vector<bool> hit(kWindowBytes, false);
  for (unsigned k = 0; k < 8; ++k) hit[k] = shows(Word{0xFF} << (8 * k));
  return access_size(hit);
}

// CompareSizeBytes: an expected value differing from memory in byte k
// prevents the swap iff k is compared.  The matching expected value must swap.
inline std::optional<unsigned> compare_size(const isa::FormDesc& f, std::string& why) {
  const ProbeInput match{.operand = kPositivePattern, .desired = ~kPositivePattern};
  if (changed_bytes(run_probe(f, Handler::CompareAndSwap, match)).empty()) {
    why = "the matching compare does not store";
    return std::nullopt;
  }
  return flipped_byte_size([&](Word flip) {
    ProbeInput in = match;
    in.operand ^= flip;
    return changed_bytes(run_probe(f, Handler::CompareAndSwap, in)).empty();
  });
}

// LoadSizeBytes: a memory byte k is loaded iff flipping it changes the
// published value.
inline std::optional<unsigned> load_size(const isa::FormDesc& f) {
  const Word base = run_probe(f, Handler::LoadReserved, {}).destination;
  return flipped_byte_size([&](Word flip) {
    return run_probe(f, Handler::LoadReserved, {.memory = kPositivePattern ^ flip}).destination != base;
  });
}

// A successful SC (reservation of the probe address) storing a value that
// differs from memory in every byte.
inline ProbeOutcome reserved_store(const isa::FormDesc& f) {
  return run_probe(f, Handler::StoreConditional, {.operand = ~kPositivePattern, .reserved = kProbeAddress});
}

// The word of LR.D / SC.D (the other half of a reservation probe).
inline std::uint64_t partner_word(std::string_view mnemonic, Handler h) {
  const auto m = isa::mnemonic_from_name(mnemonic);
  if (!m) throw std::runtime_error("no mnemonic " + std::string(mnemonic));
  return probe_word(isa::form(isa::forms_of_mnemonic(*m).front()), h, 0);
}

// ReservationGranuleBytes: after an LR at X (the form's own, or LR.D before
// an SC form), the 8-byte-aligned addresses Y of the model memory where an
// SC of all-ones (SC.D after an LR form, or the form's own) stores; they
// must form one aligned block containing X, whose size is the granule.
inline std::string reservation_granule_step(const isa::FormDesc& f, Handler h, Word want) {
  constexpr Word kReserved = kProbeAddress + 0x18;
  constexpr Word kMemoryBytes = 4096;  // the reference memory, zero-filled
  const bool lr_form = h == Handler::LoadReserved;
  const std::uint64_t lr = lr_form ? probe_word(f, h, 0) : partner_word("LR.D", Handler::LoadReserved);
  const std::uint64_t sc = lr_form ? partner_word("SC.D", Handler::StoreConditional) : probe_word(f, h, 0);
  const unsigned lr_bits = lr_form ? f.length_bits : 32;
  const unsigned sc_bits = lr_form ? 32 : f.length_bits;
  std::vector<Word> hits;
  for (Word y = 0; y < kMemoryBytes; y += 8) {
    arch::Machine m(arch::MachineConfig::reference());
    m.state.write_gpr(kAddressGpr, kReserved);
    if (!arch::is_success(runner::execute_instruction(m, lr, lr_bits))) return "the LR faulted";
    m.state.write_gpr(kAddressGpr, y);
    m.state.write_gpr(kOperandGpr, ~Word{0});
    if (!arch::is_success(runner::execute_instruction(m, sc, sc_bits))) return fmt::format("the SC at {:#x} faulted", y);
    if (m.memory.read(y, 1) == 0xFF) hits.push_back(y);
  }
  if (hits.empty()) return "no SC stores";
  const Word granule = hits.back() + 8 - hits.front();
  const bool block = hits.size() * 8 == granule && hits.front() % granule == 0 && hits.front() <= kReserved &&
                     kReserved < hits.front() + granule;
  if (!block) return fmt::format("the SC stores at {} addresses from {:#x}, not one aligned block", hits.size(), hits.front());
  return granule == want ? "" : fmt::format("granule {} bytes", granule);
}

// IgnoresSrcZero: every SrcZero encoding gives the same outcome (GPRs and
// queues hold distinct values, so reading any of them would show).
inline bool ignores_src_zero(const isa::FormDesc& f) {
  const auto same = [](const ProbeOutcome& a, const ProbeOutcome& b) {
    return a.executed == b.executed && a.destination == b.destination && a.after == b.after &&
           a.queues == b.queues && a.reservation_valid == b.reservation_valid &&
           a.reservation_address == b.reservation_address;
  };
  const ProbeOutcome base = run_probe(f, Handler::LoadReserved, {});
  for (std::int64_t z = 1; z < 32; ++z) {
    if (!same(base, run_probe(f, Handler::LoadReserved, {.src_zero = z}))) return false;
  }
  return true;
}

inline std::string compare_value(const std::string& fact, const std::optional<unsigned>& got, const json& want,
                                 const std::string& why = "") {
  if (!got) return fact + ": " + (why.empty() ? "not one contiguous range from the address" : why);
  return *got == want.get<unsigned>() ? "" : fmt::format("{} {}", fact, *got);
}

// "expect_amo_contract": InstructionContract<Fact>_<MN>() == value.
inline std::string amo_contract_step(const json& s) {
  const auto idx = isa::form_by_id(s.at("form_id").get<std::string>());
  if (!idx) return "unknown form id";
  const isa::FormDesc& f = isa::form(*idx);
  const Handler h = handler_named(s.at("handler"));
  const std::string fact = s.at("fact");
  const json& want = s.at("value");
  std::string why;
  if (fact == "has_far_field") {  // the form table the decoder extracts fields by
    bool has = false;
    for (const isa::FieldDesc& field : isa::fields_of(f)) has = has || std::string_view(field.name) == "far";
    return has == want.get<bool>() ? "" : fmt::format("far field present = {}", has);
  }
  if (fact == "atomic_size_bytes") {
    const auto n = rmw_size(f, why);
    return compare_value(fact, n, want, why);
  }
  if (fact == "atomic_operation") return atomic_operation_step(f, want.get<std::string>());
  if (fact == "publishes_old_value") {
    const ProbeOutcome o = run_probe(f, h, {.memory = kNegativePattern});
    return o.published == want.get<bool>() ? "" : fmt::format("a register or queue entry changed = {}", o.published);
  }
  if (fact == "sign_extends_old_value") {
    // The old value has the sign bit of every width set; the destination
    // holds it sign-extended (TRUE) or zero-extended (FALSE) from the width
    // the instruction accesses.  (Not emitted for 8-byte forms: both agree.)
    const auto n = rmw_size(f, why);
    if (!n || *n == 0) return "no access width: " + why;
    const Word d = run_probe(f, h, {.memory = kNegativePattern}).destination;
    const Word low = kNegativePattern & width_mask(*n);
    const Word want_d = want.get<bool>() ? static_cast<Word>(signed_value(low, *n)) : low;
    return d == want_d ? "" : fmt::format("published {:#x}, not {:#x}", d, want_d);
  }
  if (fact == "compare_size_bytes") {
    const auto n = compare_size(f, why);
    return compare_value(fact, n, want, why);
  }
  if (fact == "load_size_bytes") return compare_value(fact, load_size(f), want);
  if (fact == "store_size_bytes") {
    bool before = false;
    const auto n = access_size(from_probe_address(changed_bytes(reserved_store(f)), before));
    return compare_value(fact, before ? std::nullopt : n, want, size_text(n, before));
  }
  if (fact == "success_status" || fact == "miss_status") {
    const bool success = fact == "success_status";
    const ProbeOutcome o = success ? reserved_store(f) : run_probe(f, h, {.operand = ~kPositivePattern});
    if (!o.executed) return fmt::format("the SC faulted ({})", arch::fault_name(o.fault));
    if (changed_bytes(o).empty() == success) return success ? "the reserved SC did not store" : "the SC without reservation stored";
    return o.destination == std::stoull(want.get<std::string>(), nullptr, 0) ? "" : fmt::format("status {:#x}", o.destination);
  }
  if (fact == "miss_is_probe_free") {
    // Misaligned and outside the model memory: any probe faults.
    const ProbeOutcome o = run_probe(f, h, {.address = 0xFFFF'FFFF'FFFF'FFF1});
    const bool probe_free = o.executed && o.fault == arch::FaultCode::Fault_None;
    return probe_free == want.get<bool>() ? "" : fmt::format("miss probe-free = {} ({})", probe_free, arch::fault_name(o.fault));
  }
  if (fact == "reservation_granule_bytes") return reservation_granule_step(f, h, want.get<Word>());
  if (fact == "ignores_src_zero") {
    const bool got = ignores_src_zero(f);
    return got == want.get<bool>() ? "" : fmt::format("ignores SrcZero = {}", got);
  }
  return "unknown AMO contract fact " + fact;
}

}  // namespace pto::test::amo
