// libFuzzer target: the translation tier against the interpreter.  The input
// is not code but a recipe for one loop block (docs/architecture.md
// "Translation tier"): a COND or DIRECT BSTART looping onto itself, body
// words of the fusable forms with operands from the input, an optional
// SETC, BSTOP; and, from the bytes left, a second block after it that
// commits back to the first (COND: when its condition holds, else on to
// the exit; CALL: always, writing the return address to ra, which the
// bodies may read and overwrite) or RETs to _ReturnAddress (set from the
// recipe: the first block, itself, the exit, or an odd address, which
// its start faults on), so passes chain between the two ("Chaining fused
// blocks", "Calls", "Returns").  Bodies include the FSU forms ("FSU
// forms"), in the reference or the ieee numeric profile, and SETC.TGT
// ("Commit targets": of r13, the first block, or of a data register).
// The blocks run in the fast loop with fused passes translated and
// interpreted; stops and state digests (what the state dump shows, hashed)
// must agree.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "arch/machine.hpp"
#include "isa/decoder.hpp"
#include "runner/executor.hpp"
#include "runner/state_digest.hpp"

namespace {

using pto::arch::Word;

constexpr Word kCode = 0x10000, kData = 0x20000;
constexpr Word kBstartCondSelf = 0x00003001, kBstartDirectSelf = 0x00002001, kBstop = 0x00000001;

// Forms with a fused RegisterOp (and neighbours that are not: MUL, SLL).
constexpr std::string_view kBodyForms[] = {
    "ADD",  "SUB",   "AND",   "OR",   "XOR",   "ADDW",  "SUBW", "ANDW", "ORW", "XORW", "ADDI", "SUBI", "ANDI",
    "ORI",  "XORI",  "ADDIW", "SUBIW", "SLLI", "SRLI",  "SRAI", "SLLIW", "SRLIW", "SRAIW", "HL.ADDI", "MUL", "SLL",
    "LBI",  "LBUI",  "LHI",   "LHUI", "LWI",   "LWUI",  "LDI",  "LB",   "LBU", "LH",   "LHU",  "LW",   "LWU",
    "LD",   "SBI",   "SHI",   "SWI",  "SDI",   "SB",    "SH",   "SW",   "SD",
    "FABS", "FEXP",  "FRECIP", "FSQRT", "FADD", "FSUB",  "FMUL", "FDIV", "FMIN", "FMAX", "FEQ",  "FLTS", "FGE",
    "FMADD", "FMSUB", "FNMADD", "FNMSUB", "FCVT", "FCVTA", "FCVTZ", "SCVTF", "UCVTF", "SETC.TGT"};

// Register values besides the small ones: FP64 and FP32 carriers (ones,
// zeros of both signs, infinities, quiet and signalling NaNs) and wide words.
constexpr Word kCarriers[] = {0x3FF0000000000000, 0x8000000000000000, 0x7FF0000000000000, 0x7FF8000000000000,
                              0x7FF0000000000001, 0x3F800000,         0x80000000,         0x7F800001,
                              0xFFFFFFFF80000000, 0x123456789ABCDEF0, ~Word{0}};
constexpr std::string_view kSetcForms[] = {"SETC.EQ", "SETC.NE", "SETC.LT", "SETC.GEU", "SETC.NEI", "SETC.LTI"};

class Recipe {
 public:
  explicit Recipe(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::uint8_t next() { return at_ < bytes_.size() ? bytes_[at_++] : 0; }
  bool done() const { return at_ >= bytes_.size(); }

  // One word of `mnemonic` with operands from the recipe, or 0 when the
  // catalog constraints refuse them.
  Word word(std::string_view mnemonic) {
    const auto& f = pto::isa::form(pto::isa::forms_of_mnemonic(*pto::isa::mnemonic_from_name(mnemonic)).front());
    std::vector<std::int64_t> values;
    for (const auto& field : pto::isa::fields_of(f)) values.push_back(field_value(field));
    const auto encoded = pto::isa::encode(f, values);
    const auto* w = std::get_if<std::uint64_t>(&encoded);
    return w != nullptr ? *w : 0;
  }

 private:
  // Registers 2..10 are data, 11..13 base pointers (never written: RegDst
  // stays below 11), 24 the t#1 queue now and then.
  std::int64_t field_value(const pto::isa::FieldDesc& field) {
    const std::string_view name(field.name);
    const std::uint8_t b = next();
    if (name == "RegDst") return 2 + b % 9;
    if (name == "SrcRType") return b % 4;
    if (name == "SrcType") return b % 4;  // FP64, FP32; 2 and 3 break the catalog constraint
    if (name == "DstType") return b % 16;
    if (name.starts_with("Src")) return b == 255 ? 24 : b % 14;
    if (name == "shamt") return b % 8;
    if (field.signedness == pto::isa::Signedness::Signed) return static_cast<std::int8_t>(b);
    return b;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
};

struct Outcome {
  pto::runner::RunResult result;
  pto::runner::StateDigest state;
};

enum class SecondStart { Direct, Cond, Call, Ret };
constexpr unsigned kSecondStarts = 4;

// The second block's start: BSTART.STD DIRECT or COND, or BSTART.CALL
// (return target P + 2 + 2 * uimm5, which the body may overwrite in ra),
// each with a byte offset back to the first block; or BSTART.STD RET.
Word second_start(SecondStart kind, std::int64_t byte_offset, std::uint8_t uimm5) {
  const bool call = kind == SecondStart::Call;
  const std::string_view variant = call                       ? ""
                                   : kind == SecondStart::Cond ? "COND"
                                   : kind == SecondStart::Ret  ? "RET"
                                                               : "DIRECT";
  const auto mnemonic = call ? pto::isa::Mnemonic::BSTART_CALL : pto::isa::Mnemonic::BSTART_STD;
  for (const auto i : pto::isa::forms_of_mnemonic(mnemonic)) {
    const auto& f = pto::isa::form(i);
    if (std::string_view(f.asm_template).find(variant) == std::string_view::npos) continue;
    std::vector<std::int64_t> values(pto::isa::fields_of(f).size(), 0);
    if (kind == SecondStart::Ret) return std::get<std::uint64_t>(pto::isa::encode(f, values));
    values.at(static_cast<std::size_t>(pto::isa::field_index(f, call ? "simm12" : "simm17"))) = byte_offset / 2;
    if (call) values.at(static_cast<std::size_t>(pto::isa::field_index(f, "uimm5"))) = uimm5 % 32;
    return std::get<std::uint64_t>(pto::isa::encode(f, values));
  }
  std::abort();
}

// The body of a block: `body` words and, when `setc_at` <= body, a SETC
// there (one pick byte and a byte per field each).
void append_body(Recipe& r, unsigned body, unsigned setc_at, std::vector<Word>& code) {
  for (unsigned i = 0; i <= body; ++i) {
    const std::uint8_t pick = r.next();
    Word w = 0;
    if (i == setc_at) w = r.word(kSetcForms[pick % std::size(kSetcForms)]);
    else if (i < body) w = r.word(kBodyForms[pick % std::size(kBodyForms)]);
    if (w != 0) code.push_back(w);
  }
}

// bytes[0]: COND or DIRECT, body length, the numeric profile (bit 7:
// reference); bytes[1]: the step budget; then the values of registers
// 2..10 (a byte from 192 up picks a carrier from kCarriers); the SETC's place; then per body word a
// form byte and a byte per field (zeros once the input is used up).  Bytes
// left: the second block (kind and body length byte, CALL return-offset
// or RET target byte, SETC place, words).
Outcome run(std::span<const std::uint8_t> bytes, bool translated) {
  Recipe r(bytes);
  const std::uint8_t shape = r.next();
  const bool conditional = (shape & 1) != 0;
  const unsigned body = 1 + (shape >> 1) % 12;
  const std::uint64_t budget = 1 + std::uint64_t{r.next()} * 37;
  pto::arch::MachineConfig config = pto::arch::MachineConfig::real();
  if ((shape & 0x80) != 0) config.numeric_profile = pto::arch::NumericProfileKind::Reference;
  pto::arch::Machine m(config);
  for (unsigned reg = 2; reg <= 10; ++reg) {
    const std::uint8_t b = r.next();
    m.state.write_gpr(reg, b < 192 ? Word{b} : kCarriers[b % std::size(kCarriers)]);
  }
  m.state.write_gpr(11, kData);
  m.state.write_gpr(12, kData + 0x803);  // misaligned into the table
  m.state.write_gpr(13, kCode);          // the code page: stores there leave the fast path
  std::vector<Word> code = {conditional ? kBstartCondSelf : kBstartDirectSelf};
  append_body(r, body, conditional ? r.next() % (body + 1) : body + 1, code);
  code.push_back(kBstop);
  if (!r.done()) {
    const std::uint8_t second = r.next();
    const auto second_kind = static_cast<SecondStart>(second % kSecondStarts);
    const bool second_conditional = second_kind == SecondStart::Cond;
    const unsigned second_body = 1 + (second / kSecondStarts) % 12;
    const Word second_pc = kCode + 4 * code.size();
    const auto back = -4 * static_cast<std::int64_t>(code.size());
    const std::uint8_t detail = r.next();
    code.push_back(second_start(second_kind, back, detail));
    append_body(r, second_body, second_conditional ? r.next() % (second_body + 1) : second_body + 1, code);
    code.push_back(kBstop);
    if (second_kind == SecondStart::Ret) {
      const Word exit = kCode + 4 * code.size();
      const std::array<Word, 4> targets = {kCode, second_pc, exit, kCode + 1};
      m.state.return_address = targets[detail % targets.size()];
    }
  }
  Word pc = kCode;
  for (Word w : code) {
    m.memory.write(pc, 4, w);
    pc += 4;
  }
  for (Word i = 0; i < 512; ++i) m.memory.write(kData + 8 * i, 8, i * 0x9E3779B97F4A7C15ull);
  m.state.pc = kCode;
  pto::runner::Executor ex(m);
  ex.set_translation(translated);
  pto::runner::RunLimits limits;
  limits.max_steps = budget;
  limits.stop_pc = pc;
  const pto::runner::RunResult result = ex.run(limits);
  return {result, pto::runner::state_digest(m)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 16) return 0;
  const std::span<const std::uint8_t> bytes(data, size);
  const Outcome translated = run(bytes, true);
  const Outcome interpreted = run(bytes, false);
  if (translated.result.reason != interpreted.result.reason || translated.result.steps != interpreted.result.steps ||
      translated.result.pc != interpreted.result.pc || translated.result.fault != interpreted.result.fault ||
      translated.state != interpreted.state) {
    std::abort();
  }
  return 0;
}
