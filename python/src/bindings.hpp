// The pieces of the `pto` extension (python/src/*.cpp) and what they share.
// Each area binds libpto's own machinery: nothing here re-implements the
// assembler, decoder, loader, run loop or tile model.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "arch/machine.hpp"
#include "elf/elf.hpp"
#include "numerics/datatypes.hpp"
#include "runner/executor.hpp"
#include "runner/loader.hpp"

namespace pto::python {

namespace py = pybind11;

// An assembled or read ELF image and its file bytes (Program.elf_bytes).
struct Program {
  elf::Image image;
  std::vector<std::uint8_t> elf_bytes;
};

// A simulated core: the machine, one executor for its lifetime (its decode
// cache follows host writes through the memory's code-write hook) and the
// program loaded last, whose symbols name stop and return addresses.
//
// A run releases the GIL, so another Python thread could reach the core
// meanwhile: every access goes through core(), which refuses that (the
// running thread itself, inside a trace callback, may look).
class Machine {
 public:
  explicit Machine(const arch::MachineConfig& config)
      : core_(std::make_unique<arch::Machine>(config)), executor_(std::make_unique<runner::Executor>(*core_)) {}
  arch::Machine& core();
  runner::Executor& executor() {
    core();
    return *executor_;
  }
  std::optional<runner::LoadedProgram> program;

  // Marks the machine running on this thread for its lifetime; refuses a run
  // inside a run (a trace callback calling run or step).
  class RunScope {
   public:
    explicit RunScope(Machine& m);
    ~RunScope() { m_.runner_.reset(); }
    RunScope(const RunScope&) = delete;
    RunScope& operator=(const RunScope&) = delete;

   private:
    Machine& m_;
  };

 private:
  std::unique_ptr<arch::Machine> core_;
  std::unique_ptr<runner::Executor> executor_;  // declared after the machine it hooks into
  std::optional<std::thread::id> runner_;
};

// Named symbols (not section symbols): value by name.
py::dict symbol_dict(std::span<const elf::Symbol> symbols);

// The bytes of a bytes-like object (bytes, bytearray, memoryview, a numpy
// array in C order); TypeError otherwise.
std::string bytes_of(const py::handle& data);

// Raises pto.<name> (a subclass of pto.Error) with `message`.
[[noreturn]] void raise_pto_error(const char* name, const std::string& message);

// The numpy dtype that holds a tile element of `t`: the type's own for
// integers and FP16/32/64, the unsigned carrier otherwise (BF16, FP8, FP4 ...).
py::dtype numpy_dtype_of(num::DataType t);
// Raw element bits (as Tile::read_raw gives them) as an array of
// numpy_dtype_of(t) with `shape`; signed integers are sign-extended.
py::array carriers_to_array(const std::vector<std::uint64_t>& raw, num::DataType t, std::vector<py::ssize_t> shape);
// The element bits of every value of `values` (converted to numpy_dtype_of(t)),
// flattened in C order; values that do not fit the element width raise.
std::vector<std::uint64_t> array_to_carriers(const py::handle& values, num::DataType t);

void bind_numerics(py::module_& m);
void bind_program(py::module_& m);
void bind_decode(py::module_& m);
void bind_machine(py::module_& m);
void bind_tiles(py::class_<Machine>& machine);

}  // namespace pto::python
