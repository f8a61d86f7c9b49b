#include "dis/render.hpp"

#include <fmt/format.h>

#include <cctype>

namespace pto::dis {

std::string render_standalone(const isa::Decoded& d, std::uint64_t bits, const RenderContext&) {
  if (d.status == isa::DecodeStatus::NoForm) return fmt::format(".word {:#x}", bits);
  const isa::FormDesc& f = d.desc();
  std::string text = f.mnemonic;
  const bool scalar = f.family != isa::Family::CMD && f.family != isa::Family::BBD;
  if (scalar) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const char* sep = " ";
  for (const isa::FieldDesc& fd : isa::fields_of(f)) {
    text += fmt::format("{}{}={}", sep, fd.name, isa::field_value(fd, bits));
    sep = ", ";
  }
  return text;
}

}  // namespace pto::dis
