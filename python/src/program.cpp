// pto.assemble, pto.load_elf and pto.Program: the assembler (with section
// placement and linker scripts, as `pto as`) and the ELF reader.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "asm/assembler.hpp"
#include "asm/linker_script.hpp"
#include "bindings.hpp"
#include "runner/hosted_run.hpp"

namespace pto::python {
namespace {

// Program files larger than this are refused before reading.
constexpr std::uint64_t kMaxElfBytes = std::uint64_t{1} << 30;

py::dict diagnostic_dict(const as::Diagnostic& d) {
  py::dict out;
  out["file"] = d.file;
  out["line"] = d.line;
  out["column"] = d.column;
  out["message"] = d.message;
  return out;
}

// pto.AssemblyError: str() is every diagnostic as `pto as` prints it; the
// attributes locate the first, `diagnostics` lists all.
[[noreturn]] void raise_assembly_error(const std::vector<as::Diagnostic>& diagnostics) {
  std::string text;
  py::list all;
  for (const as::Diagnostic& d : diagnostics) {
    text += d.format();
    all.append(diagnostic_dict(d));
  }
  const py::object type = py::module_::import("pto._pto").attr("AssemblyError");
  const py::object error = type(text);
  const as::Diagnostic& first = diagnostics.front();
  error.attr("file") = first.file;
  error.attr("line") = first.line;
  error.attr("column") = first.column;
  error.attr("message") = first.message;
  error.attr("diagnostics") = all;
  PyErr_SetObject(type.ptr(), error.ptr());
  throw py::error_already_set();
}

std::string read_text_file(const std::filesystem::path& path, const char* what) {
  try {
    const auto bytes = runner::read_input_file(path.string(), kMaxElfBytes, what);
    return {bytes.begin(), bytes.end()};
  } catch (const runner::HostedRunError& e) {
    throw py::value_error(e.what());
  }
}

bool is_path_like(const py::handle& o) { return py::isinstance(o, py::module_::import("os").attr("PathLike")); }

// A linker script given as text, or as a path-like object naming its file.
std::shared_ptr<const as::LinkerScript> linker_script(const py::object& script) {
  const bool is_path = is_path_like(script);
  const std::string name = is_path ? py::str(script).cast<std::string>() : "<linker script>";
  const std::string text = is_path ? read_text_file(script.cast<std::filesystem::path>(), "linker script")
                                   : script.cast<std::string>();
  auto parsed = as::parse_linker_script(text, name);
  if (const auto* d = std::get_if<as::Diagnostic>(&parsed)) raise_assembly_error({*d});
  return std::make_shared<const as::LinkerScript>(std::get<as::LinkerScript>(std::move(parsed)));
}

Program assemble(const std::string& text, const std::optional<std::map<std::string, std::uint64_t>>& section_start,
                 const py::object& script, const std::string& file_name) {
  as::Options options;
  if (section_start) options.section_start = *section_start;
  if (!script.is_none()) options.linker_script = linker_script(script);
  as::Result r = [&] {
    py::gil_scoped_release unlocked;
    return as::assemble(text, file_name, options);
  }();
  if (!r.ok()) raise_assembly_error(r.diagnostics);
  Program p{std::move(*r.image), {}};
  p.elf_bytes = elf::write_image(p.image);
  return p;
}

Program read_elf(std::vector<std::uint8_t> bytes) {
  auto parsed = elf::read_image(bytes);
  if (const auto* e = std::get_if<elf::Error>(&parsed)) raise_pto_error("LoadError", e->message);
  return Program{std::get<elf::Image>(std::move(parsed)), std::move(bytes)};
}

Program load_elf(const py::object& source) {
  if (PyObject_CheckBuffer(source.ptr())) {
    const std::string bytes = bytes_of(source);
    return read_elf({bytes.begin(), bytes.end()});
  }
  if (!py::isinstance<py::str>(source) && !is_path_like(source)) {
    throw py::type_error("load_elf expects a path or bytes");
  }
  try {
    return read_elf(runner::read_input_file(source.cast<std::filesystem::path>().string(), kMaxElfBytes, "ELF file"));
  } catch (const runner::HostedRunError& e) {
    raise_pto_error("LoadError", e.what());
  }
}

py::list segments(const Program& p) {
  py::list out;
  for (const elf::Segment& s : p.image.segments) {
    py::dict d;
    d["address"] = s.vaddr;
    d["size"] = s.memsz;
    d["flags"] = fmt::format("{}{}{}", s.flags & elf::PF_R ? "r" : "-", s.flags & elf::PF_W ? "w" : "-",
                             s.flags & elf::PF_X ? "x" : "-");
    out.append(d);
  }
  return out;
}

}  // namespace

py::dict symbol_dict(std::span<const elf::Symbol> symbols) {
  py::dict out;
  for (const elf::Symbol& s : symbols) {
    if (!s.name.empty() && s.type != elf::STT_SECTION) out[py::str(s.name)] = s.value;
  }
  return out;
}

void bind_program(py::module_& m) {
  py::class_<Program>(m, "Program", "An ELF image of a PTO program (assembled or read)")
      .def_property_readonly(
          "symbols", [](const Program& p) { return symbol_dict(p.image.symbols); }, "Symbol values by name")
      .def_property_readonly(
          "elf_bytes", [](const Program& p) { return py::bytes(reinterpret_cast<const char*>(p.elf_bytes.data()), p.elf_bytes.size()); },
          "The ELF file")
      .def_property_readonly("entry", [](const Program& p) { return p.image.entry; })
      .def_property_readonly("segments", &segments, "Loadable segments: address, size, flags (rwx)")
      .def("__repr__", [](const Program& p) {
        return fmt::format("<pto.Program entry={:#x} segments={} symbols={}>", p.image.entry, p.image.segments.size(),
                           p.image.symbols.size());
      });
  m.def("assemble", &assemble, py::arg("text"), py::kw_only(), py::arg("section_start") = py::none(),
        py::arg("linker_script") = py::none(), py::arg("file_name") = "<string>",
        "Assemble source text (docs/assembly.md) into a Program.  section_start places sections by name "
        "(as --section-start); linker_script is script text or a path-like naming a script file (as -T).  "
        "Errors raise pto.AssemblyError with file, line, column and message.");
  m.def("load_elf", &load_elf, py::arg("path_or_bytes"), "Read an ELF image from a file path or from bytes");
}

}  // namespace pto::python
