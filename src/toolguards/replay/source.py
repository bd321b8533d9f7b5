"""An input of ``toolguards replay``: a file or stdin, read as binary lines decoded one at a time.

Reading line by line keeps memory flat on inputs of any size; the first 64 KiB are kept aside for format detection
without consuming them (this works for stdin too); a progress bar (tqdm) runs on stderr when stderr is a terminal.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from .records import InputError

__all__ = ["HEAD_BYTES", "Source"]

HEAD_BYTES = 64 * 1024


class _Prefixed(io.RawIOBase):
    """Serves ``head`` first, then the rest of ``stream``, and reports bytes read to a progress callback."""

    def __init__(self, head: bytes, stream: BinaryIO, progress: Any) -> None:
        super().__init__()
        self._head = memoryview(head)
        self._stream = stream
        self._progress = progress

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
        if self._progress is not None and n:
            self._progress.update(n)
        return n


class Source:
    """One replay input; iterate it for its lines (str), or ``read()`` it whole for one-document formats."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.display = "-" if path == "-" else os.fspath(path)
        self.line = 0
        stream: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed in close()
        self._owned = path != "-"
        self._stream = stream
        chunks = []
        size = 0
        while size < HEAD_BYTES:
            chunk = stream.read(HEAD_BYTES - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        head = b"".join(chunks)
        self.head = head.decode("utf-8", "replace")
        self._progress = _progress_bar(self.display, None if path == "-" else os.path.getsize(path))
        self._buffered = io.BufferedReader(_Prefixed(head, stream, self._progress), buffer_size=HEAD_BYTES)

    def __iter__(self) -> Iterator[str]:
        for raw in self._buffered:
            self.line += 1
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                message = f"the line is not UTF-8 text (byte 0x{raw[exc.start]:02x})"
                raise InputError(self.display, self.line, message) from None

    def read(self) -> str:
        """The whole input as text."""
        data = self._buffered.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            message = f"the input is not UTF-8 text (byte 0x{data[exc.start]:02x})"
            raise InputError(self.display, line, message) from None

    def close(self) -> None:
        """Close the file (not stdin) and the progress bar."""
        if self._progress is not None:
            self._progress.close()
            self._progress = None
        if self._owned:
            self._stream.close()


def _progress_bar(name: str, total: int | None) -> Any:
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # noqa: PLC0415 - only a terminal needs it, and only then is it worth importing

    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=name, file=sys.stderr, leave=False)
