"""Finding TEL/1 files and reading them as batches of lines, in bounded memory.

A file is read in blocks of bytes; each batch holds whole lines only (a line
cut by a block boundary waits for the next block). The reader, not DuckDB,
deals with what cannot become a DuckDB string: invalid UTF-8 (the line is
blanked out of the batch and reported) and a line so long that it would
not fit in memory (it is skipped to its end, counted, and reported "line
too long"). Lines longer than 1 MB that fit in a batch are rejected by the
bulk step.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from audit.errors import MalformedEventError, NoLogsError
from audit.events.parse import MAX_LINE_BYTES, parse_line

BLOCK_BYTES = 8 << 20
"""Bytes read from a file at a time."""
BATCH_BYTES = 96 << 20
"""Bytes of lines handed to DuckDB at a time (bounded memory per batch), and about the most
bytes of small files one transaction takes (:func:`audit.ingest.pipeline._groups`).

Each batch costs a fixed ~0.3 s (planning, the threads' ramp-up and tail): at 1M events
in one file, under the 1GB limit of the time, 48 MB took 5.7 s and 600 MB peak RSS, 96 MB
5.0 s and 720 MB. Under ingest's 256MB (issue 33), in CPU seconds, one process each in
the same session, 48 MB costs the same and holds less, and less of it grows with the
night: the 100,000-round night's 529 files 48.3 against 50.2 CPU-s (medians of 3), 518
against 566 MiB; the 300,000-round night's 155.5 against 155.3 CPU-s, 542 against 609
MiB (+4.6% over 100,000 rounds, against +7.6%); 2,061,651 events in one 346 MB file
29.9-31.1 against 30.0-30.7 CPU-s, 546-561 against 699-701 MiB. But on the month (616
small files, fewer grouped per transaction at 48 MB), on a quiet machine, one process at a
time, alternately: 48 MB 42.7 and 40.3 s wall (50.3 and 47.7 CPU-s), 96 MB 36.5 and 37.8 s
(42.2 and 43.7 CPU-s), for 521-534 against 540-548 MiB: 96 MB kept."""
BATCH_LINES = 1_000_000
"""Lines handed to DuckDB at a time, at most: with BATCH_BYTES, it bounds a
batch's memory whatever the lines hold (a file of tiny lines has millions of
them in BATCH_BYTES; an ordinary one ~500,000)."""
BLANK_RUN = 64
"""A run of at least this many blank lines is left out of the batch: blank
lines are ignored (event-log.md) and cost nothing, however many there are.
Shorter runs go to DuckDB with the other lines, which skips them."""
RAW_KEEP = 10_000
"""Characters of a rejected line kept in quarantine."""

SUFFIXES = (".jsonl", ".jsonl.gz")
BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte-order mark at the start of a file is ignored (event-log.md, TEL/1 v1.1)."""


@dataclass(slots=True)
class Reject:
    """A line the reader rejected itself (not valid UTF-8, or too long)."""

    line_no: int
    reason: str
    raw: str


@dataclass(slots=True)
class Batch:
    """Whole lines ``first_line``, ``first_line + 1``, ... of a file."""

    first_line: int
    blocks: list[bytes]
    """Each block holds complete lines separated by ``\\n``, valid UTF-8."""
    block_first_lines: list[int]
    lines: int
    """Lines of the file the batch spans (long runs of blank lines included)."""
    rejects: list[Reject] = field(default_factory=list)
    kept: int = 0
    """Lines in ``blocks`` (what DuckDB will see)."""
    read_bytes: int = 0
    """Bytes of the file read when the batch was cut (of the gzip, for a gzip): progress."""


class FileError(Exception):
    """A file could not be read to its end (unreadable, truncated gzip)."""


@dataclass(slots=True)
class Found:
    """The log files named by some paths, and the folders that could not be listed."""

    files: list[Path]
    unlisted: list[tuple[Path, str]] = field(default_factory=list)
    """Folders (or sub-folders) whose entries could not be read: (folder, why)."""


def find_logs(paths: Iterable[str | os.PathLike[str]]) -> Found:
    """The log files named by ``paths``: files as given, folders searched recursively.

    A folder's ``*.jsonl``/``*.jsonl.gz`` entries are taken whatever they are
    (the reader reads only regular files and names the others); symlinked
    sub-folders are followed, each real folder once (so a loop ends).
    Raises :class:`NoLogsError` for a path that does not exist or a folder
    without ``*.jsonl``/``*.jsonl.gz``. Files are returned in a stable order
    (as given; within a folder, sorted), each once.
    """
    out: dict[Path, None] = {}
    unlisted: list[tuple[Path, str]] = []
    given = list(paths)
    if not given:
        raise NoLogsError("no path given: name TEL/1 files or folders")
    for raw in given:
        p = Path(raw)
        if p.is_dir():
            found, bad = _walk(p)
            unlisted += bad
            if not found and not bad:
                raise NoLogsError(f"no *.jsonl or *.jsonl.gz files in folder {str(p)!r}")
            out.update(dict.fromkeys(sorted(found)))
        elif p.exists() or p.is_symlink():
            out[p] = None
        else:
            raise NoLogsError(f"no such file or folder: {str(p)!r}")
    return Found(list(out), unlisted)


def _walk(folder: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Every log file under ``folder`` (symlinks followed, each real folder once)."""
    files: list[Path] = []
    unlisted: list[tuple[Path, str]] = []
    seen: set[tuple[int, int]] = set()
    stack = [folder]
    while stack:
        d = stack.pop()
        try:
            st = os.stat(d)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            with os.scandir(d) as it:
                entries = list(it)
        except OSError as exc:
            unlisted.append((d, f"cannot list folder: {exc.strerror or exc}"))
            continue
        subfolders = []
        for e in sorted(entries, key=lambda e: e.name):
            try:
                is_dir = e.is_dir()  # follows a symlink
            except OSError:
                is_dir = False
            if is_dir:
                subfolders.append(Path(e.path))
            elif e.name.endswith(SUFFIXES):
                files.append(Path(e.path))
        # In name order, so that of two ways to one folder the first by name is kept.
        stack += reversed(subfolders)
    return files, unlisted


class _HashingReader:
    """Wraps a binary file: hashes and counts every byte read through it."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.sha = hashlib.sha256()
        self.size = 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.sha.update(data)
        self.size += len(data)
        return data

    def readinto(self, b: bytearray | memoryview) -> int:  # pragma: no cover - not used by gzip
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def seekable(self) -> bool:
        return False

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.raw.close()


def _reason(line: bytes) -> str:
    try:
        parse_line(line)
    except MalformedEventError as exc:
        return exc.reason
    return "rejected"  # pragma: no cover - callers pass only lines parse_line rejects


def _decode_block(block: bytes, first_line: int, rejects: list[Reject]) -> bytes:
    """The block with invalid UTF-8 lines blanked (line numbers kept), rejects noted."""
    if block.isascii():
        return block
    try:
        block.decode("utf-8")
        return block
    except UnicodeDecodeError:
        pass
    lines = block.split(b"\n")
    for i, line in enumerate(lines):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            rejects.append(
                Reject(first_line + i, _reason(line), line[:RAW_KEEP].decode("utf-8", "replace"))
            )
            lines[i] = b""
    return b"\n".join(lines)


# A run of whitespace long enough to hold BLANK_RUN blank lines. (A class repeated,
# not a group: Python's re keeps no state per repetition, so a run of millions of
# newlines costs no memory.)
_SPACE_RUN = re.compile(rb"[ \t\r\n]{%d,}" % BLANK_RUN)


def _chunks(
    text: bytes, first_line: int, lines: int | None = None
) -> Iterator[tuple[int, bytes, int]]:
    """``text``'s lines in chunks of at most BATCH_LINES lines: (first line, bytes, lines)."""
    if lines is None:
        lines = text.count(b"\n") + 1
    start = 0
    while lines > BATCH_LINES:
        # Cut near where the BATCH_LINES-th line should end, halving until it fits.
        span = (len(text) - start) * BATCH_LINES // lines
        while True:
            cut = text.rfind(b"\n", start, start + max(span, 1))
            n = text.count(b"\n", start, cut) + 1 if cut > start else 0
            if 0 < n <= BATCH_LINES:
                break
            if cut <= start:  # the first line alone is longer than span
                cut = text.index(b"\n", start)
                n = 1
                break
            span //= 2
        yield first_line, text[start:cut], n
        first_line += n
        lines -= n
        start = cut + 1
    yield first_line, text[start:] if start else text, lines


def _pieces(block: bytes, first_line: int, lines: int) -> Iterator[tuple[int, bytes, int]]:
    """The block's ``lines`` lines without long runs of blank lines, in chunks DuckDB takes
    at once. Yields (first line, bytes, lines); line numbers stay those of the file.
    """
    # The usual case, a line per object: a run of blank lines needs BLANK_RUN lines
    # without a "{" (two C-speed counts rule it out; a regex scan costs 10x more).
    if block.count(b"{") + BLANK_RUN > lines:
        yield from _chunks(block, first_line, lines)
        return
    start, line = 0, first_line
    for m in _SPACE_RUN.finditer(block):
        # The whole lines inside the run are blank: those after its first newline
        # (or from the block's start) up to its last newline.
        head = -1 if m.start() == 0 else block.find(b"\n", m.start(), m.end())
        tail = block.rfind(b"\n", m.start(), m.end())
        blank = block.count(b"\n", head + 1, tail + 1) if tail >= 0 else 0
        if blank < BLANK_RUN:
            continue
        if head >= 0:
            text = block[start:head]
            if text.strip(b" \t\r\n"):
                yield from _chunks(text, line)
            line += text.count(b"\n") + 1
        line += blank
        start = tail + 1
    rest = block[start:] if start else block
    if rest.strip(b" \t\r\n"):
        yield from _chunks(rest, line)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"  # pragma: no cover - no other kind on Linux


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading, when it is a regular file (after symlinks).

    Anything else (a FIFO, ``/dev/zero``, a socket) would hang or never end:
    it is opened without blocking, seen for what it is, and refused with
    :class:`FileError` ("not a regular file (a FIFO); skipped").
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileError(f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FileError(f"not a regular file ({_kind(mode)}); skipped")
        os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)  # the caller closes it
    except BaseException:
        os.close(fd)
        raise


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes as stored (a gzip's compressed bytes), as LogReader has it."""
    with open_regular(path) as f:
        hashing = _HashingReader(f)
        while hashing.read(BLOCK_BYTES):
            pass
    return hashing.sha.hexdigest()


class LogReader:
    """Reads one file as :class:`Batch` es; then ``sha256``, ``size`` and ``lines``.

    Raises :class:`FileError` when the file cannot be read to its end; the
    batches yielded before stay valid (a truncated gzip keeps the lines read
    before the damage).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = 0
        self._hash: _HashingReader | None = None
        self._pending: FileError | None = None

    @property
    def opened(self) -> bool:
        """Whether the file could be opened (so a later error is partial)."""
        return self._hash is not None

    @property
    def sha256(self) -> str:
        assert self._hash is not None
        return self._hash.sha.hexdigest()

    @property
    def size(self) -> int:
        assert self._hash is not None
        return self._hash.size

    def _read_bytes(self) -> int:
        return self._hash.size if self._hash is not None else 0

    def _open(self) -> tuple[_HashingReader, BinaryIO]:
        raw = open_regular(self.path)
        hashing = _HashingReader(raw)
        head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
        if head == b"\x1f\x8b" or self.path.name.endswith(".gz"):
            return hashing, gzip.GzipFile(fileobj=hashing, mode="rb")  # type: ignore[call-overload]
        return hashing, hashing  # type: ignore[return-value]

    def batches(self) -> Iterator[Batch]:
        hashing, stream = self._open()
        self._hash = hashing
        try:
            yield from self._batches(stream)
        finally:
            hashing.close()

    def _read(self, stream: BinaryIO) -> bytes:
        """Up to a block of bytes; b"" at the end.

        A gzip stream is read with ``read1`` (what one step decompresses), so
        that when the stream turns out damaged, the bytes decompressed before
        the damage are still handed back; the error comes on the next call.
        """
        if self._pending is not None:
            raise self._pending
        read1 = getattr(stream, "read1", None)
        if read1 is None or not isinstance(stream, gzip.GzipFile):
            try:
                return stream.read(BLOCK_BYTES)
            except OSError as exc:
                raise FileError(f"cannot read: {exc.strerror or exc}") from None
        parts: list[bytes] = []
        size = 0
        while size < BLOCK_BYTES:
            try:
                part = read1(BLOCK_BYTES - size)
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                self._pending = FileError(f"damaged gzip ({exc}); the lines before it were read")
                break
            except OSError as exc:
                self._pending = FileError(f"cannot read: {exc.strerror or exc}")
                break
            if not part:
                break
            parts.append(part)
            size += len(part)
        if not parts and self._pending is not None:
            raise self._pending
        return b"".join(parts)

    def _batches(self, stream: BinaryIO) -> Iterator[Batch]:
        line_no = 1  # the number of the next line to start
        carry = b""
        batch = Batch(1, [], [], 0)
        batch_bytes = 0
        skipping: Reject | None = None
        skipped = 0
        eof = False
        first = True
        while not eof:
            try:
                data = self._read(stream)
            except FileError:
                # What was complete before the damage goes in; a cut line does not.
                if batch.lines or batch.rejects:
                    self.lines = line_no - 1
                    batch.read_bytes = self._read_bytes()
                    yield batch
                raise
            eof = not data
            if first:
                # A block is far longer than a BOM, so the first one holds it whole.
                data = data.removeprefix(BOM)
                first = False
            if skipping is not None:
                nl = data.find(b"\n")
                if nl < 0 and not eof:
                    skipped += len(data)
                    continue
                skipped += nl if nl >= 0 else len(data)
                skipping.reason = f"line too long ({skipped:,} bytes; the limit is 1 MB)"
                batch.rejects.append(skipping)
                skipping = None
                line_no += 1
                batch.lines = line_no - batch.first_line
                data = data[nl + 1 :] if nl >= 0 else b""
            buf = carry + data if carry else data
            cut = buf.rfind(b"\n") if not eof else len(buf)
            if cut < 0:
                carry = buf
                if len(carry) > MAX_LINE_BYTES + 1:
                    skipping = Reject(line_no, "", carry[:RAW_KEEP].decode("utf-8", "replace"))
                    skipped = len(carry)
                    carry = b""
                continue
            block, carry = buf[:cut], buf[cut + 1 :]
            n = 0 if eof and not block else block.count(b"\n") + 1
            for first_of, piece, count in _pieces(block, line_no, n) if n else ():
                if batch.kept and (
                    batch.kept + count > BATCH_LINES or batch_bytes + len(piece) > BATCH_BYTES
                ):
                    batch.lines = first_of - batch.first_line
                    self.lines = first_of - 1
                    batch.read_bytes = self._read_bytes()
                    yield batch
                    batch = Batch(first_of, [], [], 0)
                    batch_bytes = 0
                batch.blocks.append(_decode_block(piece, first_of, batch.rejects))
                batch.block_first_lines.append(first_of)
                batch.kept += count
                batch_bytes += len(piece)
            line_no += n
            batch.lines = line_no - batch.first_line
        if batch.lines or batch.rejects:
            self.lines = line_no - 1
            batch.read_bytes = self._read_bytes()
            yield batch
        self.lines = line_no - 1
