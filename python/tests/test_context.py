"""Context: a Fortran communicator handle, the log callback, what the context reports."""
import halox


def test_fortran_handle_and_log(comm):
    got = []
    with halox.Context(comm.py2f(), backend="cpu", threads=1, log_level="info",
                       log=lambda level, rank, msg: got.append((level, rank, msg))) as c:
        assert (c.rank, c.size) == (comm.rank, comm.size)
        assert c.backend == "cpu" and c.device == -1 and c.threads == 1 and not c.cuda
        with halox.Layout(c, (8, 8)) as lay, halox.Exchange(lay, transport="auto") as x:
            assert x.transport == "mpi"
        # rank 0 says what "auto" picked, through the callback only
        if c.rank == 0:
            assert any(lv == "info" and r == 0 and "transport auto: mpi" in m for lv, r, m in got), got
        c.sync()
        assert c.error() == ""


def test_library_facts():
    assert halox.library_version().count(".") == 2
    assert "mpi" in halox.transports()
    assert halox.has("hx_exchange_run") and not halox.has("hx_no_such_function")


def test_close_is_idempotent(comm):
    c = halox.Context(comm, backend="cpu")
    lay = halox.Layout(c, (8, 8))
    c.close()          # closes the layout first
    assert lay._h is None
    c.close()
