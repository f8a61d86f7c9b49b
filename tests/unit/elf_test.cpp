// ELF64 reader/writer and the PTO identity note
// (evidence/pto-isa-0583-abi-vectors.json, copy in tests/data/spec-evidence).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <variant>

#include "elf/elf.hpp"
#include "test_util.hpp"

namespace pto::elf {
namespace {

const nlohmann::json& abi_vectors() {
  static const nlohmann::json j = test::load_json(test::data_path("spec-evidence/pto-isa-0583-abi-vectors.json"));
  return j;
}

std::optional<Identity> identity_from(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return Identity{j.at("release"), j.at("encoding_abi"), j.at("encoding_projection_sha256")};
}

std::uint32_t u32_at(const std::vector<std::uint8_t>& b, std::size_t at) {
  return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

TEST(ElfIdentity, OurIdentityIsTheEvidenceIdentity) {
  const auto& v = abi_vectors();
  EXPECT_EQ(our_identity(), (Identity{v["release"], v["encoding_abi"], v["encoding_projection_sha256"]}));
}

// Every case of abi-vectors.json "cases": link, load and bare-metal-load stages.
TEST(ElfIdentity, AbiVectorCases) {
  const auto& cases = abi_vectors().at("cases");
  ASSERT_EQ(cases.size(), 10u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("id").get<std::string>());
    IdentityCheck got;
    if (c.at("stage") == "link") {
      std::vector<std::optional<Identity>> inputs;
      for (const auto& in : c.at("inputs")) inputs.push_back(identity_from(in));
      got = check_link_identities(inputs);
    } else {
      const auto impl = identity_from(c.at("implementation"));
      ASSERT_TRUE(impl);
      got = check_identity(identity_from(c.at("image")), *impl);
      if (*impl == our_identity()) {
        EXPECT_EQ(check_load_identity(identity_from(c.at("image"))), got);
      }
    }
    if (c.at("expected") == "accept") {
      EXPECT_EQ(got, IdentityCheck::Match);
    } else {
      EXPECT_EQ(identity_check_reason(got), c.at("reason").get<std::string>());
    }
  }
}

// elf_identity: name "PTO" (namesz 4), type 1, compact sorted-key JSON, no NUL,
// 4-byte alignment.
TEST(ElfIdentity, NoteBytesAsSpecified) {
  const auto& spec = abi_vectors().at("elf_identity");
  const auto note = identity_note_bytes(our_identity());
  const std::string desc =
      R"({"encoding_abi":"pto-isa-0.58.3-mode-function-v1","encoding_projection_sha256":)"
      R"("8a48b80e04484c70870f155bf9efc79d2a805cf99e809f4e4e8a7e6a7eb34172","release":"0.58.3"})";
  EXPECT_EQ(u32_at(note, 0), spec.at("name_size_bytes").get<std::uint32_t>());
  EXPECT_EQ(u32_at(note, 4), 165u);  // counted by hand
  EXPECT_EQ(desc.size(), 165u);
  EXPECT_EQ(u32_at(note, 8), spec.at("note_type_value").get<std::uint32_t>());
  EXPECT_EQ(std::string(note.begin() + 12, note.begin() + 16), std::string("PTO\0", 4));
  EXPECT_EQ(std::string(note.begin() + 16, note.begin() + 16 + static_cast<long>(desc.size())), desc);
  EXPECT_EQ(note.size() % spec.at("alignment_bytes").get<std::size_t>(), 0u);
  EXPECT_EQ(note.size(), 16 + (desc.size() + 3) / 4 * 4);
  for (std::size_t i = 16 + desc.size(); i < note.size(); ++i) EXPECT_EQ(note[i], 0);
}

Image sample_image() {
  Image im;
  im.entry = 0x1000;
  im.segments.push_back({0x1000, 8, PF_R | PF_X, {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34}});
  im.segments.push_back({0x2000, 0x20, PF_R | PF_W, {1, 2, 3, 4}});
  im.sections.push_back({".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, 8, im.segments[0].data});
  im.sections.push_back({".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x2000, 4, {1, 2, 3, 4}});
  im.sections.push_back({".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x2004, 0x1c, {}});
  im.symbols.push_back({"_start", 0x1000, 0, STT_FUNC, STB_GLOBAL, 1});
  im.symbols.push_back({"local_label", 0x1004, 0, STT_NOTYPE, STB_LOCAL, 1});
  im.symbols.push_back({"buf", 0x2004, 0x1c, STT_OBJECT, STB_GLOBAL, 3});
  im.identity = our_identity();
  return im;
}

const Section* find_section(const Image& im, std::string_view name) {
  for (const auto& s : im.sections)
    if (s.name == name) return &s;
  return nullptr;
}

TEST(ElfImage, WriteReadRoundTrip) {
  const Image im = sample_image();
  const auto bytes = write_image(im);
  auto r = read_image(bytes);
  ASSERT_TRUE(std::holds_alternative<Image>(r)) << std::get<Error>(r).message;
  const Image& got = std::get<Image>(r);
  EXPECT_EQ(got.type, ET_EXEC);
  EXPECT_EQ(got.machine, EM_PTO);
  EXPECT_EQ(got.entry, 0x1000u);
  ASSERT_EQ(got.segments.size(), 2u);
  EXPECT_EQ(got.segments[0].data, im.segments[0].data);
  EXPECT_EQ(got.segments[1].memsz, 0x20u);
  EXPECT_EQ(got.segments[1].flags, PF_R | PF_W);
  ASSERT_TRUE(got.identity);
  EXPECT_EQ(*got.identity, our_identity());
  const Section* note = find_section(got, ".note.pto.isa");
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->type, SHT_NOTE);
  EXPECT_EQ(note->data, identity_note_bytes(our_identity()));
  ASSERT_EQ(got.symbols.size(), 3u);
  EXPECT_EQ(got.symbols[0].name, "local_label");  // locals first
  EXPECT_EQ(got.symbols[0].bind, STB_LOCAL);
  EXPECT_EQ(got.symbols[1].name, "_start");
  EXPECT_EQ(got.sections[got.symbols[1].shndx - 1].name, ".text");
  EXPECT_EQ(got.sections[got.symbols[2].shndx - 1].name, ".bss");
  const Section* bss = find_section(got, ".bss");
  ASSERT_NE(bss, nullptr);
  EXPECT_EQ(bss->size, 0x1cu);
  // A second write of what was read gives the same bytes.
  EXPECT_EQ(write_image(got), bytes);
}

TEST(ElfImage, MissingIdentityReadsAsMissing) {
  Image im = sample_image();
  im.identity.reset();
  auto r = read_image(write_image(im));
  ASSERT_TRUE(std::holds_alternative<Image>(r));
  EXPECT_EQ(check_load_identity(std::get<Image>(r).identity), IdentityCheck::Missing);
}

std::string read_error(std::span<const std::uint8_t> bytes) {
  auto r = read_image(bytes);
  if (auto* e = std::get_if<Error>(&r)) return e->message;
  return "(accepted)";
}

TEST(ElfImage, TruncatedHeaderMessage) {
  const auto bytes = write_image(sample_image());
  EXPECT_EQ(read_error(std::span(bytes).first(40)), "truncated ELF header: file has 40 bytes, need 64");
  std::vector<std::uint8_t> bad = bytes;
  bad[0] = 0;
  EXPECT_EQ(read_error(bad), "not an ELF file: bad magic at offset 0x0");
  bad = bytes;
  bad[4] = 1;
  EXPECT_EQ(read_error(bad), "unsupported ELF class 1 at offset 0x4 (need 2, ELF64)");
}

TEST(ElfImage, EveryTruncationIsAnErrorNotACrash) {
  const auto bytes = write_image(sample_image());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    auto r = read_image(std::span(bytes).first(n));
    EXPECT_TRUE(std::holds_alternative<Error>(r)) << "accepted a truncation to " << n << " bytes";
  }
}

TEST(ElfImage, TruncatedSectionTableMessage) {
  const auto bytes = write_image(sample_image());
  const std::size_t n = bytes.size() - 1;
  const std::uint64_t shoff = u32_at(bytes, 40);
  EXPECT_EQ(read_error(std::span(bytes).first(n)),
            fmt::format("section header table at offset {:#x} (8 entries) extends past the end of the file ({} bytes)",
                        shoff, n));
}

TEST(ElfImage, OverlappingSegmentsReported) {
  Image im = sample_image();
  im.segments[1].vaddr = 0x1004;
  im.sections.clear();
  im.symbols.clear();
  EXPECT_EQ(read_error(write_image(im)),
            "PT_LOAD segments overlap: program header 0 [0x1000, 0x1007] and program header 1 [0x1004, 0x1023]");
}

TEST(ElfImage, FileszAboveMemszReported) {
  auto bytes = write_image(sample_image());
  // Program header 1 at 64+56; p_memsz at +40 := 1 (< p_filesz 4).
  const std::size_t memsz_at = 64 + 56 + 40;
  for (int i = 0; i < 8; ++i) bytes[memsz_at + i] = i == 0 ? 1 : 0;
  EXPECT_EQ(read_error(bytes), "program header 1 at offset 0x78: p_filesz 0x4 exceeds p_memsz 0x1");
}

TEST(ElfIdentity, MalformedNotesReported) {
  auto note = identity_note_bytes(our_identity());
  note[16] = 'X';  // breaks the JSON
  auto r = parse_identity_note(note, 0x100);
  ASSERT_TRUE(std::holds_alternative<Error>(r));
  EXPECT_EQ(std::get<Error>(r).message, "PTO identity note at offset 0x100: descriptor is not a JSON object");
  note = identity_note_bytes(our_identity());
  r = parse_identity_note(std::span(note).first(10), 0x100);
  EXPECT_EQ(std::get<Error>(r).message, "truncated note header at offset 0x100");
  r = parse_identity_note(std::span(note).first(20), 0x100);
  EXPECT_EQ(std::get<Error>(r).message,
            "note at offset 0x100: name (4 bytes) and descriptor (165 bytes) extend past the end of .note.pto.isa");
}

}  // namespace
}  // namespace pto::elf
