"""Fixtures for the Python package's tests (tests/CMakeLists.txt runs them with PYTHONPATH at the built
package and these paths in the environment)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _path(var, default):
    return pathlib.Path(os.environ.get(var, default))


@pytest.fixture(scope="session")
def model_path():
    return _path("TERN_BUNDLED_MODEL", ROOT / "models/en-de/en-de.int8.tern")


@pytest.fixture(scope="session")
def checkpoint_dir():
    return ROOT / "models/en-de/checkpoint"


@pytest.fixture(scope="session")
def cli():
    p = _path("TERN_CLI", ROOT / "build/targets/desktop/tern")
    if not p.exists():
        pytest.skip("the tern CLI is not built: %s" % p)
    return p


@pytest.fixture(scope="session")
def test_set():
    shared = _path("TERN_SHARED_DIR", ROOT.parent / "shared")  # the data beside the repository, if any
    p = _path("TERN_DATA", shared / "data/multi30k") / "test_2016_flickr.en"
    if not p.exists():
        pytest.skip("Multi30k is not beside the repository: %s" % p)
    return p


@pytest.fixture(scope="session")
def model(model_path):
    import tern

    return tern.Model.load(model_path)


@pytest.fixture(scope="session")
def translator(model):
    import tern

    return tern.Translator(model, threads=1)
