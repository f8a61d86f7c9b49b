"""Tiles as numpy arrays: the FP16 TADD against numpy's float16 addition in
the ieee profile, set-up and read-back for every element representation,
definedness (ADR 0014), descriptors and the element converters."""

import numpy as np
import pytest

import pto

TADD = """
        .text
_start: BSTART.VEC TADD, {dtype}
        C.B.DIMI {columns}, ->LB0
        C.B.DIMI {rows}, ->LB1
        B.IOT U#1, U#2, mask=1111, last, ->T<1>
        BSTOP
done:   BSTOP
"""


def run_tadd(m, dtype, rows, columns):
    m.load(pto.assemble(TADD.format(dtype=dtype, rows=rows, columns=columns)))
    return m.run(stop_symbol="done")


def test_fp16_tadd_matches_numpy_in_the_ieee_profile():
    rng = np.random.default_rng(19)
    a = rng.uniform(-1000, 1000, (4, 8)).astype(np.float16)
    b = rng.uniform(-1000, 1000, (4, 8)).astype(np.float16)
    # Rounding and range cases: ties to even (1 + 2^-11), overflow to
    # infinity, subnormals, signed zeros, cancellation.
    a[0, :6] = [1.0, 1.0, 60000, 6e-8, -0.0, 3.140625]
    b[0, :6] = [2.0**-11, 3 * 2.0**-11, 60000, 6e-8, 0.0, -3.140625]
    m = pto.Machine(numeric_profile="ieee")
    m.set_tile("U#1", a)
    m.set_tile("U#2", b)
    r = run_tadd(m, "FP16", 4, 8)
    assert r.reason == "stop-pc", r
    got = m.tile("T#1")
    assert got.dtype == np.float16 and got.pto_dtype == pto.DataType.FP16
    with np.errstate(over="ignore"):
        expected = a + b  # numpy rounds each float16 sum to nearest even
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))
    assert got[0, 0] == 1.0 and got[0, 1] == 1.001953125 and np.isinf(got[0, 2])


def test_set_tile_and_read_back_u32_descriptor():
    m = pto.Machine()
    values = np.arange(12, dtype=np.uint32).reshape(3, 4)
    m.set_tile("T#3", values)
    info = m.tile_info("T#3")
    # 3x4 U32 needs 48 bytes: the smallest Local size, 128 bytes, holds
    # 128 * 8 / (4 * 32) = 8 rows of 4 columns.
    assert info.allocated and info.dtype == pto.DataType.U32
    assert info.shape == (8, 4) and info.valid_shape == (3, 4)
    assert info.capacity_bytes == 128 and info.mask == 0b1111
    assert info.layout == "RowMajor" and info.contents_defined
    np.testing.assert_array_equal(m.tile(2), values)
    assert m.tile_info(2).name == "T#3"


@pytest.mark.parametrize(
    "dtype, values",
    [
        (pto.DataType.S8, np.array([[-128, -1, 0, 127]], dtype=np.int8)),
        (pto.DataType.S64, np.array([[-(2**63), 2**63 - 1]], dtype=np.int64)),
        (pto.DataType.U16, np.array([[0, 65535]], dtype=np.uint16)),
        (pto.DataType.FP64, np.array([[np.pi, -np.inf]], dtype=np.float64)),
        (pto.DataType.FP32, np.array([[1.5, -0.0]], dtype=np.float32)),
        (pto.DataType.S4X2, np.array([[-8, -1, 0, 7]], dtype=np.int8)),
        (pto.DataType.U4X2, np.array([[0, 1, 14, 15]], dtype=np.uint8)),
        (pto.DataType.BF16, np.array([[0x3F80, 0xC000]], dtype=np.uint16)),
        (pto.DataType.E4M3, np.array([[0x38, 0x7E]], dtype=np.uint8)),
        (pto.DataType.E2M1X2, np.array([[0x2, 0x7, 0x9, 0xF]], dtype=np.uint8)),
    ],
)
def test_every_representation_round_trips(dtype, values):
    m = pto.Machine()
    m.set_tile("M#1", values, dtype)
    got = m.tile("M#1")
    assert got.pto_dtype == dtype
    assert got.dtype == values.dtype == dtype.numpy_dtype
    np.testing.assert_array_equal(got, values)


def test_definedness_of_a_partly_written_tile():
    m = pto.Machine()
    defined = np.array([[True, False], [True, True]])
    m.set_tile("U#1", np.array([[1, 2], [3, 4]], dtype=np.uint32), defined=defined)
    m.set_tile("U#2", np.array([[10, 20], [30, 40]], dtype=np.uint32))
    np.testing.assert_array_equal(m.tile_defined("U#1"), defined)
    assert m.tile_defined("U#2").all()
    info = m.tile_info("U#1")
    assert not info.contents_defined and info.defined_valid_elements == 3
    assert m.tile("U#1")[0, 1] == 0  # undefined elements read as zero
    # ADR 0014: a source whose valid region is not wholly defined makes the
    # operation illegal; the destination is rolled back.
    r = run_tadd(m, "U32", 2, 2)
    assert r.reason == "fault"
    assert r.fault.name == "Fault_TileLegality"
    assert not m.tile_info("T#1").allocated


def test_tadd_of_defined_u32_tiles():
    m = pto.Machine()
    m.set_tile("U#1", np.array([[1, 2], [3, 0xFFFFFFFF]], dtype=np.uint32))
    m.set_tile("U#2", np.array([[10, 20], [30, 2]], dtype=np.uint32))
    assert run_tadd(m, "U32", 2, 2).reason == "stop-pc"
    np.testing.assert_array_equal(m.tile("T#1"), [[11, 22], [33, 1]])  # U32 wraps
    assert m.tile_defined("T#1").all()


def test_tile_errors():
    m = pto.Machine()
    with pytest.raises(ValueError, match="not allocated"):
        m.tile("T#1")
    with pytest.raises(ValueError, match="not allocated"):
        m.tile_defined(5)
    assert not m.tile_info("N#16").allocated and m.tile_info("N#16").index == 63
    with pytest.raises(KeyError):
        m.tile("Q#1")
    with pytest.raises(KeyError):
        m.tile("T#17")
    with pytest.raises(IndexError):
        m.tile(64)
    with pytest.raises(TypeError, match="dtype"):
        m.set_tile("T#1", np.array([[True]]))
    with pytest.raises(ValueError, match="does not fit"):
        m.set_tile("T#1", np.zeros((256, 256), dtype=np.uint32))  # 256 KiB > a 64 KiB Local tile
    with pytest.raises(ValueError, match="mask"):
        m.set_tile("T#1", np.zeros((1, 1), dtype=np.uint32), mask=0)
    with pytest.raises(ValueError, match="does not fit"):
        m.set_tile("T#1", np.array([[16]]), pto.DataType.U4X2)


def test_set_tile_follows_the_capacity_budget():
    m = pto.Machine()
    one = np.zeros((1, 1), dtype=np.uint32)  # 64 KiB of one U32 column: 16384 rows
    # Four PEs of 64 KiB use the whole 256 KiB TILE_CAPACITY budget.
    m.set_tile("T#1", one, capacity_bytes=65536)
    with pytest.raises(ValueError, match="TileAllocation"):
        m.set_tile("T#2", one, capacity_bytes=128)
    # Reconfiguring a register gives its own capacity back first: two PEs
    # each leave room for one more pair.
    m.set_tile("T#1", one, capacity_bytes=65536, mask=0b1100)
    m.set_tile("T#2", one, capacity_bytes=65536, mask=0b0011)
    with pytest.raises(ValueError, match="TileAllocation"):
        m.set_tile("T#3", one, capacity_bytes=128, mask=0b0001)


def test_data_type_names():
    assert pto.DataType.from_name("bf16") == pto.DataType.BF16
    assert pto.DataType.from_name("HiF8") == pto.DataType.HiF8
    assert int(pto.DataType.U32) == 25  # the architectural DataType code
    with pytest.raises(KeyError):
        pto.DataType.from_name("FP128")


def test_converters_bf16():
    bf16 = pto.DataType.BF16
    assert bf16.numpy_dtype == np.uint16 and bf16.bits == 16
    got = pto.to_float32(np.array([0x3F80, 0xC000, 0x7F80], dtype=np.uint16), bf16)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [1.0, -2.0, np.inf])
    # 1 + 2^-8 and 1 + 3 * 2^-8 lie halfway: ties go to the even fraction.
    x = np.array([[1.0, 1 + 2.0**-8], [1 + 3 * 2.0**-8, -2.0]], dtype=np.float32)
    np.testing.assert_array_equal(pto.from_float32(x, bf16), [[0x3F80, 0x3F80], [0x3F82, 0xC000]])
    assert pto.from_float32(x, bf16, rounding="RTZ")[1, 0] == 0x3F81
    assert pto.from_float32(x, bf16).shape == (2, 2)


def test_converters_fp8_and_fp4():
    e4m3, e2m1 = pto.DataType.E4M3, pto.DataType.E2M1X2
    np.testing.assert_array_equal(pto.from_float32([1.0, 448.0, -0.5], e4m3), [0x38, 0x7E, 0xB0])
    np.testing.assert_array_equal(pto.to_float32([0x38, 0x7E, 0xB0], e4m3), [1.0, 448.0, -0.5])
    assert e2m1.bits == 4
    np.testing.assert_array_equal(pto.from_float32([1.0, 6.0, -0.5], e2m1), [0x2, 0x7, 0x9])
    np.testing.assert_array_equal(pto.to_float32([0x2, 0x7, 0x9], e2m1), [1.0, 6.0, -0.5])
    with pytest.raises(ValueError, match="does not fit"):
        pto.to_float32([0x10], e2m1)
    with pytest.raises(ValueError, match="rounding"):
        pto.from_float32([1.0], e4m3, rounding="UP")


def test_bf16_tile_through_the_converters():
    m = pto.Machine()
    x = np.array([[0.5, 1.5, -3.0, 100.0]], dtype=np.float32)  # exact in BF16
    m.set_tile("T#1", pto.from_float32(x, pto.DataType.BF16), pto.DataType.BF16)
    t = m.tile("T#1")
    assert t.dtype == np.uint16 and t.pto_dtype == pto.DataType.BF16
    np.testing.assert_array_equal(pto.to_float32(t, t.pto_dtype), x)
