#include "runner/state_digest.hpp"

#include <array>
#include <cstring>
#include <span>
#include <type_traits>

#include "block/bundle_engine.hpp"

namespace pto::runner {
namespace {

using arch::Word;

// Field-by-field hashing (struct bytes would include padding, which is
// indeterminate).  A multiply-xorshift step per value: not cryptographic,
// only a cheap equality witness.
class Hasher {
 public:
  template <typename T>
    requires std::is_integral_v<T> || std::is_enum_v<T>
  void add(T v) {
    h_ = (h_ ^ static_cast<std::uint64_t>(v)) * 0x9E3779B97F4A7C15ull;
    h_ ^= h_ >> 29;
  }
  template <typename T, std::size_t N>
  void add(const std::array<T, N>& a) {
    for (const T& v : a) add(v);
  }
  void add_bytes(std::span<const std::uint8_t> bytes) {
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, bytes.data() + i, 8);
      add(w);
    }
    for (; i < bytes.size(); ++i) add(bytes[i]);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xCBF29CE484222325ull;
};

void add_queue(Hasher& h, const arch::TemporaryQueue& q) {
  h.add(q.value);
  h.add(q.valid);
}

void add_operation(Hasher& h, const arch::BundleOperationDescriptor& o) {
  for (auto v : {o.valid, o.selector_valid, o.data_type_valid, o.mode_valid, o.branch_type_valid}) h.add(v);
  h.add(o.form_identity);
  h.add(o.operation_class);
  h.add(o.selector);
  h.add(o.data_type);
  h.add(o.mode);
  h.add(o.branch_type);
}

void add_bindings(Hasher& h, const arch::BlockState& b) {
  for (const auto& s : b.scalar_bindings) {
    for (auto v : {s.destination, s.source0, s.source1, s.source2, s.source_count}) h.add(v);
    h.add(s.valid);
  }
  for (const auto& t : b.tile_bindings) {
    for (auto v : {t.valid, t.destination_valid, t.destination_allocated_by_bundle, t.source0_valid, t.source1_valid,
                   t.last})
      h.add(v);
    for (auto v : {t.destination, t.destination_hand, t.destination_size, t.pe_mask, t.source0, t.source1}) h.add(v);
  }
  for (const auto& s : b.shared_bindings) {
    for (auto v : {s.shared_id, s.size_code, s.pe_mask}) h.add(v);
    h.add(s.valid);
    h.add(s.consumed);
  }
}

void add_attributes(Hasher& h, const arch::BlockState& b) {
  const auto& c = b.control_attributes;
  for (auto v : {c.present, c.trap_enabled, c.atomic, c.acquire, c.release, c.far, c.dimension_reduction}) h.add(v);
  const auto& d = b.data_attributes;
  for (auto v : {d.data_type, d.data_layout, d.pad_value, d.comparison_mode, d.rounding_mode}) h.add(v);
  for (auto v : {d.data_type_present, d.saturating, d.canonicalize, b.data_attributes_present}) h.add(v);
  const auto& n = b.hint;
  for (auto v : {n.present, n.trace, n.trace_end, n.branch_valid, n.branch_likely}) h.add(v);
  h.add(n.temperature);
  h.add(n.prefetch_size);
  const auto& f = b.fixed_point_attributes;
  for (auto v : {f.valid, f.row_max_en, f.group_max_en, f.row_max_init, f.max_abs_en, f.trans_a, f.trans_b}) h.add(v);
  for (auto v : {f.pre_quant_mode, f.relu_mode, f.group_n_code}) h.add(v);
}

void add_templates(Hasher& h, const arch::BlockState& b) {
  const auto& mc = b.memory_copy_template;
  h.add(mc.active);
  for (Word v : {mc.instruction_pc, mc.destination, mc.source, mc.length, mc.progress}) h.add(v);
  const auto& ft = b.frame_template;
  for (auto v : {ft.active, ft.stack_adjusted, ft.return_target_valid}) h.add(v);
  h.add(ft.kind);
  for (auto v : {ft.begin_reg, ft.end_reg, ft.register_count, ft.progress}) h.add(v);
  for (Word v : {ft.instruction_pc, ft.frame_size, ft.caller_sp, ft.return_target}) h.add(v);
  h.add(ft.source_values);
}

// Every architectural member of BlockState (header_dirty is a cache hint).
void add_block(Hasher& h, const arch::BlockState& b) {
  for (auto v : {b.bundle_active, b.bundle_body_active, b.commit_target_set, b.condition_set,
                 b.system_block_terminal_pending, b.barg.taken, b.zero_participation_seen})
    h.add(v);
  h.add(b.barg.block_type);
  h.add(b.barg.transfer_type);
  for (Word v : {b.barg.bpcn, b.sequential_pc, b.frame_stack_return_target, b.bundle_argument}) h.add(v);
  h.add(b.bundle_argument_kind);
  add_operation(h, b.operation);
  h.add(b.dimensions);
  h.add(b.dimension_present);
  add_bindings(h, b);
  add_attributes(h, b);
  add_templates(h, b);
}

std::uint64_t registers_hash(const arch::State& s) {
  Hasher h;
  for (const auto& file : s.gpr) h.add(file);
  add_queue(h, s.t_queue);
  add_queue(h, s.u_queue);
  h.add(s.predicates);
  const auto& r = s.sysregs;
  for (Word v : {r.thread_ptr, r.global_ptr, r.core_state, r.core_id, r.thread_id, r.vendor, r.version,
                 r.core_feature, r.core_feature_enable, r.tile_capacity, r.blocknum, r.blockid, r.cycle})
    h.add(v);
  for (const auto& ring : s.banked) h.add(ring);
  for (Word v : {s.return_address, s.commit_argument}) h.add(v);
  return h.value();
}

void add_trap_state(Hasher& h, const arch::State& s) {
  for (const auto& t : s.trap_status) {
    h.add(t.asynchronous);
    h.add(t.argument_valid);
    h.add(t.cause);
    h.add(t.number);
    h.add(t.argument0);
  }
  for (const auto& c : s.trap_contexts) {
    h.add(c.valid);
    if (!c.valid) continue;
    h.add(c.source_acr);
    for (Word v : {c.tpc, c.bpc, c.core_state, c.commit_argument, c.return_address}) h.add(v);
    add_block(h, c.block);
    add_queue(h, c.t_queue);
    add_queue(h, c.u_queue);
    h.add(c.predicates);
  }
}

void add_memory_model(Hasher& h, const arch::State& s) {
  h.add(s.reservation_valid);
  h.add(s.reservation_address);
  h.add(s.reservation_size);
  h.add(s.memory_event_count);
  h.add(s.memory_event_capture);
  for (unsigned i = 0; i < s.memory_event_count; ++i) {
    const auto& e = s.memory_events[i];
    h.add(e.kind);
    h.add(e.order);
    h.add(e.write_performed);
    for (Word v : {e.address, e.read_value, e.write_value}) h.add(v);
    for (auto v : {e.agent, e.size_bytes, e.read_from, e.coherence_rank, e.fence_predecessor, e.fence_successor})
      h.add(v);
  }
}

void add_bookkeeping(Hasher& h, const arch::SystemBookkeeping& b) {
  h.add(b.last_fence_predecessor);
  h.add(b.last_fence_successor);
  for (std::uint64_t v : {b.data_cache_epoch, b.instruction_cache_epoch, b.bundle_cache_epoch, b.tlb_epoch,
                          b.last_maintenance_operand, b.architecture_request_epoch, b.control_request_operand})
    h.add(v);
  h.add(b.last_maintenance_operation);
  h.add(b.last_control_request);
}

void add_gqm(Hasher& h, const arch::GqmState& g) {
  for (const auto& q : g.queues) {
    h.add(q.valid);
    if (!q.valid) continue;
    h.add(q.address);
    for (auto v : {q.capacity, q.count, q.head}) h.add(v);
    h.add(q.suspended);
    h.add(q.corrupt);
    for (unsigned i = 0; i < q.count; ++i) {
      const arch::GqmEntry& e = q.entries[(q.head + i) % q.capacity];
      h.add(e.value);
      h.add(e.release_epoch);
    }
  }
  for (std::uint64_t v : {g.release_epoch, g.last_acquire_epoch, g.event_epoch, g.last_event_address,
                          g.last_queue_left, g.last_queue_right})
    h.add(v);
  h.add(g.last_queue_flags);
}

std::uint64_t control_hash(const arch::State& s) {
  Hasher h;
  add_block(h, s.block);
  h.add(s.frame_depth);
  h.add(s.last_frame_begin);
  h.add(s.last_frame_end);
  for (Word v : {s.last_frame_size, s.last_memory_command_address, s.last_memory_command_size,
                 s.last_bundle_hint_payload})
    h.add(v);
  add_trap_state(h, s);
  add_memory_model(h, s);
  add_bookkeeping(h, s.bookkeeping);
  add_gqm(h, s.gqm);
  return h.value();
}

std::uint64_t memory_hash(const arch::Memory& mem) {
  Hasher h;
  mem.for_each_page([&](Word base, std::span<const std::uint8_t> bytes) {
    h.add(base);
    h.add_bytes(bytes);
  });
  return h.value();
}

void add_tile(Hasher& h, const tile::Tile& t) {
  const tile::TileDescriptor& d = t.descriptor();
  h.add(d.storage_kind);
  for (auto v : {d.capacity_bytes, d.rows, d.columns, d.valid_rows, d.valid_columns}) h.add(v);
  h.add(d.data_type);
  h.add(d.layout);
  h.add(d.location);
  h.add(t.defined_valid_elements());
  h.add(t.defined_element_count());
}

// The valid region as tiles_to_json shows it: defined elements and holes.
void add_tile_elements(Hasher& h, const tile::Tile& t) {
  const tile::TileDescriptor& d = t.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const std::uint32_t e = t.linear_index(r, c);
      const bool defined = t.element_defined(e);
      h.add(defined);
      if (defined) h.add(t.read_raw(e));
    }
  }
}

std::uint64_t tiles_hash(const arch::Machine& m) {
  // A machine that never ran a tile bundle has no tile state yet; it digests
  // as the empty file a reset leaves (as tiles_state_json shows it).
  static const tile::TileFile kNoTiles;
  const block::TileMachineState* state = block::find_tile_state(m);
  const tile::TileFile& file = state != nullptr ? state->file : kNoTiles;
  Hasher h;
  for (unsigned i = 0; i < tile::kTileRegisterCount; ++i) {
    const tile::Tile& t = file.tile(static_cast<tile::TileIndex>(i));
    if (!t.allocated()) continue;
    h.add(i);
    h.add(file.allocation_mask(static_cast<tile::TileIndex>(i)));
    add_tile(h, t);
    add_tile_elements(h, t);
  }
  for (unsigned s = 0; s < tile::kSharedTileCount; ++s) {
    const tile::SharedTile& st = file.shared(s);
    if (!st.descriptor_valid) continue;
    h.add(s);
    h.add(st.allocation_mask);
    h.add(st.initialized_mask);
    h.add(st.published);
    add_tile(h, st.tile);
  }
  h.add(file.core_capacity_in_use());
  h.add(file.capacity_limit());
  return h.value();
}

}  // namespace

StateDigest state_digest(const arch::Machine& m) {
  const arch::State& s = m.state;
  return {.pc = s.pc,
          .bpc = s.bpc,
          .last_fault = s.last_fault,
          .fault_address = s.fault_address,
          .current_acr = s.current_acr,
          .current_pe = s.current_pe,
          .registers = registers_hash(s),
          .control = control_hash(s),
          .memory = memory_hash(m.memory),
          .tiles = tiles_hash(m)};
}

}  // namespace pto::runner
