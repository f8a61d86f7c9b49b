// ELF64 little-endian image model, reader and writer for PTO programs.
//
// The model is deliberately small: loadable segments (what a loader maps),
// sections (what tools show), symbols and the PTO ISA identity note
// (.note.pto.isa, evidence/pto-isa-0583-abi-vectors.json).  The same Image
// type carries executables today and relocatable objects (ET_REL) later.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pto::elf {

// e_machine for PTO: EM_LINXISA (233), what the LinxISA LLVM toolchain
// writes and the reference runner requires (docs/semantics-notes.md "ELF
// machine number and identity note").
inline constexpr std::uint16_t EM_PTO = 0xE9;

inline constexpr std::uint16_t ET_NONE = 0, ET_REL = 1, ET_EXEC = 2, ET_DYN = 3;

inline constexpr std::uint32_t PT_NULL = 0, PT_LOAD = 1, PT_NOTE = 4;
inline constexpr std::uint32_t PF_X = 1, PF_W = 2, PF_R = 4;

inline constexpr std::uint32_t SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_NOTE = 7,
                               SHT_NOBITS = 8;
inline constexpr std::uint64_t SHF_WRITE = 1, SHF_ALLOC = 2, SHF_EXECINSTR = 4;

inline constexpr std::uint16_t SHN_UNDEF = 0, SHN_ABS = 0xfff1, SHN_COMMON = 0xfff2;
inline constexpr std::uint8_t STB_LOCAL = 0, STB_GLOBAL = 1, STB_WEAK = 2;
inline constexpr std::uint8_t STT_NOTYPE = 0, STT_OBJECT = 1, STT_FUNC = 2, STT_SECTION = 3;

// Identity note constants (abi-vectors.json "elf_identity").
inline constexpr std::string_view kIdentitySectionName = ".note.pto.isa";
inline constexpr std::string_view kIdentityNoteName = "PTO";
inline constexpr std::uint32_t kIdentityNoteType = 1;  // PTO_NT_ISA_IDENTITY

struct Segment {
  std::uint64_t vaddr;
  std::uint64_t memsz;
  std::uint32_t flags;  // PF_R | PF_W | PF_X
  std::vector<std::uint8_t> data;  // filesz bytes
  // As read from a file (an image built in memory leaves them unset): the
  // program header's index, p_paddr, p_offset and p_align.
  struct FileFacts {
    std::size_t index;
    std::uint64_t paddr, offset, align;
  };
  std::optional<FileFacts> file;
};

// Section index i in Image::sections is ELF section header index i + 1 (the
// null section 0 is implicit).  Symbol::shndx uses ELF indices.
struct Section {
  std::string name;
  std::uint32_t type;
  std::uint64_t flags;
  std::uint64_t addr;
  std::uint64_t size;  // equals data.size() except for SHT_NOBITS
  std::vector<std::uint8_t> data;
};

struct Symbol {
  std::string name;
  std::uint64_t value;
  std::uint64_t size;
  std::uint8_t type;  // STT_*
  std::uint8_t bind;  // STB_*
  std::uint16_t shndx;
};

struct Identity {
  std::string release, encoding_abi, encoding_projection_sha256;
  bool operator==(const Identity&) const = default;
};

struct Image {
  std::uint16_t type = ET_EXEC;
  std::uint16_t machine = EM_PTO;
  std::uint64_t entry = 0;
  std::vector<Segment> segments;   // PT_LOAD only
  std::vector<Section> sections;   // excluding the null section
  std::vector<Symbol> symbols;     // excluding the null symbol
  std::optional<Identity> identity;  // parsed from .note.pto.isa
};

struct Error {
  std::string message;  // what is wrong and at which file offset
};

// Parses an ELF64 little-endian image.  Every offset and size is bounds-checked;
// overlapping PT_LOAD segments, malformed string tables and malformed identity
// notes are errors.
std::variant<Image, Error> read_image(std::span<const std::uint8_t> bytes);

// Serialises an image: ELF header, program headers, segment data, sections
// (sharing bytes with a segment when an allocated section lies inside it),
// .note.pto.isa from image.identity, .symtab/.strtab from image.symbols and
// .shstrtab.  Input sections named .note.pto.isa/.symtab/.strtab/.shstrtab
// are regenerated, not copied (except an allocated SHT_NOTE .note.pto.isa,
// which a linker script placed: it is written as given); symbol section
// indices are remapped.
std::vector<std::uint8_t> write_image(const Image& image);

// Exact content of the .note.pto.isa section: namesz=4, descsz, type=1,
// "PTO\0", the compact sorted-key JSON descriptor (no NUL), padded to 4 bytes.
std::vector<std::uint8_t> identity_note_bytes(const Identity& identity);
std::string identity_descriptor_json(const Identity& identity);
// Parses .note.pto.isa content; nullopt-free: an Error explains the defect.
std::variant<Identity, Error> parse_identity_note(std::span<const std::uint8_t> section, std::uint64_t file_offset);

// This implementation's identity (pto::isa::kRelease, kEncodingAbi,
// kEncodingProjectionSha256).
Identity our_identity();

enum class IdentityCheck { Match, Missing, ReleaseMismatch, AbiMismatch, HashMismatch };
// Load policy: the image identity must exactly match the implementation.
IdentityCheck check_identity(const std::optional<Identity>& image, const Identity& implementation);
IdentityCheck check_load_identity(const std::optional<Identity>& image);
// Link policy: every input identity present and all exactly equal.
IdentityCheck check_link_identities(std::span<const std::optional<Identity>> inputs);
// The evidence file's reason text: missing-identity, release-mismatch,
// encoding-abi-mismatch, encoding-hash-mismatch ("" for Match).
std::string_view identity_check_reason(IdentityCheck c);

}  // namespace pto::elf
