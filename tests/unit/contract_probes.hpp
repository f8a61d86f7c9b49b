// "expect_contract_probe" steps of the spec execution vectors
// (tools/extract_exec_vectors.py, CONTRACT_PROBE_FACTS): an ASL assertion
// InstructionContract<Fact>_<MN>(args) == value on a fact the model keeps in
// no table of its own (it is built into MN's handler).  Each fact is given an
// observable meaning here and checked by executing MN's catalog form on fresh
// machines with operands chosen so that the fact shows: a legal type executes
// and a reserved one is rejected, an operation enum is compared with what
// that operation computes on exactly representable operands, and so on.  The
// expected value is always the ASL's; this file only interprets it.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/machine.hpp"
#include "isa/catalog.hpp"
#include "isa/decoder.hpp"
#include "runner/dispatch.hpp"
#include "scalar/operands.hpp"
#include "scalar_fact_names.hpp"
#include "spec_vector_runner.hpp"

namespace pto::test::contract_probes {

using nlohmann::json;
using arch::Word;

using spec_vectors::num;

// FP64 carriers of the probe operands.
inline Word f64(double d) { return std::bit_cast<Word>(d); }
inline constexpr Word kThird = 0x3FD5555555555555;     // nearest FP64 to 1/3
inline constexpr Word kTiny = 0x3C30000000000000;      // 2^-60
inline constexpr Word kSignalingNaN = 0x7FF0000000000001;
inline constexpr Word kQuietNaN = 0x7FF8000000000000;
inline constexpr Word kMaxS64 = 0x7FFFFFFFFFFFFFFF;    // inexact in FP64 and FP32

// The probe's operand registers: the raw Reg5 selector of each source field
// names GPR n, the destinations GPRs 5 and 6.
inline const std::map<std::string_view, unsigned>& register_of_field() {
  static const std::map<std::string_view, unsigned> m = {
      {"SrcL", 1}, {"SrcR", 2}, {"SrcA", 3}, {"SrcD", 3}, {"RegDst", 5}, {"RegDst0", 5}, {"RegDst1", 6}};
  return m;
}
inline constexpr std::array<std::string_view, 4> kSourceFields = {"SrcL", "SrcR", "SrcA", "SrcD"};

// One execution of the form: source register values, non-register field
// values (raw, constraints not applied: a reserved type must reach the
// decoder), CORE_STATE rounding selection and the numeric profile.
struct ProbeInput {
  std::map<std::string_view, Word> sources;
  std::map<std::string_view, std::uint64_t> fields;
  unsigned rounding = 0;  // CORE_STATE[39:37]: 0 RNE, 1 RTM, 2 RTP, 3 RTZ (ResolveScalarFPActiveRoundingMode)
  arch::NumericProfileKind profile = arch::NumericProfileKind::Ieee;
  Word tpc = 0x100;
};
struct ProbeOutput {
  bool executed = false;
  arch::FaultCode fault = arch::FaultCode::Fault_None;
  Word result = 0;   // GPR 5 (RegDst / RegDst0)
  Word result1 = 0;  // GPR 6 (RegDst1)
  Word flags = 0;    // CORE_STATE[36:32] after the instruction (cleared before)
  Word tpc = 0;
  Word return_address = 0;
};

class Probe {
 public:
  explicit Probe(const isa::FormDesc& f) : form_(f) {}
  const isa::FormDesc& form() const { return form_; }
  bool has_field(std::string_view name) const { return isa::field_index(form_, name) >= 0; }

  ProbeOutput run(const ProbeInput& in) const {
    arch::MachineConfig config = arch::MachineConfig::reference();
    config.numeric_profile = in.profile;
    arch::Machine m(config);
    m.state.sysregs.core_state = Word{in.rounding & 7} << arch::kCoreStateRoundingShift;
    for (const auto& [field, value] : in.sources) {
      if (has_field(field)) m.state.write_gpr(register_of_field().at(field), value);  // SrcA and SrcD share GPR 3
    }
    m.state.pc = in.tpc;
    const auto o = runner::execute_instruction(m, word(in.fields), form_.length_bits);
    return {scalar::is_success(o), m.state.last_fault, m.state.read_gpr(5), m.state.read_gpr(6),
            (m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F, m.state.pc,
            m.state.return_address};
  }

  // The form's word with the given raw field values, registers by default.
  Word word(const std::map<std::string_view, std::uint64_t>& raw) const {
    Word bits = form_.match;
    for (const isa::FieldDesc& f : isa::fields_of(form_)) {
      const auto reg = register_of_field().find(f.name);
      const auto given = raw.find(f.name);
      const std::uint64_t v = given != raw.end() ? given->second : reg != register_of_field().end() ? reg->second : 0;
      bits |= isa::field_bits(f, v);  // raw: isa::encode would reject a reserved type first
    }
    return bits;
  }

 private:
  const isa::FormDesc& form_;
};

// The one catalog form of the contract's mnemonic (ASL identifier).
inline const isa::FormDesc* contract_form(const std::string& contract) {
  const isa::FormDesc* found = nullptr;
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    if (f.family == isa::Family::CMD || f.family == isa::Family::BBD || (f.owner != nullptr && *f.owner != 0)) continue;
    if (asl_id(f.mnemonic) != contract) continue;
    if (found != nullptr) return nullptr;
    found = &f;
  }
  return found;
}

// ---- FSU facts --------------------------------------------------------

// {Source,Destination}TypeLegal_<MN>(encoded): the form with that SrcType /
// DstType executes, or is rejected with the illegal-instruction fault the
// RSVD points name (ValidateScalarFSUTypesReserved_*).
inline std::string type_legal_probe(const Probe& p, std::string_view field, std::uint64_t encoded, bool legal) {
  if (!p.has_field(field)) return fmt::format("the form has no {} field", field);
  const ProbeOutput o = p.run({{{"SrcL", f64(1.5)}, {"SrcR", f64(2.25)}, {"SrcA", f64(3.0)}}, {{field, encoded}}});
  if (o.executed != legal) return fmt::format("{} {} {}", field, encoded, o.executed ? "executes" : "is rejected");
  if (!legal && o.fault != arch::FaultCode::Fault_IllegalInstruction) {
    return fmt::format("{} {} rejected with {}", field, encoded, arch::fault_name(o.fault));
  }
  return "";
}

// Operand sets for the flag and rounding probes: signaling NaNs (invalid for
// every profile operation on FP sources), inexact sums, quotients, products,
// roots and conversions, and an integer no FP format holds exactly.
inline std::vector<ProbeInput> numeric_probe_inputs(const Probe& p) {
  const std::array<std::array<Word, 3>, 5> sets = {{{kSignalingNaN, kSignalingNaN, kSignalingNaN},
                                                     {f64(1.0), kTiny, kTiny},
                                                     {f64(1.0), f64(3.0), f64(3.0)},
                                                     {kThird, kThird, kThird},
                                                     {kMaxS64, kMaxS64, kMaxS64}}};
  std::vector<ProbeInput> out;
  for (const auto& s : sets) {
    for (const std::uint64_t dst_type : {0u, 1u}) {  // DstType 0 FP64/U64, 1 FP32/U32 (conversions only)
      if (dst_type == 1 && !p.has_field("DstType")) continue;
      ProbeInput in{{{"SrcL", s[0]}, {"SrcR", s[1]}, {"SrcA", s[2]}}, {}};
      if (p.has_field("DstType")) in.fields["DstType"] = dst_type;
      out.push_back(in);
    }
  }
  return out;
}

// UsesProfileFlags_<MN>(): the flags come from the numeric profile hook, so
// some operands give different flags under the reference and the IEEE
// profile; flags the model fixes itself (compare, MIN/MAX, ABS) never differ.
inline std::string uses_profile_flags_probe(const Probe& p, bool expected) {
  bool differs = false;
  for (ProbeInput in : numeric_probe_inputs(p)) {
    const Word ieee = p.run(in).flags;
    in.profile = arch::NumericProfileKind::Reference;
    differs = differs || ieee != p.run(in).flags;
  }
  return differs == expected ? "" : fmt::format("flags differ between profiles = {}", differs);
}

// UsesActiveRounding_<MN>(): some inexact result differs between the active
// rounding modes RTP and RTM (CORE_STATE[39:37] = 2 / 1).
inline std::string uses_active_rounding_probe(const Probe& p, bool expected) {
  bool differs = false;
  for (ProbeInput in : numeric_probe_inputs(p)) {
    in.rounding = 2;
    const Word up = p.run(in).result;
    in.rounding = 1;
    differs = differs || up != p.run(in).result;
  }
  return differs == expected ? "" : fmt::format("result depends on the active rounding mode = {}", differs);
}

// SourceArity_<MN>(): how many of the form's source registers the result
// depends on.  Each is moved from its base value to +-100 and to the other
// sources' base values; it counts when one of the moves changes the result.
inline std::string source_arity_probe(const Probe& p, Word expected) {
  const std::map<std::string_view, Word> base = {
      {"SrcL", f64(1.5)}, {"SrcR", f64(2.25)}, {"SrcA", f64(3.125)}, {"SrcD", f64(3.125)}};
  const Word before = p.run({base, {}}).result;
  unsigned arity = 0;
  for (const std::string_view field : kSourceFields) {
    if (!p.has_field(field)) continue;
    bool used = false;
    for (const Word other : {f64(100.0), f64(-100.0), f64(1.5), f64(2.25), f64(3.125)}) {
      auto moved = base;
      moved[field] = other;
      used = used || p.run({moved, {}}).result != before;
    }
    arity += used ? 1 : 0;
  }
  return arity == expected ? "" : fmt::format("the result depends on {} sources", arity);
}

// {Binary,Unary,Fused,Compare}Operation_<MN>() == <enum>: MN (FP64, RNE)
// on operands whose exact results tell the operations apart, against the
// operation the enum names.  nullopt: no exact reference for that operand.
using OperationReference = std::function<std::optional<double>(double, double, double)>;
inline std::optional<OperationReference> operation_reference(const std::string& e) {
  const std::map<std::string, OperationReference> ops = {
      {"FloatingBinary_ADD", [](double l, double r, double) { return l + r; }},
      {"FloatingBinary_SUB", [](double l, double r, double) { return l - r; }},
      {"FloatingBinary_MUL", [](double l, double r, double) { return l * r; }},
      {"FloatingBinary_DIV", [](double l, double r, double) { return l / r; }},
      {"FloatingBinary_MIN", [](double l, double r, double) { return std::fmin(l, r); }},
      {"FloatingBinary_MAX", [](double l, double r, double) { return std::fmax(l, r); }},
      {"FloatingUnary_ABS", [](double x, double, double) { return std::fabs(x); }},
      {"FloatingUnary_SQRT", [](double x, double, double) { return std::sqrt(x); }},
      {"FloatingUnary_RECIP", [](double x, double, double) { return 1.0 / x; }},
      // e^x is exact only at 0.
      {"FloatingUnary_EXP",
       [](double x, double, double) { return x == 0.0 ? std::optional<double>(1.0) : std::nullopt; }},
      // FloatingFused_*: product = left * right, addend = SrcA.
      {"FloatingFused_MADD", [](double l, double r, double a) { return l * r + a; }},
      {"FloatingFused_MSUB", [](double l, double r, double a) { return l * r - a; }},
      {"FloatingFused_NMADD", [](double l, double r, double a) { return -(l * r + a); }},
      {"FloatingFused_NMSUB", [](double l, double r, double a) { return -(l * r - a); }},
      // FloatingCompare_*: the result register holds 1 or 0.
      {"FloatingCompare_EQ", [](double l, double r, double) { return l == r ? 1.0 : 0.0; }},
      {"FloatingCompare_NE", [](double l, double r, double) { return l != r ? 1.0 : 0.0; }},
      {"FloatingCompare_LT", [](double l, double r, double) { return l < r ? 1.0 : 0.0; }},
      {"FloatingCompare_LE", [](double l, double r, double) { return l <= r ? 1.0 : 0.0; }},
      {"FloatingCompare_GT", [](double l, double r, double) { return l > r ? 1.0 : 0.0; }},
      {"FloatingCompare_GE", [](double l, double r, double) { return l >= r ? 1.0 : 0.0; }},
  };
  const auto it = ops.find(e);
  return it == ops.end() ? std::nullopt : std::optional<OperationReference>(it->second);
}

inline std::string operation_probe(const Probe& p, const std::string& expected) {
  const std::optional<OperationReference> ref = operation_reference(expected);
  if (!ref) return "no reference for " + expected;
  const bool compare = expected.starts_with("FloatingCompare_");
  const std::array<std::array<double, 3>, 6> sets = {
      {{6.0, 1.5, 0.5}, {-2.0, 0.5, 4.0}, {4.0, 4.0, 0.25}, {0.25, 2.0, 6.0}, {0.0, 1.0, 2.0}, {1.0, 2.0, 0.0}}};
  unsigned checked = 0;
  for (const auto& s : sets) {
    const std::optional<double> want = (*ref)(s[0], s[1], s[2]);
    if (!want || std::isnan(*want)) continue;  // NaN encodings are the model's choice
    const Word got = p.run({{{"SrcL", f64(s[0])}, {"SrcR", f64(s[1])}, {"SrcA", f64(s[2])}}, {}}).result;
    const Word want_bits = compare ? static_cast<Word>(*want) : f64(*want);
    if (got != want_bits) return fmt::format("({}, {}, {}) gives {:#x}, {} gives {:#x}", s[0], s[1], s[2], got, expected, want_bits);
    ++checked;
  }
  return checked > 0 ? "" : "no operand set with an exact reference";
}

// SignalingCompare_<MN>(): a quiet NaN operand raises invalid (NV) only in a
// signaling comparison (a signaling NaN raises it in both).
inline std::string signaling_compare_probe(const Probe& p, bool expected) {
  const ProbeOutput o = p.run({{{"SrcL", kQuietNaN}, {"SrcR", f64(1.0)}}, {}});
  const bool signals = o.flags != 0;
  return signals == expected ? "" : fmt::format("a quiet NaN raises flags {:#x}", o.flags);
}

// ---- ALU facts --------------------------------------------------------

// The form's one immediate or shift-amount field, if any.
inline const isa::FieldDesc* operand_field(const isa::FormDesc& f) {
  for (const isa::FieldDesc& field : isa::fields_of(f)) {
    const std::string_view n = field.name;
    if (n.starts_with("imm") || n.starts_with("uimm") || n.starts_with("simm") || n == "shamt") return &field;
  }
  return nullptr;
}

// IsWordOperation_<MN>(): every result is the sign extension of its low 32
// bits, for a left operand whose 64-bit results are not (0x12345678_87654321)
// and immediates / right operands 0, 1 and all-ones.
inline std::string is_word_operation_probe(const Probe& p, bool expected) {
  const isa::FieldDesc* imm = operand_field(p.form());
  bool all_word = true;
  for (const std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0}}) {
    ProbeInput in{{{"SrcL", 0x1234567887654321}, {"SrcR", v & 1}}, {}};
    if (imm != nullptr) in.fields[imm->name] = v & ((std::uint64_t{1} << imm->width) - 1);
    const ProbeOutput o = p.run(in);
    if (!o.executed) return fmt::format("operand {:#x} is rejected", v);
    all_word = all_word && o.result == scalar::sign_extend(o.result, 32);
  }
  return all_word == expected ? "" : fmt::format("results are sign-extended words = {}", all_word);
}

// ShiftAmount_<MN>(right) == k: MN with that right operand shifts its left
// operand by k, in MN's direction (SLL/SRL/SRA) and width (a W suffix: the
// low word, sign-extended).
inline std::optional<Word> shifted(std::string_view mn, Word v, unsigned k) {
  const bool word = mn.ends_with("W");
  if (k >= (word ? 32u : 64u)) return std::nullopt;
  const auto lo = static_cast<std::uint32_t>(v);
  if (mn.starts_with("SLL")) return word ? scalar::sign_extend(Word{lo << k}, 32) : v << k;
  if (mn.starts_with("SRL")) return word ? scalar::sign_extend(Word{lo >> k}, 32) : v >> k;
  if (mn.starts_with("SRA")) {
    return word ? static_cast<Word>(static_cast<std::int64_t>(scalar::sign_extend(lo, 32)) >> k)
                : static_cast<Word>(static_cast<std::int64_t>(v) >> k);
  }
  return std::nullopt;
}

inline std::string shift_amount_probe(const Probe& p, const std::string& mn, Word right, Word k) {
  constexpr Word kValue = 0x9234567887654321;  // every shift of it differs
  const std::optional<Word> want = shifted(mn, kValue, static_cast<unsigned>(k));
  if (!want) return "no shift reference for " + mn;
  const ProbeOutput o = p.run({{{"SrcL", kValue}, {"SrcR", right}}, {}});
  return o.executed && o.result == *want ? "" : fmt::format("shift by {:#x} gives {:#x}", right, o.result);
}

// ShiftWidth_<MN>() == n: the form's shamt field is n bits wide, and its
// largest value 2^n - 1 shifts by that much.
inline std::string shift_width_probe(const Probe& p, const std::string& mn, Word n) {
  const isa::FieldDesc* shamt = operand_field(p.form());
  if (shamt == nullptr || std::string_view(shamt->name) != "shamt") return "the form has no shamt field";
  if (shamt->width != n) return fmt::format("shamt is {} bits wide", shamt->width);
  constexpr Word kValue = 0x9234567887654321;
  const unsigned k = (1u << n) - 1;
  const std::optional<Word> want = shifted(mn.substr(0, 3) + (mn.ends_with("W") ? "W" : ""), kValue, k);
  const ProbeOutput o = p.run({{{"SrcL", kValue}}, {{"shamt", k}}});
  return want && o.executed && o.result == *want ? "" : fmt::format("shamt {} gives {:#x}", k, o.result);
}

// {Quotient,Remainder,Low,High,LowResult,HighResult}_<MN>(args) == v of the
// two-destination HL forms: MN executed with the arguments in the fields
// their roles name (dividend/left SrcL, divisor/right SrcR, addend SrcD,
// shift_amount shamt) writes v to that result's destination.  The ASL's
// dispatch writes the quotient to RegDst0 and the remainder to RegDst1 for
// HL.DIV* (ExecuteScalarDividePair[W]) and the other way round for HL.REM*
// (ExecuteScalarRemainderPair[W]); low to RegDst0 and high to RegDst1 for
// HL.MUL*, HL.MADD* and HL.CCAT* (ExecuteScalarMultiply[Add]Pair,
// ExecuteConcatenatePair).
inline bool result_in_first_destination(const std::string& mn, const std::string& fact) {
  if (fact == "Quotient") return !mn.starts_with("HL_REM");
  if (fact == "Remainder") return mn.starts_with("HL_REM");
  return fact.starts_with("Low");
}

inline std::string pair_result_probe(const Probe& p, const std::string& mn, const std::string& fact, const json& s) {
  static const std::map<std::string, std::string_view> kRoleField = {
      {"dividend", "SrcL"}, {"left", "SrcL"}, {"divisor", "SrcR"}, {"right", "SrcR"}, {"addend", "SrcD"}};
  const json& params = s.at("params");
  const json& args = s.at("args");
  if (params.size() != args.size()) return "the step does not name the contract's parameters";
  ProbeInput in;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string role = params[i];
    const auto field = kRoleField.find(role);
    if (field != kRoleField.end() && p.has_field(field->second)) {
      in.sources[field->second] = num(args[i]);
    } else if (role == "shift_amount" && p.has_field("shamt")) {
      in.fields["shamt"] = num(args[i]);
    } else {
      return "no field carries parameter " + role;
    }
  }
  const ProbeOutput o = p.run(in);
  const Word got = result_in_first_destination(mn, fact) ? o.result : o.result1;
  return o.executed && got == num(s.at("value")) ? "" : fmt::format("{} {:#x}", fact, got);
}

// ---- BRU / SYS facts ---------------------------------------------------

// DirectSystemIDLegal_C_SSRGET(identifier): the SSRID constraint of the
// model's form table (what its decoder checks) accepts the identifier.  Not
// executed: C.SSRGET only executes in a system bundle body.
inline std::string system_id_legal_check(const Probe& p, std::uint64_t id, bool expected) {
  if (!p.has_field("SSRID")) return "the form has no SSRID field";
  const bool legal = isa::first_failed_constraint(p.form(), p.word({{"SSRID", id}})) < 0;
  return legal == expected ? "" : fmt::format("SSRID {:#x} legal = {}", id, legal);
}

// Target_<MN>(tpc/base, immediate) == v: MN at that TPC with that immediate
// writes v to its destination register (or, without one, to the return
// address: C.SETRET).
inline std::string target_probe(const Probe& p, const json& s) {
  const isa::FieldDesc* imm = operand_field(p.form());
  const json& args = s.at("args");
  if (imm == nullptr || args.size() != 2) return "no immediate field for the target's offset";
  const ProbeOutput o = p.run({{}, {{imm->name, num(args[1])}}, 0, arch::NumericProfileKind::Ieee, num(args[0])});
  const Word got = p.has_field("RegDst") ? o.result : o.return_address;
  return o.executed && got == num(s.at("value")) ? "" : fmt::format("target {:#x}", got);
}

// WritesTPC_<MN>(): executing MN moves TPC elsewhere than past itself.
inline std::string writes_tpc_probe(const Probe& p, bool expected) {
  const ProbeOutput o = p.run({{}, {}, 0, arch::NumericProfileKind::Ieee, 0x100});
  const bool writes = o.tpc != Word{0x100} + p.form().length_bits / 8u;
  return o.executed && writes == expected ? "" : fmt::format("TPC after {:#x}", o.tpc);
}

// The destination of an add-to-TPC form run with immediate `imm` at TPC `tpc`.
inline Word added_to_tpc(const Probe& p, std::uint64_t imm, Word tpc) {
  const isa::FieldDesc* field = operand_field(p.form());
  return p.run({{}, {{field->name, imm & ((std::uint64_t{1} << field->width) - 1)}}, 0,
                arch::NumericProfileKind::Ieee, tpc}).result;
}

// PageShift_<MN>() == k: immediate 1 adds 2^k to TPC.
inline std::string page_shift_probe(const Probe& p, Word k) {
  if (operand_field(p.form()) == nullptr) return "the form has no immediate field";
  const Word got = added_to_tpc(p, 1, 0x100000) - 0x100000;
  return got == (Word{1} << k) ? "" : fmt::format("immediate 1 adds {:#x}", got);
}

// ImmediateIs{Signed,Unsigned}_<MN>() where the form table leaves the
// signedness to the encoding: an all-ones immediate added to TPC lands below
// TPC exactly when it is signed.
inline std::string immediate_sign_probe(const Probe& p, bool is_signed, bool expected) {
  if (operand_field(p.form()) == nullptr) return "the form has no immediate field";
  constexpr Word kTpc = 0x100000000;
  const bool below = added_to_tpc(p, ~std::uint64_t{0}, kTpc) < kTpc;
  return below == (is_signed == expected) ? "" : fmt::format("an all-ones immediate lands below TPC = {}", below);
}

// Runs one "expect_contract_probe" step; "" when the ASL's value holds.
inline std::string contract_probe_step(const json& s) {
  const std::string mn = s.at("contract");
  const isa::FormDesc* f = contract_form(mn);
  if (f == nullptr) return "no single catalog form for " + mn;
  const Probe p(*f);
  const std::string fact = s.at("fact");
  const json& args = s.at("args");
  const json& value = s.at("value");
  if (fact == "SourceTypeLegal" || fact == "DestinationTypeLegal") {
    return type_legal_probe(p, fact == "SourceTypeLegal" ? "SrcType" : "DstType", num(args.at(0)),
                            value.get<bool>());
  }
  if (fact == "DirectSystemIDLegal") return system_id_legal_check(p, num(args.at(0)), value.get<bool>());
  if (fact == "Target") return target_probe(p, s);
  if (fact == "WritesTPC") return writes_tpc_probe(p, value.get<bool>());
  if (fact == "PageShift") return page_shift_probe(p, num(value));
  if (fact == "ImmediateIsSigned" || fact == "ImmediateIsUnsigned") {
    return immediate_sign_probe(p, fact == "ImmediateIsSigned", value.get<bool>());
  }
  if (fact == "UsesProfileFlags") return uses_profile_flags_probe(p, value.get<bool>());
  if (fact == "UsesActiveRounding") return uses_active_rounding_probe(p, value.get<bool>());
  if (fact == "SourceArity") return source_arity_probe(p, num(value));
  if (fact.ends_with("Operation") && fact != "IsWordOperation") return operation_probe(p, value.get<std::string>());
  if (fact == "SignalingCompare") return signaling_compare_probe(p, value.get<bool>());
  if (fact == "IsWordOperation") return is_word_operation_probe(p, value.get<bool>());
  if (fact == "ShiftAmount") return shift_amount_probe(p, mn, num(args.at(0)), num(value));
  if (fact == "ShiftWidth") return shift_width_probe(p, mn, num(value));
  if (fact == "Quotient" || fact == "Remainder" || fact.starts_with("Low") || fact.starts_with("High")) {
    return pair_result_probe(p, mn, fact, s);
  }
  return "unknown contract probe fact " + fact;
}

}  // namespace pto::test::contract_probes
