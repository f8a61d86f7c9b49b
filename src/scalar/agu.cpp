// AGU family handlers: every load/store/pair/prefetch form
// (asl/scalar/model/dispatch/agu.asl ExecuteDecodedAGUForm,
// asl/scalar/model/agu/{addressing,memory}.asl).  One template instantiated
// per AGU mnemonic from the catalog `agu` metadata (generated table), so every
// decision below is resolved at compile time.
//
// Legality before effects: single accesses go through Machine::load/store,
// which probe (alignment before page) and raise the fault before anything is
// written; pair forms probe both accesses before either is performed; the
// update (.pr/.po) write happens only after the access succeeded.
#include <array>
#include <optional>
#include <utility>

#include "scalar/handler_support.hpp"
#include "scalar/register_op.hpp"

namespace pto::scalar {
namespace {

using M = isa::Mnemonic;

// NormalizeScalarLoadResult
template <unsigned Size, bool Signed>
constexpr Word normalize_load(Word value) {
  return Signed ? sign_extend(value, 8 * Size) : zero_extend(value, 8 * Size);
}

// ScalarDecodedAGUBase
template <M Mn>
Word agu_base(const arch::State& st, const DecodedInsn& d) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  if constexpr (a.address_kind == AguAddressKind::PCRelative) {
    return st.pc & ~Word{3};
  } else if constexpr ((a.action == AguAction::Store || a.action == AguAction::StorePair) &&
                       a.address_kind == AguAddressKind::Immediate) {
    return read_source<s.src_r>(st, d);
  } else {
    return read_source<s.src_l>(st, d);
  }
}

// ScalarDecodedAGUOffset: register offsets are Modify(SrcR) << (shamt or the
// form's scale); immediates are imm << scale.
template <M Mn>
Word agu_offset(const arch::State& st, const DecodedInsn& d) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  if constexpr (a.address_kind == AguAddressKind::Register) {
    const Word unshifted =
        apply_right_modifier(read_source<s.src_r>(st, d), kOrderedRightModifier[d.u(s.src_r_type) & 3], false);
    unsigned shift_amount = a.offset_scale;
    if constexpr (s.shamt >= 0) shift_amount = static_cast<unsigned>(d.u(s.shamt) & 63);
    return unshifted << shift_amount;
  } else {
    return field_word<s.imm>(d) << a.offset_scale;
  }
}

// ExecuteDecodedAGULoad
template <M Mn>
ExecOutcome agu_load(arch::Machine& m, const DecodedInsn& d, Word address, Word updated_base) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  Word raw;
  if (!m.load(address, a.size_bytes, raw)) return m.raised();
  const Word value = normalize_load<a.size_bytes, a.signed_load>(raw);
  arch::State& st = m.state;
  if constexpr (a.address_kind == AguAddressKind::Compressed) {
    st.t_queue.push(value);  // WriteCompressedTResult
  } else if constexpr (a.update == AddressUpdate::None) {
    write_destination<s.reg_dst>(st, d, value);
  } else {
    write_destination<s.reg_dst0>(st, d, value);
    write_destination<s.reg_dst1>(st, d, updated_base);
  }
  return ExecOutcome::Next;
}

// Probes both halves of a pair (the second at address + size) and raises the
// first fault found.
template <unsigned Size>
bool probe_pair(arch::Machine& m, Word address) {
  for (const Word a : {address, address + Size}) {
    const arch::FaultCode f = m.probe_data(a, Size, Size);
    if (f != arch::FaultCode::Fault_None) {
      m.set_fault(f, a);
      return false;
    }
  }
  return true;
}

// ExecuteDecodedAGULoadPair
template <M Mn>
ExecOutcome agu_load_pair(arch::Machine& m, const DecodedInsn& d, Word address) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  if (!probe_pair<a.size_bytes>(m, address)) return m.raised();
  const Word first = m.read_probed(address, a.size_bytes);
  const Word second = m.read_probed(address + a.size_bytes, a.size_bytes);
  write_destination<s.reg_dst0>(m.state, d, normalize_load<a.size_bytes, a.signed_load>(first));
  write_destination<s.reg_dst1>(m.state, d, normalize_load<a.size_bytes, a.signed_load>(second));
  return ExecOutcome::Next;
}

// ReadDecodedAGUStoreSource: SrcD, else t#1 (compressed), else SrcL.
template <M Mn>
Word agu_store_source(const arch::State& st, const DecodedInsn& d) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  if constexpr (s.src_d >= 0) {
    return read_source<s.src_d>(st, d);
  } else if constexpr (a.address_kind == AguAddressKind::Compressed) {
    return st.read_reg5(kReg5T1);
  } else {
    return read_source<s.src_l>(st, d);
  }
}

// ExecuteDecodedAGUStore
template <M Mn>
ExecOutcome agu_store(arch::Machine& m, const DecodedInsn& d, Word address, Word updated_base) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  if (!m.store(address, a.size_bytes, agu_store_source<Mn>(m.state, d))) return m.raised();
  if constexpr (a.update != AddressUpdate::None) write_destination<s.reg_dst>(m.state, d, updated_base);
  return ExecOutcome::Next;
}

// ExecuteDecodedAGUStorePair
template <M Mn>
ExecOutcome agu_store_pair(arch::Machine& m, const DecodedInsn& d, Word address) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  if (!probe_pair<a.size_bytes>(m, address)) return m.raised();
  const Word first = read_source<s.src_d>(m.state, d);
  const Word second = read_source<s.src_d1>(m.state, d);
  m.write_probed(address, a.size_bytes, first);
  m.write_probed(address + a.size_bytes, a.size_bytes, second);
  return ExecOutcome::Next;
}

// ScalarPrefetch: no translation, check, event or memory effect; some forms
// publish the prefetch address (ScalarAGUPrefetchReturnsAddress).
template <M Mn>
ExecOutcome agu_prefetch(arch::Machine& m, const DecodedInsn& d, Word updated_base) {
  constexpr AguForm a = agu_form_of(Mn);
  if constexpr (a.prefetch_returns_address) write_destination<slots_of(Mn).reg_dst>(m.state, d, updated_base);
  return ExecOutcome::Next;
}

// ExecuteDecodedAGUForm
template <M Mn>
ExecOutcome execute_agu(arch::Machine& m, const DecodedInsn& d) {
  constexpr AguForm a = agu_form_of(Mn);
  const Word base = agu_base<Mn>(m.state, d);
  const Word updated_base = base + agu_offset<Mn>(m.state, d);
  const Word address = a.update == AddressUpdate::PostIndex ? base : updated_base;
  if constexpr (a.action == AguAction::Load) {
    return agu_load<Mn>(m, d, address, updated_base);
  } else if constexpr (a.action == AguAction::LoadPair) {
    return agu_load_pair<Mn>(m, d, address);
  } else if constexpr (a.action == AguAction::Store) {
    return agu_store<Mn>(m, d, address, updated_base);
  } else if constexpr (a.action == AguAction::StorePair) {
    return agu_store_pair<Mn>(m, d, address);
  } else {
    return agu_prefetch<Mn>(m, d, updated_base);
  }
}

template <std::size_t... I>
constexpr auto make_agu_handlers(std::index_sequence<I...>) {
  return std::array<HandlerEntry, sizeof...(I)>{
      HandlerEntry{generated::kAguForms[I].mnemonic, &execute_agu<generated::kAguForms[I].mnemonic>}...};
}

constexpr auto kAguHandlers = make_agu_handlers(std::make_index_sequence<std::size(generated::kAguForms)>{});

using AguOffset = Word (*)(const arch::State&, const DecodedInsn&);

// Row i: agu_offset of generated::kAguForms[i] (the offset execute_agu adds).
template <std::size_t... I>
constexpr auto make_agu_offsets(std::index_sequence<I...>) {
  return std::array<AguOffset, sizeof...(I)>{&agu_offset<generated::kAguForms[I].mnemonic>...};
}

constexpr auto kAguOffsets = make_agu_offsets(std::make_index_sequence<std::size(generated::kAguForms)>{});

// ---- register-only fast variant (predecode installs it through
// agu_register_only_variant when SrcL and RegDst are GPRs and RegDst is not
// R0): a load with an immediate offset and no address update, without the
// Reg5 queue cases.  Machine::load raises the same alignment/page faults
// before RegDst is written. ----

constexpr bool is_plain_immediate_load(const AguForm& a) {
  return a.action == AguAction::Load && a.address_kind == AguAddressKind::Immediate && a.update == AddressUpdate::None;
}

template <M Mn>
ExecOutcome load_immediate_gprs(arch::Machine& m, const DecodedInsn& d) {
  constexpr AguForm a = agu_form_of(Mn);
  constexpr ScalarFormSlots s = slots_of(Mn);
  auto& gpr = m.state.gpr[m.state.current_pe];
  const Word address = gpr[d.reg(s.src_l)] + (field_word<s.imm>(d) << a.offset_scale);
  Word raw;
  if (!m.load(address, a.size_bytes, raw)) return m.raised();
  gpr[d.reg(s.reg_dst)] = normalize_load<a.size_bytes, a.signed_load>(raw);
  return ExecOutcome::Next;
}

template <M Mn>
constexpr Handler register_only_load() {
  if constexpr (is_plain_immediate_load(agu_form_of(Mn))) {
    return &load_immediate_gprs<Mn>;
  } else {
    return nullptr;
  }
}

// Row i: the variant of generated::kAguForms[i], or nullptr.
template <std::size_t... I>
constexpr auto make_register_only_loads(std::index_sequence<I...>) {
  return std::array<Handler, sizeof...(I)>{register_only_load<generated::kAguForms[I].mnemonic>()...};
}

constexpr auto kRegisterOnlyLoads =
    make_register_only_loads(std::make_index_sequence<std::size(generated::kAguForms)>{});

}  // namespace

std::span<const HandlerEntry> agu_handlers() { return kAguHandlers; }

std::optional<Word> decoded_agu_offset(const arch::State& st, const DecodedInsn& d) {
  for (std::size_t i = 0; i < std::size(generated::kAguForms); ++i) {
    if (generated::kAguForms[i].mnemonic == d.mnemonic) return kAguOffsets[i](st, d);
  }
  return std::nullopt;
}

Handler agu_register_only_variant(const DecodedInsn& d) {
  for (std::size_t i = 0; i < std::size(generated::kAguForms); ++i) {
    if (generated::kAguForms[i].mnemonic != d.mnemonic) continue;
    if (kRegisterOnlyLoads[i] == nullptr) return nullptr;
    const ScalarFormSlots s = slots_of(d.mnemonic);
    const unsigned dst = d.reg(static_cast<unsigned>(s.reg_dst));
    const bool gprs = d.reg(static_cast<unsigned>(s.src_l)) < arch::kAbsoluteGprCount &&
                      dst < arch::kAbsoluteGprCount && dst != 0;
    return gprs ? kRegisterOnlyLoads[i] : nullptr;
  }
  return nullptr;
}

// A load or store without address update, immediate or register offset
// (no modifier), every register a GPR (a load's destination not R0), as a
// RegisterOp: the same address (agu_base, agu_offset), data (agu_store_source)
// and result (normalize_load) as the record's handler, which must be the
// table's or its register-only variant (fully decoded), with no pre-checks.
std::optional<RegisterOp> memory_register_op(const DecodedInsn& d, const AguForm& a) {
  const bool load = a.action == AguAction::Load;
  if ((!load && a.action != AguAction::Store) || a.update != AddressUpdate::None || d.prechecks != 0 ||
      (a.address_kind != AguAddressKind::Immediate && a.address_kind != AguAddressKind::Register) ||
      (d.handler != handler_table().get(d.mnemonic) && d.handler != agu_register_only_variant(d))) {
    return std::nullopt;
  }
  const ScalarFormSlots s = slots_of(d.mnemonic);
  auto reg = [&d](int slot) { return d.reg(static_cast<unsigned>(slot)); };
  RegisterOp op;
  op.kind = load ? RegisterOp::Kind::Load : RegisterOp::Kind::Store;
  op.size = a.size_bytes;
  op.sign = a.signed_load;
  op.indexed = a.address_kind == AguAddressKind::Register;
  // Immediate stores take their base from SrcR and their data from SrcL.
  const bool base_in_src_r = !load && !op.indexed;
  const unsigned base = reg(base_in_src_r ? s.src_r : s.src_l);
  const unsigned data = load ? reg(s.reg_dst) : reg(s.src_d >= 0 ? s.src_d : s.src_l);
  if (base >= arch::kAbsoluteGprCount || data >= arch::kAbsoluteGprCount || (load && data == 0)) {
    return std::nullopt;
  }
  op.left = static_cast<std::uint8_t>(base);
  if (load) {
    op.dst = static_cast<std::uint8_t>(data);
  } else {
    op.right = static_cast<std::uint8_t>(data);
  }
  if (!op.indexed) {
    op.imm = d.u(static_cast<unsigned>(s.imm)) << a.offset_scale;
    return op;
  }
  const unsigned index = reg(s.src_r);
  if (index >= arch::kAbsoluteGprCount || kOrderedRightModifier[d.u(static_cast<unsigned>(s.src_r_type)) & 3] !=
                                              RightModifier::None) {
    return std::nullopt;
  }
  op.index = static_cast<std::uint8_t>(index);
  op.shamt = static_cast<std::uint8_t>(s.shamt >= 0 ? d.u(static_cast<unsigned>(s.shamt)) & 63 : a.offset_scale);
  return op;
}

std::optional<RegisterOp> agu_register_op(const DecodedInsn& d) {
  for (const AguForm& a : generated::kAguForms) {
    if (a.mnemonic == d.mnemonic) return memory_register_op(d, a);
  }
  return std::nullopt;
}

}  // namespace pto::scalar
