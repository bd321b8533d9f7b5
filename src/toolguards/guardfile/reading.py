"""Reading guard files and templates: small regular files only, read without ever blocking, decoded as UTF-8.

A guard file is a regular file of at most ``MAX_BYTES`` (1 MiB), a template one of at most ``MAX_TEMPLATE_BYTES``
(64 KiB: Jinja takes seconds to compile that much template code; the shipped templates are under 400 bytes). Anything
else is refused before a byte is read: a named pipe would block the reader until something writes to it, a device
(``/dev/zero``) never ends, and a file of a hundred megabytes would be parsed for minutes before any other problem
could be reported. The kind and size are checked with ``stat`` before the file is opened, and again on the open file
(opened non-blocking), so a path swapped in between cannot slip through either; a file that grows while it is read is
read no further than the limit.

Positions count as the YAML reader counts them: a line ends at LF, CR LF or a lone CR; a column is a code point (a tab
is one); a byte-order mark takes no column.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable

__all__ = [
    "MAX_BYTES",
    "MAX_TEMPLATE_BYTES",
    "FileRefused",
    "NotUtf8",
    "decode_utf8",
    "position_of",
    "read_guard_file",
    "read_small_file",
    "size_limit",
]

MAX_BYTES = 1024 * 1024
MAX_TEMPLATE_BYTES = 64 * 1024

_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
# Neither exists on every system; where O_NONBLOCK is missing (Windows) there are no named pipes to open either.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class FileRefused(Exception):
    """A file that is not read: not a regular file (``kind`` says what it is), or larger than its limit (``size``)."""

    def __init__(self, *, kind: str | None = None, size: int | None = None) -> None:
        self.kind = kind
        self.size = size
        super().__init__(f"not a regular file ({kind})" if kind is not None else f"{size} bytes")


class NotUtf8(ValueError):
    """Bytes that are not UTF-8: the first bad byte, and its 1-based line and column."""

    def __init__(self, byte: int, line: int, column: int) -> None:
        self.byte, self.line, self.column = byte, line, column
        super().__init__(f"the file is not UTF-8 text (byte 0x{byte:02x})")


def size_limit(limit: int) -> str:
    """``1048576 bytes (1 MiB)``, ``65536 bytes (64 KiB)``."""
    if limit % (1024 * 1024) == 0:
        return f"{limit} bytes ({limit // (1024 * 1024)} MiB)"
    return f"{limit} bytes ({limit // 1024} KiB)"


def _refuse(mode: int, size: int, limit: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "an unknown kind of file")
        raise FileRefused(kind=kind)
    if size > limit:
        raise FileRefused(size=size)


def read_small_file(path: str | os.PathLike[str], limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; raises FileRefused (or OSError, ValueError) otherwise."""
    try:
        info = os.stat(path)
    except ValueError as exc:
        # A NUL character in the path: one wording on every version (3.13 says "stat: embedded null character in
        # path" where 3.10 to 3.12 say "embedded null byte").
        raise ValueError("embedded null byte") from exc
    _refuse(info.st_mode, info.st_size, limit)
    descriptor = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(descriptor)  # the path may have been replaced since the first look
        _refuse(info.st_mode, info.st_size, limit)
        chunks: list[bytes] = []
        read = 0
        while read <= limit:  # the file may grow while it is read
            chunk = os.read(descriptor, limit + 1 - read)
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
        if read > limit:
            raise FileRefused(size=max(read, os.fstat(descriptor).st_size))
    finally:
        os.close(descriptor)
    return b"".join(chunks)


def read_guard_file(display: str, path: str | os.PathLike[str]) -> bytes:
    """The bytes of a guard file; raises ConfigError with one diagnostic when it cannot or must not be read."""
    position: tuple[int | None, int | None] = (1, 1)
    try:
        return read_small_file(path)
    except FileRefused as refused:
        if refused.kind is not None:
            position, message = (None, None), f"not a regular file ({refused.kind})"
        else:
            message = f"the file is {refused.size} bytes; a guard file may be at most {size_limit(MAX_BYTES)}"
    except OSError as exc:
        message = f"cannot read the file: {exc.strerror or exc}"
    except ValueError as exc:  # a path with a NUL character in it
        message = f"cannot read the file: {exc}"
    from .diagnostics import ConfigError, Diagnostic  # noqa: PLC0415 - a hook that reads its file never needs them

    raise ConfigError([Diagnostic(display, *position, message)])


def position_of(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of ``text[index]``."""
    line, start = 1, 0
    for match in _LINE_BREAK.finditer(text, 0, index):
        line, start = line + 1, match.end()
    before = text[start:index]
    return line, len(before) - before.count("\ufeff") + 1


def decode_utf8(raw: bytes) -> str:
    """``raw`` as text; raises NotUtf8 at the first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8")  # valid up to there
        line, column = position_of(before, len(before))
        raise NotUtf8(raw[exc.start], line, column) from None
