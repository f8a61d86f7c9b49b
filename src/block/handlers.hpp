// Registration functions of the block layer's handler files (internal).
#pragma once

#include "scalar/execute.hpp"

namespace pto::block {

void register_start_stop_handlers(scalar::HandlerTable& t);  // start_stop.cpp
void register_branch_handlers(scalar::HandlerTable& t);      // branch.cpp
void register_frame_handlers(scalar::HandlerTable& t);       // frame.cpp
void register_memory_command_handlers(scalar::HandlerTable& t);  // memory_commands.cpp

}  // namespace pto::block
