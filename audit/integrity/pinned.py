"""``verify --report DIR``: is what an archived report pinned still in the chains? (issue 29.6)

A chain cut back in both copies (the last records deleted from the ledger
table and from the ledger file) leaves a shorter chain that holds together:
only a head written down elsewhere before the cut shows it. Every report
pins the database ledger's head and the review trail's head in
``ledger-heads.json`` (and on its first screen: a report written before that
file existed is read from its ``index.html`` or ``report.md``). For each
folder given, :func:`check_report` checks

* the folder itself: every file ``SHA256SUMS`` lists, and with
  ``SHOE_AUDIT_KEY`` its ``SHA256SUMS.hmac``;
* that the pinned ledger record is in both copies of the chain with that hash
  (else: "records were removed after DIR was written"), or, when the database
  was re-created since (``make nightly`` removes it; its ledger file is kept
  as ``<database>.ledger.retired-<time>``), in a retired file made after the
  report: said plainly, not tampering;
* that the pinned review decision is still in the trail with that hash.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit.integrity.check import Difference
from audit.review.trail import Decision
from audit.store.ledger import FileChain, Record, ledger_path, read_file, seal

_PINNED_HEAD = re.compile(r"ledger record (\d+), sha256 ([0-9a-f]{64})")
_RETIRED = re.compile(r"\.retired-(\d{8}T\d{6})\d*Z$")


def _where(folder: Path) -> str:
    return f"report {str(folder)!r}"


def pinned_heads(folder: Path) -> tuple[tuple[int, str] | None, tuple[int, str] | None, str | None]:
    """(ledger no, hash), (trail decisions, head hash) and the time a report folder pinned;
    None where it pinned nothing (an empty chain, or a report older than the file)."""
    from audit.reports.evidence import HEADS_FILE

    try:
        data = json.loads((folder / HEADS_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = None
    if isinstance(data, dict):
        led = data.get("ledger")
        trail = data.get("trail") or {}
        ledger = (int(led["no"]), str(led["hash"])) if isinstance(led, dict) else None
        n = int(trail.get("decisions", 0))
        return ledger, ((n, str(trail.get("head"))) if n else None), data.get("generated_at")
    for name in ("index.html", "report.md"):  # a report older than ledger-heads.json
        try:
            text = (folder / name).read_text(encoding="utf-8")
        except OSError:
            continue
        found = _PINNED_HEAD.search(text)
        return ((int(found[1]), found[2]) if found else None), None, None
    raise FileNotFoundError(f"{folder}: neither ledger-heads.json nor a report page")


def _sums(folder: Path, key: bytes | None, out: Any) -> None:
    from audit.reports.evidence import SUMS_FILE, SUMS_HMAC_FILE

    where = _where(folder)
    try:
        text = (folder / SUMS_FILE).read_text(encoding="utf-8")
    except OSError:
        out.differences.append(Difference("report", f"{where} has no readable {SUMS_FILE}"))
        return
    for line in text.splitlines():
        want, _, rel = line.partition("  ")
        path = folder / rel
        try:
            have = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            out.differences.append(Difference("report", f"{where}: {rel} ({SUMS_FILE}) is missing"))
            continue
        if have != want:
            out.differences.append(
                Difference("report", f"{where}: {rel} changed since the report was written")
            )
    mac_path = folder / SUMS_HMAC_FILE
    if key is None:
        if mac_path.exists():
            out.notes.append(f"{where}: {SUMS_HMAC_FILE} not checked (SHOE_AUDIT_KEY not set)")
        return
    try:
        recorded = mac_path.read_text(encoding="utf-8").rsplit("=", 1)[-1].strip()
    except OSError:
        out.notes.append(f"{where} has no {SUMS_HMAC_FILE} (written without SHOE_AUDIT_KEY)")
        return
    if not hmac.compare_digest(recorded, seal(key, text)):
        out.differences.append(
            Difference("report", f"{where}: {SUMS_HMAC_FILE} does not match its {SUMS_FILE}")
        )


def _retired(db_path: str, no: int, h: str, key: bytes | None) -> list[tuple[Path, str]]:
    """The retired ledger files of the database that hold record ``no`` with hash ``h``,
    each with when it was retired (UTC)."""
    path = ledger_path(db_path)
    if path is None:
        return []
    out = []
    for old in sorted(path.parent.glob(path.name + ".retired-*")):
        stamp = _RETIRED.search(old.name)
        rec = read_file(old, key).get(no)
        if stamp and rec is not None and rec.hash == h:
            when = dt.datetime.strptime(stamp[1], "%Y%m%dT%H%M%S").replace(tzinfo=dt.UTC)
            out.append((old, when.isoformat()))
    return out


def check_report(
    folder: Path,
    store: Any,
    db: Sequence[Record],
    file: FileChain | None,
    decisions: Sequence[Decision],
    key: bytes | None,
    out: Any,
) -> None:
    """Check one archived report folder against the chains (see the module's docstring);
    differences and notes go to ``out`` (a :class:`audit.integrity.verify.Verification`)."""
    where = _where(folder)
    if not folder.is_dir():
        out.differences.append(Difference("report", f"{where} is not a folder"))
        return
    _sums(folder, key, out)
    try:
        ledger, trail, made = pinned_heads(folder)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        out.differences.append(
            Difference("report", f"{where}: its pinned heads cannot be read: {exc}")
        )
        return
    if ledger is not None:
        _ledger_head(folder, store, db, file, ledger, made, key, out)
    if trail is not None:
        n, h = trail
        have = decisions[n - 1] if 0 < n <= len(decisions) else None
        if have is None or have.seq != n:
            out.differences.append(
                Difference(
                    "report",
                    f"the {where} pinned review decision #{n} (hash {h[:16]}…), which is no "
                    f"longer in the trail: decisions were removed after it was written",
                )
            )
        elif have.hash != h:
            out.differences.append(
                Difference(
                    "report",
                    f"the {where} pinned review decision #{n} (hash {h[:16]}…), but the trail's "
                    f"decision #{n} has another hash: it was changed after the report was written",
                )
            )


def _ledger_head(
    folder: Path,
    store: Any,
    db: Sequence[Record],
    file: FileChain | None,
    pinned: tuple[int, str],
    made: str | None,
    key: bytes | None,
    out: Any,
) -> None:
    no, h = pinned
    where = _where(folder)
    in_db = 0 < no <= len(db) and db[no - 1].no == no and db[no - 1].hash == h
    rec = file.get(no) if file is not None else None
    in_file = file is None or (rec is not None and rec.hash == h) or (no < file.first)
    if in_db and in_file:
        return
    for old, when in _retired(store.path, no, h, key):
        if made is None or when >= made:
            out.notes.append(
                f"the database was re-created on {when} after the {where}; its records are in "
                f"{str(old)!r}, where the pinned head (ledger record #{no}) is intact"
            )
            return
    if (not in_db and no > len(db)) or (file is not None and rec is None and no >= file.first):
        out.differences.append(
            Difference(
                "report",
                f"the {where} pinned ledger record #{no} (hash {h[:16]}…), which is no longer "
                f"in the chain: records were removed after it was written",
            )
        )
    else:
        out.differences.append(
            Difference(
                "report",
                f"the {where} pinned ledger record #{no} (hash {h[:16]}…), but the chain's "
                f"record #{no} has another hash: the chain was rewritten after it was written",
            )
        )
