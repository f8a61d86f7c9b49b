// The extension module pto._pto: the exception hierarchy and every bound area.
#include <pybind11/pybind11.h>

#include <fmt/format.h>

#include "arch/memory.hpp"
#include "bindings.hpp"
#include "isa/catalog.hpp"

namespace pto::python {

[[noreturn]] void raise_pto_error(const char* name, const std::string& message) {
  const py::object type = py::module_::import("pto._pto").attr(name);
  PyErr_SetString(type.ptr(), message.c_str());
  throw py::error_already_set();
}

std::string bytes_of(const py::handle& data) {
  if (!PyObject_CheckBuffer(data.ptr())) {
    throw py::type_error(fmt::format("expected a bytes-like object, not {}", py::type::of(data).attr("__name__").cast<std::string>()));
  }
  const auto bytes = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(data.ptr()));
  if (!bytes) throw py::error_already_set();
  return bytes;
}

}  // namespace pto::python

PYBIND11_MODULE(_pto, m) {
  namespace py = pybind11;
  using namespace pto::python;
  m.doc() = "The PTO tile ISA: assembler, decoder, disassembler and functional simulator (libpto)";
  m.attr("release") = pto::isa::kRelease;
  const py::exception<std::runtime_error> error(m, "Error");
  // Located assembler and linker-script errors; pto.assemble adds the location.
  py::exception<std::runtime_error>(m, "AssemblyError", error);
  // An ELF image the reader or loader refuses.
  py::exception<std::runtime_error>(m, "LoadError", error);
  // Guest memory beyond the host cap (a simulator limit, not an architectural event).
  py::register_exception<pto::arch::HostMemoryExhausted>(m, "HostMemoryError", error);
  bind_numerics(m);
  bind_program(m);
  bind_decode(m);
  bind_machine(m);
}
