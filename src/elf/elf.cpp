#include "elf/elf.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>

#include "isa/generated/catalog_enums.hpp"

namespace pto::elf {
namespace {

constexpr std::size_t kEhdrSize = 64;
constexpr std::size_t kPhdrSize = 56;
constexpr std::size_t kShdrSize = 64;
constexpr std::size_t kSymSize = 24;
constexpr std::uint64_t kSegmentAlign = 16;

// ---------------------------------------------------------------------------
// Little-endian byte access.

template <typename T>
T load_le(const std::uint8_t* p) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(p[i]) << (8 * i));
  return v;
}

template <typename T>
void store_le(std::vector<std::uint8_t>& out, std::size_t at, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

template <typename T>
void append_le(std::vector<std::uint8_t>& out, T v) {
  out.resize(out.size() + sizeof(T));
  store_le(out, out.size() - sizeof(T), v);
}

// True when [offset, offset+size) lies inside a buffer of `total` bytes.
bool in_bounds(std::uint64_t offset, std::uint64_t size, std::uint64_t total) {
  return offset <= total && size <= total - offset;
}

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// ---------------------------------------------------------------------------
// Reader.

struct ReadFailure {
  Error error;
};

[[noreturn]] void fail(std::string message) { throw ReadFailure{Error{std::move(message)}}; }

struct RawSection {
  std::uint32_t name;
  std::uint32_t type;
  std::uint64_t flags, addr, offset, size;
  std::uint32_t link, info;
  std::uint64_t addralign, entsize;
  std::uint64_t header_offset;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : b_(bytes) {}

  Image read() {
    read_header();
    read_segments();
    read_sections();
    return std::move(image_);
  }

 private:
  template <typename T>
  T at(std::uint64_t off) const {
    return load_le<T>(b_.data() + off);
  }

  void read_header() {
    if (b_.size() < kEhdrSize) fail(fmt::format("truncated ELF header: file has {} bytes, need {}", b_.size(), kEhdrSize));
    if (!(b_[0] == 0x7f && b_[1] == 'E' && b_[2] == 'L' && b_[3] == 'F')) fail("not an ELF file: bad magic at offset 0x0");
    if (b_[4] != 2) fail(fmt::format("unsupported ELF class {} at offset 0x4 (need 2, ELF64)", b_[4]));
    if (b_[5] != 1) fail(fmt::format("unsupported ELF data encoding {} at offset 0x5 (need 1, little-endian)", b_[5]));
    if (b_[6] != 1) fail(fmt::format("unsupported ELF ident version {} at offset 0x6 (need 1)", b_[6]));
    image_.type = at<std::uint16_t>(16);
    image_.machine = at<std::uint16_t>(18);
    if (at<std::uint32_t>(20) != 1) fail(fmt::format("unsupported e_version {} at offset 0x14 (need 1)", at<std::uint32_t>(20)));
    image_.entry = at<std::uint64_t>(24);
    phoff_ = at<std::uint64_t>(32);
    shoff_ = at<std::uint64_t>(40);
    const auto ehsize = at<std::uint16_t>(52);
    phentsize_ = at<std::uint16_t>(54);
    phnum_ = at<std::uint16_t>(56);
    shentsize_ = at<std::uint16_t>(58);
    shnum_ = at<std::uint16_t>(60);
    shstrndx_ = at<std::uint16_t>(62);
    if (ehsize < kEhdrSize) fail(fmt::format("e_ehsize {} at offset 0x34 is smaller than {}", ehsize, kEhdrSize));
    if (phnum_ && phentsize_ != kPhdrSize)
      fail(fmt::format("e_phentsize {} at offset 0x36 (need {})", phentsize_, kPhdrSize));
    if (shnum_ && shentsize_ != kShdrSize)
      fail(fmt::format("e_shentsize {} at offset 0x3a (need {})", shentsize_, kShdrSize));
    if (phnum_ && !in_bounds(phoff_, std::uint64_t{phnum_} * kPhdrSize, b_.size()))
      fail(fmt::format("program header table at offset {:#x} ({} entries) extends past the end of the file ({} bytes)",
                       phoff_, phnum_, b_.size()));
    if (shnum_ && !in_bounds(shoff_, std::uint64_t{shnum_} * kShdrSize, b_.size()))
      fail(fmt::format("section header table at offset {:#x} ({} entries) extends past the end of the file ({} bytes)",
                       shoff_, shnum_, b_.size()));
    if (shnum_ && shstrndx_ >= shnum_)
      fail(fmt::format("e_shstrndx {} at offset 0x3e is not below e_shnum {}", shstrndx_, shnum_));
  }

  void read_segments() {
    struct Range {
      std::uint64_t begin, end;
      std::size_t index;
    };
    std::vector<Range> ranges;
    for (std::size_t i = 0; i < phnum_; ++i) {
      const std::uint64_t h = phoff_ + i * kPhdrSize;
      if (at<std::uint32_t>(h) != PT_LOAD) continue;
      const auto flags = at<std::uint32_t>(h + 4);
      const auto offset = at<std::uint64_t>(h + 8);
      const auto vaddr = at<std::uint64_t>(h + 16);
      const auto filesz = at<std::uint64_t>(h + 32);
      const auto memsz = at<std::uint64_t>(h + 40);
      if (filesz > memsz)
        fail(fmt::format("program header {} at offset {:#x}: p_filesz {:#x} exceeds p_memsz {:#x}", i, h, filesz, memsz));
      if (!in_bounds(offset, filesz, b_.size()))
        fail(fmt::format("program header {} at offset {:#x}: data [{:#x}, +{:#x}) extends past the end of the file ({} bytes)",
                         i, h, offset, filesz, b_.size()));
      if (memsz && vaddr > ~std::uint64_t{0} - (memsz - 1))
        fail(fmt::format("program header {} at offset {:#x}: [{:#x}, +{:#x}) wraps the address space", i, h, vaddr, memsz));
      if (memsz) ranges.push_back({vaddr, vaddr + (memsz - 1), i});
      Segment s{vaddr, memsz, flags,
                {b_.begin() + static_cast<std::ptrdiff_t>(offset), b_.begin() + static_cast<std::ptrdiff_t>(offset + filesz)},
                Segment::FileFacts{i, at<std::uint64_t>(h + 24), offset, at<std::uint64_t>(h + 48)}};
      image_.segments.push_back(std::move(s));
    }
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < ranges.size(); ++i) {
      if (ranges[i].begin <= ranges[i - 1].end)
        fail(fmt::format("PT_LOAD segments overlap: program header {} [{:#x}, {:#x}] and program header {} [{:#x}, {:#x}]",
                         ranges[i - 1].index, ranges[i - 1].begin, ranges[i - 1].end, ranges[i].index, ranges[i].begin,
                         ranges[i].end));
    }
  }

  RawSection raw_section(std::size_t i) const {
    const std::uint64_t h = shoff_ + i * kShdrSize;
    RawSection s{at<std::uint32_t>(h),      at<std::uint32_t>(h + 4),  at<std::uint64_t>(h + 8),
                 at<std::uint64_t>(h + 16), at<std::uint64_t>(h + 24), at<std::uint64_t>(h + 32),
                 at<std::uint32_t>(h + 40), at<std::uint32_t>(h + 44), at<std::uint64_t>(h + 48),
                 at<std::uint64_t>(h + 56), h};
    if (s.type != SHT_NOBITS && s.type != SHT_NULL && !in_bounds(s.offset, s.size, b_.size()))
      fail(fmt::format("section header {} at offset {:#x}: data [{:#x}, +{:#x}) extends past the end of the file ({} bytes)",
                       i, h, s.offset, s.size, b_.size()));
    return s;
  }

  std::span<const std::uint8_t> contents(const RawSection& s) const {
    if (s.type == SHT_NOBITS || s.type == SHT_NULL) return {};
    return b_.subspan(s.offset, s.size);
  }

  // NUL-terminated string at `index` of a string table section.
  std::string string_at(const RawSection& table, std::uint32_t index, std::string_view what) const {
    const auto data = contents(table);
    if (index >= data.size())
      fail(fmt::format("{}: string index {} is outside the string table at offset {:#x} (size {:#x})", what, index,
                       table.offset, table.size));
    const auto* begin = data.data() + index;
    const auto* end = static_cast<const std::uint8_t*>(std::memchr(begin, 0, data.size() - index));
    if (!end)
      fail(fmt::format("{}: string at offset {:#x} is not NUL-terminated within its string table", what,
                       table.offset + index));
    return std::string(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(end - begin));
  }

  void read_sections() {
    if (shnum_ == 0) return;
    std::vector<RawSection> raw;
    raw.reserve(shnum_);
    for (std::size_t i = 0; i < shnum_; ++i) raw.push_back(raw_section(i));
    const RawSection& shstr = raw[shstrndx_];
    if (shstrndx_ != 0 && shstr.type != SHT_STRTAB)
      fail(fmt::format("section header string table (section {}, header at offset {:#x}) has type {} (need SHT_STRTAB)",
                       shstrndx_, shstr.header_offset, shstr.type));
    for (std::size_t i = 1; i < raw.size(); ++i) {
      const RawSection& r = raw[i];
      std::string name = shstrndx_ == 0 ? std::string()
                                        : string_at(shstr, r.name, fmt::format("name of section {}", i));
      const auto data = contents(r);
      image_.sections.push_back(Section{name, r.type, r.flags, r.addr, r.size, {data.begin(), data.end()}});
      if (r.type == SHT_SYMTAB) read_symbols(raw, i);
      if (name == kIdentitySectionName) read_identity(r);
    }
  }

  void read_symbols(const std::vector<RawSection>& raw, std::size_t index) {
    const RawSection& s = raw[index];
    if (s.entsize != kSymSize)
      fail(fmt::format("symbol table (section {}, header at offset {:#x}) has sh_entsize {} (need {})", index,
                       s.header_offset, s.entsize, kSymSize));
    if (s.size % kSymSize)
      fail(fmt::format("symbol table (section {}, header at offset {:#x}) size {:#x} is not a multiple of {}", index,
                       s.header_offset, s.size, kSymSize));
    if (s.link == 0 || s.link >= raw.size() || raw[s.link].type != SHT_STRTAB)
      fail(fmt::format("symbol table (section {}, header at offset {:#x}) sh_link {} does not name a string table",
                       index, s.header_offset, s.link));
    if (!image_.symbols.empty())
      fail(fmt::format("second symbol table (section {}, header at offset {:#x})", index, s.header_offset));
    const RawSection& strtab = raw[s.link];
    for (std::uint64_t k = 1; k < s.size / kSymSize; ++k) {
      const std::uint64_t e = s.offset + k * kSymSize;
      Symbol sym;
      sym.name = string_at(strtab, at<std::uint32_t>(e), fmt::format("name of symbol {} at offset {:#x}", k, e));
      const auto info = at<std::uint8_t>(e + 4);
      sym.type = info & 0xF;
      sym.bind = info >> 4;
      sym.shndx = at<std::uint16_t>(e + 6);
      sym.value = at<std::uint64_t>(e + 8);
      sym.size = at<std::uint64_t>(e + 16);
      if (sym.shndx != SHN_UNDEF && sym.shndx < 0xff00 && sym.shndx >= raw.size())
        fail(fmt::format("symbol {} ('{}') at offset {:#x} names section {}, but there are only {} sections", k,
                         sym.name, e, sym.shndx, raw.size()));
      image_.symbols.push_back(std::move(sym));
    }
  }

  void read_identity(const RawSection& s) {
    if (image_.identity) fail(fmt::format("second {} section (header at offset {:#x})", kIdentitySectionName, s.header_offset));
    if (s.type != SHT_NOTE)
      fail(fmt::format("{} section (header at offset {:#x}) has type {} (need SHT_NOTE)", kIdentitySectionName,
                       s.header_offset, s.type));
    auto parsed = parse_identity_note(contents(s), s.offset);
    if (auto* e = std::get_if<Error>(&parsed)) fail(e->message);
    image_.identity = std::get<Identity>(std::move(parsed));
  }

  std::span<const std::uint8_t> b_;
  Image image_;
  std::uint64_t phoff_ = 0, shoff_ = 0;
  std::uint16_t phentsize_ = 0, phnum_ = 0, shentsize_ = 0, shnum_ = 0, shstrndx_ = 0;
};

// ---------------------------------------------------------------------------
// Writer.

class StringTable {
 public:
  StringTable() : bytes_(1, 0) {}
  std::uint32_t add(const std::string& s) {
    if (s.empty()) return 0;
    auto [it, inserted] = index_.try_emplace(s, static_cast<std::uint32_t>(bytes_.size()));
    if (inserted) {
      bytes_.insert(bytes_.end(), s.begin(), s.end());
      bytes_.push_back(0);
    }
    return it->second;
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::map<std::string, std::uint32_t> index_;
};

struct OutSection {
  Section s;
  std::uint32_t link = 0, info = 0;
  std::uint64_t addralign = 1, entsize = 0;
  std::uint64_t offset = 0;
};

// An allocated identity note (placed by a linker script) is written as given.
bool is_allocated_identity_note(const Section& s) {
  return s.name == kIdentitySectionName && s.type == SHT_NOTE && (s.flags & SHF_ALLOC);
}

bool is_generated_section(const Section& s) {
  return (s.name == kIdentitySectionName && !is_allocated_identity_note(s)) || s.type == SHT_SYMTAB ||
         (s.type == SHT_STRTAB && (s.name == ".strtab" || s.name == ".shstrtab"));
}

std::uint64_t natural_alignment(std::uint64_t addr) {
  if (addr == 0) return 16;
  return std::min<std::uint64_t>(16, addr & (~addr + 1));
}

void pad_to(std::vector<std::uint8_t>& out, std::uint64_t size) {
  if (out.size() < size) out.resize(size, 0);
}

// Offset of an allocated section's bytes inside a written segment, if the
// section lies in that segment's file data with identical contents.
std::optional<std::uint64_t> shared_offset(const Section& s, const std::vector<Segment>& segs,
                                           const std::vector<std::uint64_t>& seg_offsets) {
  if (!(s.flags & SHF_ALLOC) || s.type == SHT_NOBITS) return std::nullopt;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const Segment& g = segs[i];
    if (s.addr < g.vaddr || s.addr - g.vaddr > g.data.size() || s.data.size() > g.data.size() - (s.addr - g.vaddr))
      continue;
    const auto rel = static_cast<std::ptrdiff_t>(s.addr - g.vaddr);
    if (std::equal(s.data.begin(), s.data.end(), g.data.begin() + rel)) return seg_offsets[i] + (s.addr - g.vaddr);
  }
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------
// Identity note.

std::string identity_descriptor_json(const Identity& id) {
  // nlohmann::json objects keep keys in std::map order (lexicographic), and
  // dump() without indent emits no insignificant whitespace.
  nlohmann::json j = {{"release", id.release},
                      {"encoding_abi", id.encoding_abi},
                      {"encoding_projection_sha256", id.encoding_projection_sha256}};
  return j.dump();
}

std::vector<std::uint8_t> identity_note_bytes(const Identity& id) {
  const std::string desc = identity_descriptor_json(id);
  std::vector<std::uint8_t> out;
  append_le<std::uint32_t>(out, static_cast<std::uint32_t>(kIdentityNoteName.size() + 1));  // namesz, with NUL
  append_le<std::uint32_t>(out, static_cast<std::uint32_t>(desc.size()));                   // descsz, no NUL
  append_le<std::uint32_t>(out, kIdentityNoteType);
  out.insert(out.end(), kIdentityNoteName.begin(), kIdentityNoteName.end());
  out.push_back(0);
  pad_to(out, align_up(out.size(), 4));
  out.insert(out.end(), desc.begin(), desc.end());
  pad_to(out, align_up(out.size(), 4));
  return out;
}

std::variant<Identity, Error> parse_identity_note(std::span<const std::uint8_t> sec, std::uint64_t file_offset) {
  std::optional<Identity> found;
  std::uint64_t pos = 0;
  while (pos < sec.size()) {
    const std::uint64_t off = file_offset + pos;
    if (sec.size() - pos < 12) return Error{fmt::format("truncated note header at offset {:#x}", off)};
    const auto namesz = load_le<std::uint32_t>(sec.data() + pos);
    const auto descsz = load_le<std::uint32_t>(sec.data() + pos + 4);
    const auto type = load_le<std::uint32_t>(sec.data() + pos + 8);
    const std::uint64_t name_at = pos + 12;
    const std::uint64_t desc_at = name_at + align_up(namesz, 4);
    const std::uint64_t next = desc_at + align_up(descsz, 4);
    if (desc_at + descsz > sec.size())
      return Error{fmt::format("note at offset {:#x}: name ({} bytes) and descriptor ({} bytes) extend past the end of {}",
                               off, namesz, descsz, kIdentitySectionName)};
    const std::string_view name(reinterpret_cast<const char*>(sec.data() + name_at), namesz);
    const bool is_pto = namesz == kIdentityNoteName.size() + 1 && name.substr(0, 3) == kIdentityNoteName && name[3] == 0;
    if (is_pto && type == kIdentityNoteType) {
      if (found) return Error{fmt::format("second PTO identity note at offset {:#x}", off)};
      const std::string_view desc(reinterpret_cast<const char*>(sec.data() + desc_at), descsz);
      if (desc.find('\0') != std::string_view::npos)
        return Error{fmt::format("PTO identity note at offset {:#x}: descriptor contains a NUL byte", off)};
      const auto j = nlohmann::json::parse(desc, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded() || !j.is_object())
        return Error{fmt::format("PTO identity note at offset {:#x}: descriptor is not a JSON object", off)};
      Identity id;
      for (auto [key, field] : {std::pair{"release", &id.release}, std::pair{"encoding_abi", &id.encoding_abi},
                                std::pair{"encoding_projection_sha256", &id.encoding_projection_sha256}}) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_string())
          return Error{fmt::format("PTO identity note at offset {:#x}: descriptor lacks string field \"{}\"", off, key)};
        *field = it->get<std::string>();
      }
      if (j.size() != 3)
        return Error{fmt::format("PTO identity note at offset {:#x}: descriptor has {} fields (need exactly 3)", off, j.size())};
      found = std::move(id);
    }
    pos = std::min<std::uint64_t>(next, sec.size());
  }
  if (!found) return Error{fmt::format("{} section at offset {:#x} holds no PTO identity note (name \"PTO\", type 1)",
                                       kIdentitySectionName, file_offset)};
  return *found;
}

Identity our_identity() { return {isa::kRelease, isa::kEncodingAbi, isa::kEncodingProjectionSha256}; }

IdentityCheck check_identity(const std::optional<Identity>& image, const Identity& impl) {
  if (!image) return IdentityCheck::Missing;
  if (image->release != impl.release) return IdentityCheck::ReleaseMismatch;
  if (image->encoding_abi != impl.encoding_abi) return IdentityCheck::AbiMismatch;
  if (image->encoding_projection_sha256 != impl.encoding_projection_sha256) return IdentityCheck::HashMismatch;
  return IdentityCheck::Match;
}

IdentityCheck check_load_identity(const std::optional<Identity>& image) { return check_identity(image, our_identity()); }

IdentityCheck check_link_identities(std::span<const std::optional<Identity>> inputs) {
  for (const auto& in : inputs) {
    if (!in) return IdentityCheck::Missing;
  }
  for (const auto& in : inputs) {
    const IdentityCheck c = check_identity(in, *inputs.front());
    if (c != IdentityCheck::Match) return c;
  }
  return IdentityCheck::Match;
}

std::string_view identity_check_reason(IdentityCheck c) {
  switch (c) {
    case IdentityCheck::Match: return "";
    case IdentityCheck::Missing: return "missing-identity";
    case IdentityCheck::ReleaseMismatch: return "release-mismatch";
    case IdentityCheck::AbiMismatch: return "encoding-abi-mismatch";
    case IdentityCheck::HashMismatch: return "encoding-hash-mismatch";
  }
  return "?";
}

std::variant<Image, Error> read_image(std::span<const std::uint8_t> bytes) {
  try {
    return Reader(bytes).read();
  } catch (ReadFailure& f) {
    return std::move(f.error);
  }
}

std::vector<std::uint8_t> write_image(const Image& image) {
  // Sections to write (generated ones rebuilt) and the index remap for symbols.
  std::vector<OutSection> secs;
  std::vector<std::uint16_t> remap(image.sections.size() + 1, SHN_UNDEF);
  for (std::size_t i = 0; i < image.sections.size(); ++i) {
    const Section& s = image.sections[i];
    if (is_generated_section(s)) continue;
    OutSection o{s};
    // The identity note keeps the alignment of its record (4), wherever it lies.
    o.addralign = is_allocated_identity_note(s) ? 4 : (s.flags & SHF_ALLOC) ? natural_alignment(s.addr) : 1;
    secs.push_back(std::move(o));
    remap[i + 1] = static_cast<std::uint16_t>(secs.size());
  }
  const bool note_placed = std::any_of(image.sections.begin(), image.sections.end(), is_allocated_identity_note);
  if (image.identity && !note_placed) {
    const auto note = identity_note_bytes(*image.identity);
    // SHF_ALLOC with alignment 4 as the LinxISA toolchain writes it; an
    // image that did not place it keeps it outside every segment (address 0),
    // so the note never moves or grows the loaded image.
    OutSection o{Section{std::string(kIdentitySectionName), SHT_NOTE, SHF_ALLOC, 0, note.size(), note}};
    o.addralign = 4;
    secs.push_back(std::move(o));
  }
  StringTable strtab;
  std::vector<std::uint8_t> symtab(kSymSize, 0);  // null symbol
  std::uint32_t first_global = 1;
  for (int pass = 0; pass < 2; ++pass) {  // locals first, as ELF requires
    for (const Symbol& sym : image.symbols) {
      if ((sym.bind == STB_LOCAL) != (pass == 0)) continue;
      std::uint16_t shndx = sym.shndx;
      if (shndx != SHN_UNDEF && shndx < 0xff00) shndx = shndx < remap.size() ? remap[shndx] : SHN_UNDEF;
      append_le<std::uint32_t>(symtab, strtab.add(sym.name));
      symtab.push_back(static_cast<std::uint8_t>((sym.bind << 4) | (sym.type & 0xF)));
      symtab.push_back(0);
      append_le<std::uint16_t>(symtab, shndx);
      append_le<std::uint64_t>(symtab, sym.value);
      append_le<std::uint64_t>(symtab, sym.size);
      if (pass == 0) ++first_global;
    }
  }
  const auto symtab_index = static_cast<std::uint32_t>(secs.size() + 1);
  {
    OutSection o{Section{".symtab", SHT_SYMTAB, 0, 0, symtab.size(), std::move(symtab)}};
    o.link = symtab_index + 1;
    o.info = first_global;
    o.addralign = 8;
    o.entsize = kSymSize;
    secs.push_back(std::move(o));
  }
  secs.push_back(OutSection{Section{".strtab", SHT_STRTAB, 0, 0, strtab.bytes().size(), strtab.bytes()}});
  StringTable shstr;
  for (const OutSection& o : secs) shstr.add(o.s.name);
  shstr.add(".shstrtab");
  secs.push_back(OutSection{Section{".shstrtab", SHT_STRTAB, 0, 0, 0, {}}});
  secs.back().s.data = shstr.bytes();
  secs.back().s.size = shstr.bytes().size();

  std::vector<std::uint8_t> out(kEhdrSize + image.segments.size() * kPhdrSize, 0);
  // Segment data at offsets congruent to vaddr modulo kSegmentAlign.
  std::vector<std::uint64_t> seg_offsets;
  for (const Segment& g : image.segments) {
    const std::uint64_t off =
        out.size() + (g.vaddr % kSegmentAlign + kSegmentAlign - out.size() % kSegmentAlign) % kSegmentAlign;
    pad_to(out, off);
    out.insert(out.end(), g.data.begin(), g.data.end());
    seg_offsets.push_back(off);
  }
  for (OutSection& o : secs) {
    if (auto shared = shared_offset(o.s, image.segments, seg_offsets)) {
      o.offset = *shared;
      continue;
    }
    pad_to(out, align_up(out.size(), o.addralign));
    o.offset = out.size();
    if (o.s.type != SHT_NOBITS) out.insert(out.end(), o.s.data.begin(), o.s.data.end());
  }
  pad_to(out, align_up(out.size(), 8));
  const std::uint64_t shoff = out.size();
  out.resize(out.size() + (secs.size() + 1) * kShdrSize, 0);
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const OutSection& o = secs[i];
    const std::size_t h = shoff + (i + 1) * kShdrSize;
    store_le<std::uint32_t>(out, h, shstr.add(o.s.name));
    store_le<std::uint32_t>(out, h + 4, o.s.type);
    store_le<std::uint64_t>(out, h + 8, o.s.flags);
    store_le<std::uint64_t>(out, h + 16, o.s.addr);
    store_le<std::uint64_t>(out, h + 24, o.offset);
    store_le<std::uint64_t>(out, h + 32, o.s.type == SHT_NOBITS ? o.s.size : o.s.data.size());
    store_le<std::uint32_t>(out, h + 40, o.link);
    store_le<std::uint32_t>(out, h + 44, o.info);
    store_le<std::uint64_t>(out, h + 48, o.addralign);
    store_le<std::uint64_t>(out, h + 56, o.entsize);
  }
  for (std::size_t i = 0; i < image.segments.size(); ++i) {
    const Segment& g = image.segments[i];
    const std::size_t h = kEhdrSize + i * kPhdrSize;
    store_le<std::uint32_t>(out, h, PT_LOAD);
    store_le<std::uint32_t>(out, h + 4, g.flags);
    store_le<std::uint64_t>(out, h + 8, seg_offsets[i]);
    store_le<std::uint64_t>(out, h + 16, g.vaddr);
    store_le<std::uint64_t>(out, h + 24, g.vaddr);
    store_le<std::uint64_t>(out, h + 32, g.data.size());
    store_le<std::uint64_t>(out, h + 40, std::max<std::uint64_t>(g.memsz, g.data.size()));
    store_le<std::uint64_t>(out, h + 48, kSegmentAlign);
  }
  static constexpr std::uint8_t kIdent[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  std::copy(std::begin(kIdent), std::end(kIdent), out.begin());
  store_le<std::uint16_t>(out, 16, image.type);
  store_le<std::uint16_t>(out, 18, image.machine);
  store_le<std::uint32_t>(out, 20, 1);
  store_le<std::uint64_t>(out, 24, image.entry);
  store_le<std::uint64_t>(out, 32, image.segments.empty() ? 0 : kEhdrSize);
  store_le<std::uint64_t>(out, 40, shoff);
  store_le<std::uint32_t>(out, 48, 0);
  store_le<std::uint16_t>(out, 52, kEhdrSize);
  store_le<std::uint16_t>(out, 54, kPhdrSize);
  store_le<std::uint16_t>(out, 56, static_cast<std::uint16_t>(image.segments.size()));
  store_le<std::uint16_t>(out, 58, kShdrSize);
  store_le<std::uint16_t>(out, 60, static_cast<std::uint16_t>(secs.size() + 1));
  store_le<std::uint16_t>(out, 62, static_cast<std::uint16_t>(secs.size()));
  return out;
}

}  // namespace pto::elf
