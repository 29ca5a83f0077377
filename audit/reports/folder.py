"""The report folder: written whole into a fresh sibling, then swapped in (issue 10, point 9).

A reader of ``--out`` never sees a mix of two runs, and a failed render leaves
the previous report as it was:

1. every file is written into a fresh sibling folder (``.<name>.new-<random>``);
2. a marker file (:data:`MARKER`) records that the folder is a shoe-audit report
   and lists every file the report wrote;
3. the old folder is moved aside (a rename cannot replace a non-empty folder),
   the new one renamed into place, and the old one removed, file by file,
   deleting only the files its own marker lists. Anything else found in it (a
   file someone put there) is moved into the new report, or, if the new report
   has a file of the same name, left in the aside folder, which is then kept and
   named in :attr:`Swap.kept`.

``--out`` naming a folder that is not empty and has no marker, a file, or a
symbolic link is refused (:class:`audit.errors.UsageError`, exit 2) before
anything is written: it is not ours to replace, and a link's target is not the
folder the user named (issue 29, point 1). A link above ``--out`` is resolved
once, at the start; from then on the swap works on real folders only, and never
deletes through a link (see :func:`audit.targets.file_inside`).

A staging folder is named ``.<name>.new-<host>-<pid>-<random>``; a report
killed mid-render leaves one behind, which the next report into the same parent
folder removes once that process is gone (:func:`remove_stale_staging`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from audit.errors import UsageError
from audit.targets import check_target, file_inside, is_real_dir

MARKER = ".shoe-audit-report"
"""The marker file at the top of every report folder: JSON, ``{"tool": "shoe-audit",
"files": [relative paths, sorted]}``."""


@dataclass
class Staging:
    """A fresh folder the report is written into; :meth:`write` records each file, and
    the SHA-256 of the bytes it wrote (``digests``, for ``SHA256SUMS``)."""

    root: Path
    files: list[str] = field(default_factory=list)
    digests: dict[str, str] = field(default_factory=dict)

    def write(self, rel: str, text: str) -> Path:
        """Write ``text`` as UTF-8 (``\\n`` line ends) at ``rel`` under the folder."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        self.digests[rel] = write_text(path, text)
        self.files.append(rel)
        return path

    def add(self, written: Mapping[str, str]) -> None:
        """Record files written into the folder by someone else (a worker process): each
        one's path under the folder, and the SHA-256 of the bytes written."""
        self.files.extend(written)
        self.digests.update(written)


def write_text(path: Path, text: str) -> str:
    """Write ``text`` at ``path`` as UTF-8, as it is (``\\n`` line ends stay ``\\n``);
    return the SHA-256 of the bytes written (a report's ``SHA256SUMS`` lists it, so
    the folder's ten thousand pages are not read back to be hashed)."""
    data = text.encode("utf-8")
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Swap:
    """What :func:`report_folder` did.

    Attributes:
        out: the report folder.
        files: every file the report wrote, relative to ``out``, sorted.
        kept: an aside folder left in place because it held files the report did
            not write and the new report has files of the same names; else None.
    """

    out: Path
    files: tuple[str, ...]
    kept: Path | None = None


def read_marker(folder: Path) -> list[str] | None:
    """The files a report folder's marker lists, or None when ``folder`` has no marker."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("tool") != "shoe-audit":
        return None
    files = data.get("files")
    return [str(f) for f in files] if isinstance(files, list) else []


def check_out(out: Path) -> None:
    """Refuse ``out`` (:class:`UsageError`) unless it is missing, an empty folder, or a
    report folder; a symbolic link is refused whatever it points to."""
    check_target(out, "--out", "folder")
    if out.is_dir() and read_marker(out) is None and any(out.iterdir()):
        raise UsageError(
            f"--out {str(out)!r} is a folder that is not empty and holds no shoe-audit report "
            f"(no {MARKER} file): choose an empty or new folder"
        )


@contextmanager
def report_folder(out: Path, result: list[Swap]) -> Iterator[Staging]:
    """Stage a report for ``out``; on a clean exit swap it in and append a :class:`Swap`.

    On an exception the staging folder is removed and ``out`` is left untouched.
    """
    out = Path(out)
    check_out(out)
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    # Links above --out are followed here, once: the swap then works in real folders,
    # so a link repointed while the report renders cannot redirect it.
    real = Path(os.path.realpath(out))
    check_out(real)
    remove_stale_staging(real.parent)
    token = f"{_HOST}-{os.getpid()}-{secrets.token_hex(4)}"
    stage = Staging(real.parent / f".{real.name}.new-{token}")
    stage.root.mkdir()
    try:
        yield stage
        stage.files.sort()
        stage.write(MARKER, json.dumps({"tool": "shoe-audit", "files": stage.files}, indent=1))
        stage.files.remove(MARKER)
        swap = _swap(stage, real, real.parent / f".{real.name}.old-{token}")
        result.append(Swap(out, swap.files, swap.kept))
    except BaseException:
        shutil.rmtree(stage.root, ignore_errors=True)
        raise


_HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "surrogatepass")).hexdigest()[:8]
"""This machine, in a staging folder's name: a pid means something only on its own host
(a report folder on a network share may be staged from two machines)."""

_STAGING = re.compile(r"\.(?P<name>.+)\.new-(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]+)-[0-9a-f]{8}")


def remove_stale_staging(parent: Path) -> list[Path]:
    """Remove the staging folders in ``parent`` left by reports whose process is gone.

    Only folders named as :func:`report_folder` names them, staged on this machine by
    a process that no longer exists; one a running report is still writing (its
    process is alive), one staged elsewhere, and anything else are left alone.
    Returns the folders removed.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        m = _STAGING.fullmatch(entry.name)
        if m is None or m["host"] != _HOST or not entry.is_dir(follow_symlinks=False):
            continue
        if _alive(int(m["pid"])):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)  # never follows a link inside
        removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (a zombie counts: not reaped yet)."""
    if pid <= 0:
        return True  # not a pid we wrote: leave the folder alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or a number no pid can be
    return True


def _swap(stage: Staging, out: Path, aside: Path) -> Swap:
    check_out(out)  # again: something may have appeared there while we rendered
    files = tuple(stage.files)
    if not os.path.lexists(out):
        os.replace(stage.root, out)
        return Swap(out, files)
    old = read_marker(out) or []
    os.replace(out, aside)
    if not is_real_dir(aside):  # out became a link after the check: put it back, refuse
        os.replace(aside, out)
        check_out(out)
        raise UsageError(f"--out {str(out)!r} changed while the report was written")
    try:
        os.replace(stage.root, out)
    except BaseException:
        os.replace(aside, out)
        raise
    for name in {*old, MARKER}:
        mine = file_inside(aside, name)
        if mine is not None:
            mine.unlink()
    conflict = False
    # rglob does not descend into linked folders; a link is moved (or kept) as a link
    for p in sorted(aside.rglob("*"), key=lambda q: len(q.parts)):
        if p.is_dir() and not p.is_symlink():
            continue
        rel = p.relative_to(aside)
        target = out / rel
        if target.exists() or target.is_symlink():
            conflict = True
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(p, target)
    for d in sorted((q for q in aside.rglob("*") if is_real_dir(q)), key=lambda q: -len(q.parts)):
        if not any(d.iterdir()):
            d.rmdir()
    if conflict or any(aside.iterdir()):
        return Swap(out, files, kept=aside)
    aside.rmdir()
    return Swap(out, files)
