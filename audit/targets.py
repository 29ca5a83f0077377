"""Where an ``--out`` may point (issue 29, points 1 and 11b).

Every command that writes files (``report``, ``nightly``, ``hand --out``,
``schema``, ``simulate``, ``export --parquet``) checks its target here first, so
they refuse the same things the same way: a value the command does not allow is a
:class:`audit.errors.UsageError` (exit 2, nothing touched); a target the file system
will not let us write (permission denied, read-only, disk full) fails later, as
the operating system says, a runtime error (exit 1).

Refused:

- a symbolic link as the target itself (live or dangling): writing through it
  would write into, or delete from, a folder the user did not name; replacing it
  would lose the link. A link *above* the target (``--out link/sub``) is followed:
  it only says where the target lives, and the writer resolves it once, before it
  writes anything;
- a target whose nearest existing ancestor is a file (``--out notes.txt/report``);
- a file where a folder is needed, or a folder where a file is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

from audit.errors import UsageError

Kind = Literal["folder", "file"]


def check_target(path: Path, option: str, kind: Kind) -> None:
    """Raise :class:`UsageError` unless ``path`` may be written as a ``kind`` by ``option``.

    ``path`` may be missing (it is created), or an existing ``kind``; it is never a
    symbolic link, and the nearest part of it that exists is a folder.
    """
    shown = f"{option} {str(path)!r}"
    if path.is_symlink():
        target = os.readlink(path)
        raise UsageError(
            f"{shown} is a symbolic link (to {target!r}): shoe-audit never writes through "
            f"a link; give the {kind} itself, or a new path"
        )
    if path.exists():
        if kind == "folder" and not path.is_dir():
            raise UsageError(f"{shown} is a file, where a folder is needed")
        if kind == "file" and path.is_dir():
            raise UsageError(f"{shown} is a folder, where a file is needed")
        return
    above = nearest_existing(path)
    if above is None or above.is_dir():
        return
    if above.is_symlink():
        raise UsageError(f"{shown}: {str(above)!r} is a symbolic link to nothing")
    raise UsageError(f"{shown}: {str(above)!r} is a file, where a folder is needed")


def nearest_existing(path: Path) -> Path | None:
    """The longest leading part of ``path`` that exists (a dangling link counts), or None."""
    for part in (path, *path.parents):
        if os.path.lexists(part):
            return part
    return None


def is_real_dir(path: Path) -> bool:
    """Whether ``path`` is a folder itself, not a link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def file_inside(folder: Path, rel: str) -> Path | None:
    """``folder / rel`` when it names a file (or a link) inside ``folder`` reached through
    real folders only; else None.

    For deleting the files a marker lists: a marker is a file anyone can edit, so a
    name in it that climbs out (``../x``, ``/etc/x``) or runs through a link to a
    folder elsewhere is never deleted.
    """
    parts = rel.split("/")
    if os.path.isabs(rel) or any(p in ("", ".", "..") or "\\" in p for p in parts):
        return None
    here = folder
    for part in parts[:-1]:
        here = here / part
        if not is_real_dir(here):
            return None
    path = here / parts[-1]
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return path if stat.S_ISREG(mode) or stat.S_ISLNK(mode) else None
