#include "block/control.hpp"

#include "block/handlers.hpp"

namespace pto::block {

void register_block_handlers(scalar::HandlerTable& t) {
  register_start_stop_handlers(t);
  register_branch_handlers(t);
  register_frame_handlers(t);
  register_memory_command_handlers(t);
}

}  // namespace pto::block
