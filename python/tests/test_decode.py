"""pto.decode and pto.disassemble.  Expected encodings are the ones the
example corpus documents byte by byte (examples/cases/*/source.S comments)."""

import pytest

import pto


def test_decode_one_word_bstart_vec_tadd():
    # examples/cases/tile_tadd_stop_pc: .byte 0x81,0x91,0x01,0xc8 = BSTART.VEC TADD, U32
    i = pto.decode(0xC8019181)
    assert i.status == "accepted"
    assert i.length_bits == 32
    assert i.text == "BSTART.VEC TADD, U32"
    assert i.mnemonic.startswith("BSTART")
    assert i.form is not None
    assert i.address is None


def test_decode_list_with_lengths():
    # bytes 0x7c,0x00: C.B.DIMI 1, ->LB0 (16 bits); 0x13,0x80,0x00,0x00:
    # B.IOR sp, zero, zero, ->zero (32 bits)
    dimi, ior = pto.decode([0x007C, 0x00008013])
    assert (dimi.length_bits, ior.length_bits) == (16, 32)
    assert dimi.text == "C.B.DIMI 1, ->LB0"
    assert ior.mnemonic == "B.IOR"


def test_decode_fields_of_addi():
    # ADDI zero, 32, ->a1 from examples/tadd.s, taken from its disassembly:
    # a1 is ABI register 3, zero is 0.
    p = pto.assemble("    addi zero, 32, ->a1\n")
    (addi,) = pto.disassemble(p)
    again = pto.decode(addi.bits)
    assert again.fields == addi.fields
    assert addi.fields["RegDst"] == 3
    assert addi.fields["SrcL"] == 0
    assert 32 in addi.fields.values()


def test_decode_rejects_bits_beyond_length():
    with pytest.raises(ValueError, match="beyond"):
        pto.decode(0x12345, length=16)
    with pytest.raises(ValueError, match="length"):
        pto.decode(0x1, length=24)


def test_disassemble_program_with_labels(tadd_source):
    p = pto.assemble(tadd_source)
    lines = pto.disassemble(p)
    assert lines[0].address == 0
    assert lines[0].section == ".text"
    assert lines[0].text.lower() == "hl.addi zero, 0x20000, ->a0"
    # three 48-bit HL.ADDI, then ADDI zero, 32, ->a1 at 18
    assert [l.length_bits for l in lines[:4]] == [48, 48, 48, 32]
    assert lines[3].address == 18
    assert lines[3].text.lower() == "addi zero, 32, ->a1"
    at_done = [l for l in lines if l.address == p.symbols["done"]]
    assert len(at_done) == 1 and "BSTOP" in at_done[0].text
    assert all(l.status == "accepted" for l in lines)


def test_disassemble_bytes_at_base():
    # C.B.DIMI 1, ->LB0 twice as little-endian bytes, placed at 0x400.
    lines = pto.disassemble(bytes([0x7C, 0x00, 0x7C, 0x00]), base=0x400)
    assert [l.address for l in lines] == [0x400, 0x402]
    assert lines[0].section is None


def test_disassemble_trailing_byte_is_data():
    lines = pto.disassemble(b"\x7c\x00\x01")
    assert lines[-1].status == "data"
    assert lines[-1].form is None


def test_decode_zero_halfword_is_c_bstop():
    # An all-zero halfword is C.BSTOP (the disassembler prints runs of them
    # as .org in --reassemble output).
    i = pto.decode(0)
    assert (i.length_bits, i.status, i.text) == (16, "accepted", "C.BSTOP")


def test_decode_word_that_is_no_instruction():
    # Low nibble 1110: a 48-bit word by the length rule (docs/encoding.md);
    # all its other bits zero match no 48-bit form.
    i = pto.decode(0xE)
    assert i.length_bits == 48
    assert i.status != "accepted"
    assert i.text == "" and i.comment
