#include "arch/memory.hpp"

#include <bit>
#include <new>

#include <sys/mman.h>

#include <fmt/format.h>

namespace pto::arch {

static_assert(std::endian::native == std::endian::little,
              "guest memory is little-endian and is accessed with memcpy");

MemoryConfig MemoryConfig::reference(Word model_bytes) {
  // config PTO_MODEL_MEMORY_BYTES (asl/arch/features/tile-allocation.asl), as
  // widened by the hosted runner (kReferenceModelBytesMax)
  if (model_bytes < kReferenceModelBytesMin || model_bytes > kReferenceModelBytesMax) {
    throw std::invalid_argument(fmt::format("memory size {} is outside the reference model range {}..{}",
                                            model_bytes, kReferenceModelBytesMin, kReferenceModelBytesMax));
  }
  MemoryConfig c;
  c.profile = MemoryProfile::Reference;
  c.address_limit = model_bytes;
  c.user_limit = kReferenceUserLimit;  // DataAccessPermitted: ACR >= 2 ends <= 3072
  return c;
}

Memory::Memory(const MemoryConfig& config) : config_(config) {}

void Memory::FreeChunk::operator()(std::uint8_t* p) const noexcept { ::munmap(p, kChunkBytes); }

std::uint8_t* Memory::chunk_bytes(Word page_number) {
  Chunk& c = chunks_[page_number >> (kChunkBits - kPageBits)];
  if (!c) {
    // An anonymous mapping, not calloc: its host pages are committed only
    // when written, and a guest page is written only once page_for_write
    // charged it to the host cap, so a sparse guest (one page in each chunk)
    // costs its pages, not its chunks, even after clear() (calloc would
    // zero-fill reused heap memory, committing the whole chunk).
    void* p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    c.reset(static_cast<std::uint8_t*>(p));
  }
  return c.get();
}

const Memory::Page* Memory::find_page(Word page_number) const {
  auto it = pages_.find(page_number);
  return it == pages_.end() ? nullptr : it->second.get();
}

Memory::Page& Memory::page_for_write(Word page_number) {
  auto it = pages_.find(page_number);
  if (it != pages_.end()) return *it->second;
  if (resident_bytes() + kPageBytes > config_.host_cap_bytes) {
    throw HostMemoryExhausted(fmt::format(
        "guest memory exceeds the host cap of {} bytes (writing page {:#x}); raise --memory-cap", config_.host_cap_bytes,
        page_number << kPageBits));
  }
  auto page = std::make_unique<Page>(Page{chunk_bytes(page_number) + ((page_number << kPageBits) & (kChunkBytes - 1))});
  Page& ref = *page;
  pages_.emplace(page_number, std::move(page));
  return ref;
}

const std::uint8_t* Memory::readable_page(Word page_number) const {
  const CacheEntry& e = read_cache_[page_number % kCacheEntries];
  if (e.tag == page_number) return e.data;
  const Page* p = find_page(page_number);
  if (p == nullptr) return nullptr;
  if (fast_path_) read_cache_[page_number % kCacheEntries] = {page_number, p->bytes};
  return p->bytes;
}

std::uint8_t* Memory::writable_page(Word page_number, bool& has_code) {
  const CacheEntry& e = write_cache_[page_number % kCacheEntries];
  if (e.tag == page_number) return e.data;  // the write cache holds no page with decoded code
  Page& p = page_for_write(page_number);
  has_code |= p.has_code;
  if (fast_path_) {
    read_cache_[page_number % kCacheEntries] = {page_number, p.bytes};
    if (!p.has_code) write_cache_[page_number % kCacheEntries] = {page_number, p.bytes};
  }
  return p.bytes;
}

Word Memory::read_slow(Word address, unsigned size) const {
  Word v = 0;
  for (unsigned i = 0; i < size; ++i) {
    const Word a = address + i;
    const std::uint8_t* page = readable_page(a >> kPageBits);
    const std::uint8_t b = page ? page[a & kPageMask] : 0;
    v |= Word{b} << (8 * i);
  }
  return v;
}

Word Memory::read_aligned_miss(Word address, unsigned size) const {
  const Word v = read(address, size);
  const CacheEntry& e = read_cache_[(address >> kPageBits) % kCacheEntries];
  if (e.tag == (address >> kPageBits)) hot_read_ = e;  // resident and cached (the fast path is on)
  return v;
}

void Memory::write_slow(Word address, unsigned size, Word value) {
  bool touched_code = false;
  for (unsigned i = 0; i < size; ++i) {
    const Word a = address + i;
    writable_page(a >> kPageBits, touched_code)[a & kPageMask] = static_cast<std::uint8_t>(value >> (8 * i));
  }
  if (touched_code && code_hook_) code_hook_(code_hook_context_, address, size);
}

void Memory::read_bytes(Word address, std::span<std::uint8_t> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const Word a = address + done;
    const std::size_t chunk = std::min<std::size_t>(out.size() - done, kPageBytes - (a & kPageMask));
    if (const std::uint8_t* page = readable_page(a >> kPageBits)) {
      std::memcpy(out.data() + done, page + (a & kPageMask), chunk);
    } else {
      std::memset(out.data() + done, 0, chunk);
    }
    done += chunk;
  }
}

void Memory::write_bytes(Word address, std::span<const std::uint8_t> in) {
  std::size_t done = 0;
  bool touched_code = false;
  while (done < in.size()) {
    const Word a = address + done;
    const std::size_t chunk = std::min<std::size_t>(in.size() - done, kPageBytes - (a & kPageMask));
    std::memcpy(writable_page(a >> kPageBits, touched_code) + (a & kPageMask), in.data() + done, chunk);
    done += chunk;
  }
  if (touched_code && code_hook_) code_hook_(code_hook_context_, address, in.size());
}

std::uint8_t* Memory::in_place_range(Word address, Word size, bool write) {
  const Word last = address + (size - 1);
  if (size == 0 || last < address || (address >> kChunkBits) != (last >> kChunkBits)) return nullptr;
  const Word offset = address & (kChunkBytes - 1);
  if (!write) {
    const auto it = chunks_.find(address >> kChunkBits);
    return it == chunks_.end() ? nullptr : it->second.get() + offset;
  }
  Word absent = 0;
  for (Word n = address >> kPageBits; n <= last >> kPageBits; ++n) {
    const Page* p = find_page(n);
    if (p != nullptr && p->has_code) return nullptr;
    absent += p == nullptr ? 1 : 0;
  }
  if (resident_bytes() + absent * kPageBytes > config_.host_cap_bytes) return nullptr;
  for (Word n = address >> kPageBits; n <= last >> kPageBits; ++n) page_for_write(n);
  return chunks_.at(address >> kChunkBits).get() + offset;
}

void Memory::fill(Word address, Word count, std::uint8_t value) {
  Word done = 0;
  bool touched_code = false;
  while (done < count) {
    const Word a = address + done;
    const Word chunk = std::min<Word>(count - done, kPageBytes - (a & kPageMask));
    const Word n = a >> kPageBits;
    // Filling an absent page with zero leaves it absent: it already reads zero.
    if (value != 0 || find_page(n) != nullptr) {
      Page& p = page_for_write(n);
      std::memset(p.bytes + (a & kPageMask), value, chunk);
      touched_code |= p.has_code;
    }
    done += chunk;
  }
  if (touched_code && code_hook_) code_hook_(code_hook_context_, address, count);
}

void Memory::mark_code_page(Word address) {
  const Word n = address >> kPageBits;
  Page& p = page_for_write(n);  // an absent page must exist to carry the mark
  if (p.has_code) return;
  p.has_code = true;
  CacheEntry& e = write_cache_[n % kCacheEntries];
  if (e.tag == n) e = CacheEntry{};
}

void Memory::set_fast_path(bool enabled) {
  fast_path_ = enabled;
  flush_caches();
}

void Memory::flush_caches() {
  hot_read_ = CacheEntry{};
  read_cache_.fill(CacheEntry{});
  write_cache_.fill(CacheEntry{});
}

void Memory::clear() {
  pages_.clear();
  chunks_.clear();
  flush_caches();
}

}  // namespace pto::arch
