"""tern's exceptions: one class per tern::StatusCode (runtime/include/tern/status.h), each carrying the
library's one-line message (what was wrong and where: file, tensor, offset, line) and its ``code``.

Classes that mean what a built-in exception means also derive from it, so ``except ValueError`` and
``except OSError`` catch them too.
"""


class TernError(Exception):
    """Base class of every error tern raises. ``code``: the tern::StatusCode number; ``message``: the text."""

    code = -1

    def __init__(self, message=""):
        super().__init__(message)
        self.message = message


class InvalidArgumentError(TernError, ValueError):
    """A caller's value is out of range: options, limits, an input text (invalid UTF-8, too many tokens)."""

    code = 1


class NotFoundError(TernError, FileNotFoundError):
    """A file or a tensor that must exist does not."""

    code = 2


class IoError(TernError, OSError):
    """open/read/write/mmap/rename failed."""

    code = 3


class InvalidModelError(TernError):
    """A .tern file or a checkpoint failed a check (size, identifier, verifier, shapes)."""

    code = 4


class UnsupportedError(TernError):
    """A newer format version, an activation or a config key tern cannot honour."""

    code = 5


class ResourceExhaustedError(TernError):
    """The input does not fit the Translator's limits, or memory could not be obtained."""

    code = 6


class InternalError(TernError):
    """An XNNPACK or pthreadpool call failed."""

    code = 7


class BusyError(TernError):
    """The object is in use by another call."""

    code = 8


class CancelledError(TernError):
    """The call was stopped: a callback returned True, a CancelToken was cancelled. ``results`` holds what
    the call produced: sentences that finished have their hypotheses, the others the error."""

    code = 9

    def __init__(self, message="", results=None):
        super().__init__(message)
        self.results = results if results is not None else []


BY_CODE = {c.code: c for c in (InvalidArgumentError, NotFoundError, IoError, InvalidModelError, UnsupportedError,
                               ResourceExhaustedError, InternalError, BusyError, CancelledError)}
