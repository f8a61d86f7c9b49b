// register_scalar_family_handlers: installs the ALU, AGU, BRU, AMO, SYS and
// FSU handler lists and the GQM queue commands (src/scalar/execute.hpp REGISTRATION).  The block layer registers
// first; a mnemonic it already owns keeps its handler (HandlerTable::set
// keeps the first), and the scalar lists never name one (checked by
// ScalarRegistration tests).
#include "scalar/handler_support.hpp"

namespace pto::scalar {

void register_scalar_family_handlers(HandlerTable& table) {
  for (const auto list : {alu_handlers(), agu_handlers(), bru_handlers(), amo_handlers(), sys_handlers(),
                          fsu_handlers(), gqm_handlers()}) {
    for (const HandlerEntry& e : list) table.set(e.mnemonic, e.handler);
  }
}

}  // namespace pto::scalar
