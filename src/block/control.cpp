#include "block/control.hpp"

#include "block/handlers.hpp"

namespace pto::block {

void register_block_handlers(scalar::HandlerTable& t) {
  register_start_stop_handlers(t);
  register_branch_handlers(t);
  register_frame_handlers(t);
  register_memory_command_handlers(t);
}

bool condition_holds(Condition c, arch::Word left, arch::Word right) {
  const auto sl = static_cast<std::int64_t>(left);
  const auto sr = static_cast<std::int64_t>(right);
  switch (c) {
    case Condition::EQ: return left == right;
    case Condition::NE: return left != right;
    case Condition::LT: return sl < sr;
    case Condition::GE: return sl >= sr;
    case Condition::LTU: return left < right;
    case Condition::GEU: return left >= right;
  }
  return false;
}

void set_commit_condition(arch::State& s, bool holds) {
  s.commit_argument = holds ? 1 : 0;
  if (s.block.bundle_active) s.block.barg.taken = holds;
  s.block.condition_set = true;
}

}  // namespace pto::block
