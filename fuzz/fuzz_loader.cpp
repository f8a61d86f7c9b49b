// libFuzzer target: loading arbitrary bytes as a program must end in a
// LoadedProgram or a LoadError, never a crash; a loaded program then runs a
// few hundred steps, which must end in a clean stop reason.
//
// An input that starts with the ELF magic is the file itself.  Any other
// input describes an image (built_image below): segments at drawn addresses
// with drawn flags, the first holding generated code (fuzz/program_gen.hpp),
// an entry, a symbol, the identity note or a damaged one; the image is
// written with elf::write_image and then patched at drawn offsets, so the
// loader's checks past the header are reached as often as its header checks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "arch/machine.hpp"
#include "elf/elf.hpp"
#include "program_gen.hpp"
#include "rig.hpp"
#include "runner/executor.hpp"
#include "runner/loader.hpp"

namespace {

// Small enough that a hostile image cannot exhaust the fuzzing host.
constexpr std::uint64_t kHostCapBytes = std::uint64_t{16} << 20;
constexpr std::uint64_t kMaxSteps = 512;
constexpr std::size_t kMaxCodeBytes = 512;
constexpr std::size_t kMaxPatches = 8;
constexpr std::string_view kElfMagic = "\x7f" "ELF";

pto::arch::MachineConfig loader_config() {
  pto::arch::MachineConfig config = pto::arch::MachineConfig::real();
  config.memory.host_cap_bytes = kHostCapBytes;
  return config;
}

void load_and_run(std::span<const std::uint8_t> bytes, bool check_identity) {
  static pto::fuzz::Rig rig(loader_config());  // reset for each load (rig.hpp)
  rig.reset();
  try {
    const pto::runner::LoadResult r = pto::runner::load_elf(rig.m, bytes, check_identity);
    const auto* program = std::get_if<pto::runner::LoadedProgram>(&r);
    if (program == nullptr) return;
    if (program->image_begin > program->entry || program->entry >= program->image_end) std::abort();
    rig.m.state.pc = program->entry;
    pto::runner::RunLimits limits;
    limits.max_steps = kMaxSteps;
    const pto::runner::RunResult run = rig.ex.run(limits);
    if (run.steps > kMaxSteps) std::abort();
  } catch (const pto::arch::HostMemoryExhausted&) {
    // A clean, reported resource limit (pto run exits with its host-limit code).
  }
}

// Mostly page-aligned low addresses; sometimes any 64-bit value (the
// address-space and wrap-around checks).
std::uint64_t draw_address(pto::fuzz::ChoiceReader& in) {
  const std::uint8_t mode = in.byte();
  return mode < 0xF0 ? std::uint64_t{mode} << 12 : in.little_endian(8);
}

pto::elf::Segment draw_segment(pto::fuzz::ChoiceReader& in, std::vector<std::uint8_t> data) {
  const std::uint64_t vaddr = draw_address(in);
  const std::uint32_t flags = in.byte() & 7;  // any of PF_R, PF_W, PF_X
  const std::uint64_t memsz = data.size() + (in.byte() & 0x3F);
  return {vaddr, memsz, flags, std::move(data), std::nullopt};
}

std::optional<pto::elf::Identity> draw_identity(pto::fuzz::ChoiceReader& in) {
  pto::elf::Identity id = pto::elf::our_identity();
  switch (in.byte() % 8) {
    case 0: return std::nullopt;
    case 1: id.release = "0.58.2"; break;
    case 2: id.encoding_abi += "x"; break;
    case 3: id.encoding_projection_sha256.assign(64, '0'); break;
    default: break;
  }
  return id;
}

pto::elf::Image built_image(pto::fuzz::ChoiceReader& in) {
  pto::elf::Image image;
  const std::uint8_t kind = in.byte();
  if (kind >= 0xF0) image.type = kind & 3;  // ET_NONE/REL/EXEC/DYN
  if (kind == 0xEF) image.machine = 0x3E;
  image.identity = draw_identity(in);
  const unsigned extra_segments = in.byte() % 3;
  for (unsigned i = 0; i < extra_segments; ++i) {
    std::vector<std::uint8_t> data(in.byte() % 64);
    for (auto& b : data) b = in.byte();
    image.segments.push_back(draw_segment(in, std::move(data)));
  }
  const std::uint8_t code_choice = in.byte();
  pto::fuzz::ChoiceReader code_choices = in.split(std::size_t{4} * in.byte());
  image.segments.insert(image.segments.begin(), draw_segment(in, pto::fuzz::generate_code(code_choices, kMaxCodeBytes)));
  const pto::elf::Segment& code = image.segments.front();
  image.entry = code_choice == 0xFF ? in.little_endian(8) : code.vaddr + 2 * (code_choice % 16);
  image.sections.push_back({".text", pto::elf::SHT_PROGBITS, pto::elf::SHF_ALLOC | pto::elf::SHF_EXECINSTR,
                            code.vaddr, code.data.size(), code.data});
  image.symbols.push_back({"_start", image.entry, 0, pto::elf::STT_FUNC, pto::elf::STB_GLOBAL, 1});
  return image;
}

// The written image with up to kMaxPatches bytes replaced at drawn offsets.
std::vector<std::uint8_t> patched_image(pto::fuzz::ChoiceReader& in) {
  const pto::elf::Image image = built_image(in);
  std::vector<std::uint8_t> bytes = pto::elf::write_image(image);
  for (std::size_t i = 0; i < kMaxPatches && !in.done(); ++i) {
    const std::uint64_t offset = in.little_endian(2);
    const std::uint8_t value = in.byte();
    if (offset < bytes.size()) bytes[offset] = value;
  }
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  std::vector<std::uint8_t> built;
  const bool is_file = size >= kElfMagic.size() && std::string_view(reinterpret_cast<const char*>(data), 4) == kElfMagic;
  if (!is_file) {
    pto::fuzz::ChoiceReader choices(input);
    built = patched_image(choices);
  }
  const std::span<const std::uint8_t> bytes = is_file ? input : std::span<const std::uint8_t>(built);
  load_and_run(bytes, true);
  load_and_run(bytes, false);
  return 0;
}
