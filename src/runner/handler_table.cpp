// The process-wide handler table and field lookup of src/scalar/execute.hpp.
#include "block/control.hpp"
#include "scalar/execute.hpp"

namespace pto::scalar {

const HandlerTable& handler_table() {
  static const HandlerTable table = [] {
    HandlerTable t;
    // Block handlers first: the mnemonics the block layer owns keep its
    // handler even if a family registers them too (HandlerTable::set keeps
    // the first).
    block::register_block_handlers(t);
    block::register_bundle_header_handlers(t);
    register_scalar_family_handlers(t);
    return t;
  }();
  return table;
}

int field_slot(isa::Mnemonic m, std::string_view field_name) {
  const auto forms = isa::forms_of_mnemonic(m);
  if (forms.empty()) return -1;
  return isa::field_index(isa::form(forms.front()), field_name);
}

}  // namespace pto::scalar
