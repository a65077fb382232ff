"""halox's exceptions."""


class Error(RuntimeError):
    """A halox call failed: the message is the library's one line (hx_context_error); `status` is the
    C status (2 input, 3 runtime, 4 verify; 0 when Python itself found the fault)."""

    def __init__(self, message, status=0):
        super().__init__(message)
        self.status = status


class Unsupported(Error):
    """The loaded libhalox lacks a function or feature this call needs (an older build)."""
