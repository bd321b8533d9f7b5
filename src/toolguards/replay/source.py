"""An input of ``toolguards replay``: a file or stdin, read as binary lines decoded one at a time.

Reading line by line keeps memory flat on inputs of any size. The lines of the first 64 KiB (and the line that runs
past them) are read ahead for format detection without being consumed (this works for stdin too); detection may also
read the whole input, when it is one JSON document, which its importer reads whole anyway. A line that is not UTF-8
raises UnicodeDecodeError as it is reached, and the lines after it still come (``Lines``); read whole, an input that
is not UTF-8 raises InputError at the line and column of its first bad byte. A progress bar (tqdm) over the bytes
read runs on stderr when it is asked for and stderr is a terminal.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from .records import InputError, not_utf8, undecodable

__all__ = ["HEAD_BYTES", "Source"]

HEAD_BYTES = 64 * 1024


class _Prefixed(io.RawIOBase):
    """Serves ``head`` first, then the rest of ``stream``, and reports bytes read to a progress callback."""

    def __init__(self, head: bytes, stream: BinaryIO, progress: Any) -> None:
        super().__init__()
        self._head = memoryview(head)
        self._stream = stream
        self._progress = progress
        self.served = 0  # bytes handed out so far

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._head.nbytes:
            n = min(len(view), self._head.nbytes)
            view[:n] = self._head[:n]
            self._head = self._head[n:]
        else:
            data = self._stream.read(len(view))
            n = len(data)
            view[:n] = data
        self.served += n
        if self._progress is not None and n:
            self._progress.update(n)
        return n


class Source:
    """One replay input; iterate it for its lines (str), or ``read()`` it whole for one-document formats."""

    def __init__(self, path: str, *, progress: bool = False) -> None:
        self.path = path
        self.display = "-" if path == "-" else os.fspath(path)
        stream: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed in close()
        self._owned = path != "-"
        self._stream = stream
        raw: list[bytes] = []
        size = 0
        while size < HEAD_BYTES:
            line = stream.readline()
            if not line:
                break
            raw.append(line)
            size += len(line)
        #: the first lines, each decoded, or its decoding error when it is not UTF-8
        self.head: list[str | UnicodeDecodeError] = [_decoded(line) for line in raw]
        self._head_bytes = b"".join(raw)
        total = None if path == "-" or not progress else os.path.getsize(path)
        self._progress = _progress_bar(self.display, total) if progress else None
        self._prefixed = _Prefixed(self._head_bytes, stream, self._progress)
        self._buffered = io.BufferedReader(self._prefixed, buffer_size=HEAD_BYTES)
        self._whole: io.StringIO | None = None

    def whole(self) -> str:
        """The whole input as text, read before any line is (InputError where it is not UTF-8)."""
        if self._whole is None:
            self._whole = io.StringIO(self._rest(), newline="\n")  # lines split on "\n" alone, as the binary lines
        return self._whole.getvalue()

    def __iter__(self) -> Iterator[str]:
        if self._whole is not None:
            return iter(self._whole)
        return map(bytes.decode, self._buffered)  # C all the way; a bad line raises, the next one still comes

    def read(self) -> str:
        """The rest of the input as text (InputError where it is not UTF-8)."""
        if self._whole is not None:
            return self._whole.read()
        return self._rest()

    def bad_line(self, error: UnicodeDecodeError) -> InputError:
        """The InputError for the line that iterating just found not UTF-8 (an importer that iterates the lines
        itself may let it through: the input then ends there)."""
        if self._whole is not None:  # lines of a text already decoded cannot be bad
            return InputError(self.display, 1, not_utf8(error))
        end = self._prefixed.served - len(self._buffered.peek())  # just past the bad line
        return InputError(self.display, self._line_at(end - len(error.object)), not_utf8(error))

    def _line_at(self, offset: int) -> int:
        if offset <= len(self._head_bytes):
            return self._head_bytes.count(b"\n", 0, offset) + 1
        return _lines_before(self.path, offset) + 1  # lines were read past the head: count them again

    def _rest(self) -> str:
        data = self._buffered.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            start = self._prefixed.served - len(data)  # where the rest starts in the input
            raise undecodable(self.display, exc, self._line_at(start)) from None

    def close(self) -> None:
        """Close the file (not stdin) and the progress bar."""
        if self._progress is not None:
            self._progress.close()
            self._progress = None
        if self._owned:
            self._stream.close()


def _lines_before(path: str, offset: int) -> int:
    if path == "-":
        raise InputError("-", 1, "not UTF-8 text past the first 64 KiB of stdin")
    with open(path, "rb") as again:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: again.read(min(1 << 20, offset - again.tell())), b""))


def _decoded(line: bytes) -> str | UnicodeDecodeError:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc


def _progress_bar(name: str, total: int | None) -> Any:
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # noqa: PLC0415 - only a terminal needs it, and only then is it worth importing

    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=name, file=sys.stderr, leave=False)
