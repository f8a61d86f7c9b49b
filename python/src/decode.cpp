// pto.decode and pto.disassemble: the table-driven decoder and the
// bundle-aware disassembler, as structured records.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <map>

#include "bindings.hpp"
#include "dis/disassembler.hpp"
#include "dis/render.hpp"
#include "isa/decoder.hpp"
#include "isa/length.hpp"

namespace pto::python {
namespace {

// One decoded word or disassembled line.
struct Instruction {
  std::optional<std::uint64_t> address;  // disassembly only
  std::optional<std::string> section;    // disassembly of a Program only
  std::uint64_t bits = 0;
  unsigned length_bits = 0;  // 0: trailing data bytes
  std::string status;
  std::optional<isa::FormIndex> form;
  std::string text, comment;
};

std::optional<std::string> form_id(const Instruction& i) {
  if (!i.form) return std::nullopt;
  return isa::form(*i.form).form_id;
}
std::optional<std::string> mnemonic(const Instruction& i) {
  if (!i.form) return std::nullopt;
  return isa::form(*i.form).mnemonic;
}
// Field values in the form's field order (signed fields sign-extended).
py::dict fields(const Instruction& i) {
  py::dict out;
  if (!i.form) return out;
  for (const isa::FieldDesc& f : isa::fields_of(isa::form(*i.form))) out[f.name] = isa::field_value(f, i.bits);
  return out;
}

std::string repr(const Instruction& i) {
  const std::string at = i.address ? fmt::format("{:#x}: ", *i.address) : "";
  return fmt::format("<pto.Instruction {}{} ({})>", at, i.text.empty() ? i.comment : i.text, i.status);
}

// The length rule over the halfwords of `word` (at least one): as
// `pto decode`, upper zero halfwords are not part of the stream.
unsigned length_of(std::uint64_t word) {
  unsigned halfwords = 1;
  while (halfwords < 4 && (word >> (16 * halfwords)) != 0) ++halfwords;
  return isa::instruction_length_bits([&](unsigned i) -> std::optional<std::uint16_t> {
    if (i >= halfwords) return std::nullopt;
    return static_cast<std::uint16_t>(word >> (16 * i));
  });
}

Instruction decode_word(std::uint64_t word, std::optional<unsigned> length) {
  const unsigned bits_length = length.value_or(length_of(word));
  if (bits_length != 16 && bits_length != 32 && bits_length != 48 && bits_length != 64) {
    throw py::value_error(fmt::format("length must be 16, 32, 48 or 64 bits, not {}", bits_length));
  }
  if ((word & isa::length_mask(bits_length)) != word) {
    throw py::value_error(fmt::format("{:#x} has bits beyond its {}-bit length", word, bits_length));
  }
  const isa::Decoded d = isa::decode(word, bits_length);
  Instruction out{std::nullopt, std::nullopt, word, bits_length, std::string(isa::decode_status_name(d.status)),
                  std::nullopt, {}, dis::status_comment(d, word)};
  if (d.status != isa::DecodeStatus::NoForm) out.form = d.form;
  if (d.status != isa::DecodeStatus::NoForm && d.status != isa::DecodeStatus::ExtensionReserved) {
    out.text = dis::render_standalone(d, word);
  }
  return out;
}

py::object decode(const py::object& words, std::optional<unsigned> length) {
  if (py::isinstance<py::int_>(words)) return py::cast(decode_word(words.cast<std::uint64_t>(), length));
  py::list out;
  for (const py::handle w : words) out.append(decode_word(w.cast<std::uint64_t>(), length));
  return out;
}

std::uint64_t line_bits(const dis::Line& l) {
  std::uint64_t bits = 0;
  for (unsigned i = l.size; i > 0; --i) bits = bits << 8 | l.raw[i - 1];
  return bits;
}

void append_region(py::list& out, std::span<const std::uint8_t> bytes, std::uint64_t base,
                   const std::optional<std::string>& section, const dis::Options& options) {
  const dis::Listing listing = dis::disassemble(bytes, base, options);
  for (const dis::Line& l : listing) {
    out.append(Instruction{l.address, section, line_bits(l), l.length_bits,
                           l.length_bits == 0 ? "data" : std::string(isa::decode_status_name(l.status)), l.form,
                           std::string(l.text()), std::string(l.comment())});
  }
}

// Every executable section of the program, label operands named by its symbols.
py::list disassemble_program(const Program& p) {
  std::map<std::uint64_t, std::string> labels;
  for (const elf::Symbol& s : p.image.symbols) {
    if (!s.name.empty() && s.type != elf::STT_SECTION) labels.emplace(s.value, s.name);
  }
  dis::Options options;
  options.symbolize = [&labels](std::uint64_t a) -> std::optional<std::string> {
    const auto it = labels.find(a);
    if (it == labels.end()) return std::nullopt;
    return it->second;
  };
  py::list out;
  for (const elf::Section& s : p.image.sections) {
    if ((s.flags & elf::SHF_EXECINSTR) && s.type != elf::SHT_NOBITS) append_region(out, s.data, s.addr, s.name, options);
  }
  return out;
}

py::list disassemble(const py::object& source, std::uint64_t base) {
  if (py::isinstance<Program>(source)) return disassemble_program(source.cast<const Program&>());
  const std::string bytes = bytes_of(source);
  py::list out;
  append_region(out, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), base, std::nullopt, {});
  return out;
}

}  // namespace

void bind_decode(py::module_& m) {
  py::class_<Instruction>(m, "Instruction", "A decoded instruction word or disassembled line")
      .def_readonly("address", &Instruction::address)
      .def_readonly("section", &Instruction::section)
      .def_readonly("bits", &Instruction::bits, "The instruction's bits (little-endian value of its bytes)")
      .def_readonly("length_bits", &Instruction::length_bits)
      .def_readonly("status", &Instruction::status,
                    "accepted, constraint-violation, reserved-in-pto, extension-reserved, reserved-tile-selector, "
                    "no-form (as pto decode), or data for trailing bytes")
      .def_property_readonly("form", &form_id, "The catalog form id, or None")
      .def_property_readonly("mnemonic", &mnemonic)
      .def_property_readonly("fields", &fields, "Field values by name, in encoding order")
      .def_readonly("text", &Instruction::text, "Canonical assembly (empty when the word is no instruction)")
      .def_readonly("comment", &Instruction::comment, "Why a word is not an accepted instruction")
      .def("__repr__", &repr);
  m.def("decode", &decode, py::arg("words"), py::kw_only(), py::arg("length") = py::none(),
        "Decode one instruction word (an int) or each word of an iterable; the length comes from the length rule "
        "unless given (16, 32, 48, 64)");
  m.def("disassemble", &disassemble, py::arg("program_or_bytes"), py::arg("base") = 0,
        "Bundle-aware disassembly of a Program's executable sections, or of bytes placed at `base`");
}

}  // namespace pto::python
