"""pto.assemble, pto.load_elf and pto.Program."""

import pytest

import pto

SCALAR_CASE = "examples/cases/scalar_stop_pc"


def test_assemble_symbols_and_entry(tadd_source):
    p = pto.assemble(tadd_source, file_name="tadd.s")
    assert p.entry == p.symbols["_start"] == 0
    assert set(p.symbols) == {"_start", "done"}
    assert p.elf_bytes[:4] == b"\x7fELF"


def test_section_start_places_text(tadd_source):
    p = pto.assemble(tadd_source, section_start={".text": 0x1000})
    assert p.symbols["_start"] == 0x1000
    assert p.entry == 0x1000
    assert any(s["address"] == 0x1000 and s["flags"] == "r-x" for s in p.segments)


def test_linker_script_as_text_and_path(source_dir):
    case = source_dir / SCALAR_CASE
    source = (case / "source.S").read_text()
    # case.ld places .text at 0x100 and .result at 0x200; the code is six
    # instructions of 20 bytes (the source spells them as bytes), so
    # cross_model_stop is 0x114.
    for script in ((case / "case.ld").read_text(), case / "case.ld"):
        p = pto.assemble(source, linker_script=script)
        assert p.symbols["_start"] == 0x100
        assert p.symbols["cross_model_stop"] == 0x114
        assert p.symbols["cross_model_result"] == 0x200


def test_assembly_error_is_located():
    with pytest.raises(pto.AssemblyError) as e:
        pto.assemble("    .text\n_start:\n    addi zero, 1, ->a0\n    bogus a0\n", file_name="bad.s")
    err = e.value
    assert (err.file, err.line, err.column) == ("bad.s", 4, 5)
    assert err.message
    assert len(err.diagnostics) == 1
    assert str(err).startswith("bad.s:4:5: error:")
    assert isinstance(err, pto.Error)


def test_every_assembly_error_is_listed():
    with pytest.raises(pto.AssemblyError) as e:
        pto.assemble("bogus1\nbogus2\n")
    assert [d["line"] for d in e.value.diagnostics] == [1, 2]


def test_linker_script_error_is_an_assembly_error():
    with pytest.raises(pto.AssemblyError) as e:
        pto.assemble("nop\n", linker_script="ENTRY(_start)\nBOGUS(x)\n")
    assert (e.value.file, e.value.line, e.value.column) == ("<linker script>", 2, 1)


def test_load_elf_from_bytes_and_path(tadd_source, tmp_path):
    p = pto.assemble(tadd_source)
    path = tmp_path / "tadd.elf"
    path.write_bytes(p.elf_bytes)
    for source in (p.elf_bytes, bytearray(p.elf_bytes), str(path), path):
        q = pto.load_elf(source)
        assert q.symbols == p.symbols
        assert q.entry == p.entry
        assert q.elf_bytes == p.elf_bytes


def test_load_elf_errors(tmp_path):
    with pytest.raises(pto.LoadError):
        pto.load_elf(b"not an ELF image")
    with pytest.raises(TypeError):
        pto.load_elf(42)
    with pytest.raises(pto.LoadError, match="No such file"):
        pto.load_elf(tmp_path / "missing.elf")
