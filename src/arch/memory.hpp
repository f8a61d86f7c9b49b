// Guest memory: a sparse, paged, little-endian 64-bit address space with the
// profile's permission check (DataAccessPermitted) and a host-memory cap.
//
// Two configurations (docs/semantics-notes.md "Memory configurations"):
//  - reference: the ASL model bounds the spec's tests observe — addresses
//    [0, PTO_MODEL_MEMORY_BYTES) (default 4096, 256..16 MiB: the ASL's
//    65536 maximum as the hosted reference runner widens it), ACR >= 2 limited
//    to the first 3072 bytes (asl/arch/profile/reference-profile.asl).
//  - real (default): addresses [0, address_limit) are readable and writable,
//    pages are allocated on first write, reads of untouched pages see zero.
//
// Fast path: aligned accesses inside a resident page hit a small direct-mapped
// page cache (one compare).  Pages holding decoded code are never entered in
// the write cache, so every store into code takes the slow path, which calls
// the code-write hook (the decode cache invalidates itself there).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "arch/state.hpp"

namespace pto::arch {

enum class MemoryProfile : std::uint8_t { Reference, Real };

struct MemoryConfig {
  MemoryProfile profile = MemoryProfile::Real;
  // Reference: PTO_MODEL_MEMORY_BYTES.  Real: first address past the space.
  Word address_limit = Word{1} << 48;
  // Accesses by ACR >= 2 must end at or below this address (0 = no limit).
  Word user_limit = 0;
  // Host bytes of guest pages the model may allocate before failing cleanly.
  std::uint64_t host_cap_bytes = std::uint64_t{1} << 30;

  static MemoryConfig reference(Word model_bytes = 4096);  // validates 256..16 MiB
  static MemoryConfig real() { return {}; }
};

inline constexpr Word kReferenceModelBytesMin = 256;
// The ASL declares {256..65536}; the hosted reference runner rewrites that
// declaration for sizes up to MAX_HOSTED_MEMORY_BYTES = 16 MiB.
inline constexpr Word kReferenceModelBytesMax = 16 * 1024 * 1024;
inline constexpr Word kReferenceUserLimit = 3072;

// Thrown only when a write needs a new page beyond host_cap_bytes: a
// simulator resource limit, not an architectural event.  The run loop turns it
// into a clean stop (RunStatus::HostLimit).
struct HostMemoryExhausted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Memory {
 public:
  static constexpr unsigned kPageBits = 12;
  static constexpr Word kPageBytes = Word{1} << kPageBits;
  static constexpr Word kPageMask = kPageBytes - 1;
  // Pages are backed by chunks of kChunkPages consecutive pages, one host
  // mapping each (zero-filled, the OS commits only written host pages),
  // so ranges across page boundaries inside a chunk are host-contiguous.
  static constexpr unsigned kChunkBits = kPageBits + 4;
  static constexpr Word kChunkBytes = Word{1} << kChunkBits;

  explicit Memory(const MemoryConfig& config = {});
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  const MemoryConfig& config() const { return config_; }

  // DataAccessPermitted: [address, address+size) lies inside the space (and
  // below user_limit when acr >= 2).  Wrap-around is never permitted.
  bool access_permitted(Word address, Word size, unsigned acr) const {
    const Word end = address + size;
    if (end < address || end > config_.address_limit) return false;
    return !(acr >= 2 && config_.user_limit != 0 && end > config_.user_limit);
  }

  // ProbeDataAccess (asl/scalar/model/agu/memory.asl): alignment is checked
  // before the page/permission check.  Returns Fault_None when permitted.
  FaultCode probe(Word address, Word size, unsigned alignment, unsigned acr) const {
    if (alignment > 1 && (address & (alignment - 1)) != 0) return FaultCode::Fault_DataAlignment;
    return access_permitted(address, size, acr) ? FaultCode::Fault_None : FaultCode::Fault_DataPage;
  }

  // Raw little-endian access with no permission check; size 1, 2, 4 or 8.
  // Callers probe first.  read never allocates.
  Word read(Word address, unsigned size) const {
    if (const std::uint8_t* p = resident_span(address, size)) return load_le(p, size);
    return read_slow(address, size);
  }
  // read for a naturally aligned access (size 1, 2, 4 or 8), which never
  // crosses a page: one compare against the last page it read.
  Word read_aligned(Word address, unsigned size) const {
    if ((address >> kPageBits) == hot_read_.tag) return load_le(hot_read_.data + (address & kPageMask), size);
    return read_aligned_miss(address, size);
  }
  // The page read_aligned read last, for translated code
  // (runner/translator), which inlines its hit path: `tag` holds the page
  // number (address >> kPageBits), `data` its bytes.
  struct HotPage {
    const Word* tag;
    std::uint8_t* const* data;
  };
  HotPage hot_page() const { return {&hot_read_.tag, &hot_read_.data}; }
  void write(Word address, unsigned size, Word value) {
    if (!write_cached(address, size, value)) write_slow(address, size, value);
  }
  // write when the page is in the write cache (resident, no decoded code on
  // it: nothing to allocate or invalidate); false, with no effect, otherwise.
  bool write_cached(Word address, unsigned size, Word value) {
    std::uint8_t* p = writable_span(address, size);
    if (p != nullptr) store_le(p, size, value);
    return p != nullptr;
  }

  // Bulk raw access (loader, MCOPY/MSET, tile memory).  No permission check.
  void read_bytes(Word address, std::span<std::uint8_t> out) const;
  void write_bytes(Word address, std::span<const std::uint8_t> in);
  void fill(Word address, Word count, std::uint8_t value);
  // Bulk access in place (tile transport): the host bytes of [address,
  // address + size) when the range lies in one chunk (kChunkPages aligned
  // pages, contiguous in host memory) and, for a read, that chunk has been
  // allocated (an absent page in it reads zero there, as read_bytes does;
  // a range in no chunk has no bytes), or, for a write, no page of the range
  // holds decoded code and allocating its absent pages (as write_bytes
  // would) stays within the host cap; nullptr otherwise (the caller takes
  // read_bytes / write_bytes, which call the code hook or throw
  // HostMemoryExhausted at their exact point).  Reading or writing through
  // the pointer is read_bytes / write_bytes of the range.
  std::uint8_t* in_place_range(Word address, Word size, bool write);

  // Code tracking: the fetch unit marks pages it decodes from; a later write
  // into such a page calls the hook with the written range.
  using CodeWriteHook = void (*)(void* context, Word address, Word size);
  void set_code_write_hook(CodeWriteHook hook, void* context) {
    code_hook_ = hook;
    code_hook_context_ = context;
  }
  void mark_code_page(Word address);

  // Disables the page cache (every access takes the slow path); used while an
  // observer records memory accesses, so tracing never misses one.
  void set_fast_path(bool enabled);

  std::uint64_t resident_bytes() const { return pages_.size() * kPageBytes; }
  // Resident pages in address order (page base, bytes) for state dumps.
  template <typename F>
  void for_each_page(F&& f) const;

  // Zeroes every byte (ResetProfileState clears _Memory).
  void clear();

 private:
  struct Page {
    std::uint8_t* bytes;  // kPageBytes inside its chunk
    bool has_code = false;
  };
  struct FreeChunk {
    void operator()(std::uint8_t* p) const noexcept;
  };
  using Chunk = std::unique_ptr<std::uint8_t, FreeChunk>;
  struct CacheEntry {
    Word tag = ~Word{0};
    std::uint8_t* data = nullptr;
  };
  static constexpr unsigned kCacheEntries = 256;

  static Word load_le(const std::uint8_t* p, unsigned size) {
    Word v = 0;
    std::memcpy(&v, p, size);  // the host is little-endian (checked in memory.cpp)
    return v;
  }
  static void store_le(std::uint8_t* p, unsigned size, Word v) { std::memcpy(p, &v, size); }

  // Cached pointer for an access that stays within one page, or nullptr.
  const std::uint8_t* resident_span(Word address, unsigned size) const {
    const CacheEntry& e = read_cache_[(address >> kPageBits) % kCacheEntries];
    if (e.tag == (address >> kPageBits) && (address & kPageMask) + size <= kPageBytes) {
      return e.data + (address & kPageMask);
    }
    return nullptr;
  }
  std::uint8_t* writable_span(Word address, unsigned size) {
    CacheEntry& e = write_cache_[(address >> kPageBits) % kCacheEntries];
    if (e.tag == (address >> kPageBits) && (address & kPageMask) + size <= kPageBytes) {
      return e.data + (address & kPageMask);
    }
    return nullptr;
  }

  Word read_slow(Word address, unsigned size) const;
  Word read_aligned_miss(Word address, unsigned size) const;
  void write_slow(Word address, unsigned size, Word value);
  const Page* find_page(Word page_number) const;
  Page& page_for_write(Word page_number);
  std::uint8_t* chunk_bytes(Word page_number);  // allocates the chunk of the page
  // A page's bytes through the caches, then the page map (entering the
  // caches, when the fast path is on): readable_page is nullptr for an absent
  // page; writable_page allocates one and ORs its has_code into `has_code`
  // (a write-cache hit has none).
  const std::uint8_t* readable_page(Word page_number) const;
  std::uint8_t* writable_page(Word page_number, bool& has_code);
  void flush_caches();

  MemoryConfig config_;
  std::unordered_map<Word, std::unique_ptr<Page>> pages_;
  std::unordered_map<Word, Chunk> chunks_;  // by address >> kChunkBits
  mutable std::array<CacheEntry, kCacheEntries> read_cache_{};
  // The page read_aligned hit last (a copy of its read_cache_ entry).
  mutable CacheEntry hot_read_{};
  std::array<CacheEntry, kCacheEntries> write_cache_{};
  bool fast_path_ = true;
  CodeWriteHook code_hook_ = nullptr;
  void* code_hook_context_ = nullptr;
};

template <typename F>
void Memory::for_each_page(F&& f) const {
  std::vector<Word> numbers;
  numbers.reserve(pages_.size());
  for (const auto& [n, p] : pages_) numbers.push_back(n);
  std::sort(numbers.begin(), numbers.end());
  for (Word n : numbers) f(n << kPageBits, std::span<const std::uint8_t>(pages_.at(n)->bytes, kPageBytes));
}

}  // namespace pto::arch
