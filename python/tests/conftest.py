import os
import pathlib

import pytest

# ctest passes the checkout; run by hand from python/tests it is two levels up.
SOURCE_DIR = pathlib.Path(os.environ.get("PTO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def source_dir():
    return SOURCE_DIR


@pytest.fixture
def tadd_source():
    return (SOURCE_DIR / "examples" / "tadd.s").read_text()
