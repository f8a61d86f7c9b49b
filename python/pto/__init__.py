"""The PTO tile ISA from Python: assemble, decode and disassemble programs and
run them on libpto's functional simulator, with tiles as numpy arrays.

See docs/python.md for a tutorial.
"""

import numpy as _np

from ._pto import (
    AssemblyError,
    DataType,
    Error,
    HostMemoryError,
    Instruction,
    LoadError,
    Machine,
    Program,
    RunResult,
    assemble,
    decode,
    disassemble,
    from_float32,
    load_elf,
    release,
    to_float32,
)

__version__ = release


class TileArray(_np.ndarray):
    """A numpy array of tile elements that remembers their pto.DataType.

    Machine.tile returns one: ``a.pto_dtype`` is the element type, which tells
    raw carriers (BF16 as uint16, FP8 as uint8 ...) from plain integers.
    """

    pto_dtype = None

    def __array_finalize__(self, obj):
        self.pto_dtype = getattr(obj, "pto_dtype", None)


__all__ = [
    "AssemblyError",
    "DataType",
    "Error",
    "HostMemoryError",
    "Instruction",
    "LoadError",
    "Machine",
    "Program",
    "RunResult",
    "TileArray",
    "assemble",
    "decode",
    "disassemble",
    "from_float32",
    "load_elf",
    "release",
    "to_float32",
]
