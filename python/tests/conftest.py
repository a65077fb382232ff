"""pytest options and fixtures of halox's Python tests. They run under mpirun at any rank count:
every rank runs every test, and the collective calls meet.
    mpirun -np 4 python3 -m pytest -q python/tests --halox-lib build/libhalox.so --halox-cli build/halox"""
import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--halox-lib", default=None, help="libhalox.so to test (default: found as installed)")
    parser.addoption("--halox-cli", default=None, help="the halox command, for checks against `halox reference`")


def pytest_configure(config):
    import halox
    path = config.getoption("--halox-lib")
    halox.load(path)


@pytest.fixture(scope="session")
def comm():
    from mpi4py import MPI
    return MPI.COMM_WORLD


@pytest.fixture(scope="session")
def ctx(comm):
    import halox
    c = halox.Context(comm, backend="cpu", threads=1)
    yield c
    c.close()


@pytest.fixture(scope="session")
def cli(request):
    p = request.config.getoption("--halox-cli")
    if not p or not os.path.exists(p):
        pytest.skip("no halox command given (--halox-cli)")
    return p


def need(symbol):
    """Skip, with the reason, when the loaded libhalox lacks a C function."""
    import halox
    if not halox.has(symbol):
        pytest.skip("libhalox lacks %s" % symbol)
