#include "scalar/register_op.hpp"

#include <array>
#include <bit>
#include <utility>

namespace pto::scalar {
namespace {

using Kind = RegisterOp::Kind;

template <BinaryOp Op, bool Word32, bool Immediate>
bool execute_binary(arch::Machine&, Word* gpr, const RegisterOp& op) {
  const Word right = Immediate ? op.imm : gpr[op.right] << op.shamt;
  gpr[op.dst] = Word32 ? scalar_binary_w(Op, gpr[op.left], right) : scalar_binary(Op, gpr[op.left], right);
  return true;
}

// ScalarDecodedAGUBase + ScalarDecodedAGUOffset (src/scalar/agu.cpp).
template <bool Indexed>
Word address_of(const Word* gpr, const RegisterOp& op) {
  return gpr[op.left] + (Indexed ? gpr[op.index] << op.shamt : op.imm);
}

// agu_load's effect (src/scalar/agu.cpp) without its fault path.
template <unsigned Size, bool Signed, bool Indexed>
bool execute_load(arch::Machine& m, Word* gpr, const RegisterOp& op) {
  Word raw;
  if (!m.load_fast(address_of<Indexed>(gpr, op), Size, raw)) return false;
  gpr[op.dst] = Signed ? sign_extend(raw, 8 * Size) : zero_extend(raw, 8 * Size);
  return true;
}

// agu_store's effect (src/scalar/agu.cpp) on a write-cached page.
template <unsigned Size, bool Indexed>
bool execute_store(arch::Machine& m, Word* gpr, const RegisterOp& op) {
  return m.store_fast(address_of<Indexed>(gpr, op), Size, gpr[op.right]);
}

// An FSU record's handler: it reads and writes the current PE's registers
// and CORE_STATE's flags, and cannot fault once admitted (src/scalar/fsu.cpp).
bool execute_fsu(arch::Machine& m, Word*, const RegisterOp& op) {
  op.insn->handler(m, *op.insn);
  return true;
}

// SetCommitTarget: the block's BARG.bpcn (src/block/branch.cpp SETC_TGT).
bool execute_commit_target(arch::Machine& m, Word* gpr, const RegisterOp& op) {
  m.state.block.barg.bpcn = gpr[op.left];
  return true;
}

constexpr BinaryOp kBinaryOps[] = {BinaryOp::ADD, BinaryOp::SUB, BinaryOp::AND, BinaryOp::OR,
                                   BinaryOp::XOR, BinaryOp::SLL, BinaryOp::SRL, BinaryOp::SRA,
                                   BinaryOp::MIN, BinaryOp::MINU, BinaryOp::MAX, BinaryOp::MAXU};

constexpr bool listed_in_enum_order() {
  for (std::size_t i = 0; i < std::size(kBinaryOps); ++i) {
    if (static_cast<std::size_t>(kBinaryOps[i]) != i) return false;
  }
  return true;
}
static_assert(listed_in_enum_order(), "kBinary rows are indexed by BinaryOp");

template <bool Word32, bool Immediate, std::size_t... I>
constexpr std::array<RegisterOpFn, sizeof...(I)> binary_row(std::index_sequence<I...>) {
  return {execute_binary<kBinaryOps[I], Word32, Immediate>...};
}
constexpr auto kOps = std::make_index_sequence<std::size(kBinaryOps)>{};
// [word][immediate][op]
constexpr std::array<std::array<std::array<RegisterOpFn, std::size(kBinaryOps)>, 2>, 2> kBinary = {{
    {binary_row<false, false>(kOps), binary_row<false, true>(kOps)},
    {binary_row<true, false>(kOps), binary_row<true, true>(kOps)},
}};
template <bool Indexed>
constexpr std::array<std::array<RegisterOpFn, 2>, 4> load_table() {
  return {{
      {execute_load<1, false, Indexed>, execute_load<1, true, Indexed>},
      {execute_load<2, false, Indexed>, execute_load<2, true, Indexed>},
      {execute_load<4, false, Indexed>, execute_load<4, true, Indexed>},
      {execute_load<8, false, Indexed>, execute_load<8, true, Indexed>},
  }};
}
template <bool Indexed>
constexpr std::array<RegisterOpFn, 4> store_table() {
  return {execute_store<1, Indexed>, execute_store<2, Indexed>, execute_store<4, Indexed>,
          execute_store<8, Indexed>};
}
// [indexed][log2 size][signed], [indexed][log2 size]
constexpr std::array kLoads = {load_table<false>(), load_table<true>()};
constexpr std::array kStores = {store_table<false>(), store_table<true>()};

RegisterOpFn execute_function(const RegisterOp& op) {
  const auto log2_size = static_cast<std::size_t>(std::countr_zero(op.size)) & 3;
  if (op.kind == Kind::Load) return kLoads[op.indexed][log2_size][op.sign];
  if (op.kind == Kind::Store) return kStores[op.indexed][log2_size];
  if (op.kind == Kind::Fsu) return execute_fsu;
  if (op.kind == Kind::CommitTarget) return execute_commit_target;
  return kBinary[op.word][op.kind == Kind::BinaryImmediate][static_cast<std::size_t>(op.op)];
}

}  // namespace

std::optional<RegisterOp> register_op_of(const DecodedInsn& d) {
  std::optional<RegisterOp> op = alu_register_op(d);
  if (!op) op = agu_register_op(d);
  if (!op) op = fsu_register_op(d);
  if (op) op->execute = execute_function(*op);
  return op;
}

RegisterOp commit_target_op(std::uint8_t source) {
  RegisterOp op;
  op.kind = Kind::CommitTarget;
  op.left = source;
  op.execute = execute_function(op);
  return op;
}

}  // namespace pto::scalar
