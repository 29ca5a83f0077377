"""``verify PATH...``: the original files against the ledger and the stored events, by event id.

Each file is first matched to the ingests that read it (the ledger file is the
anchor, not the database):

* **the same bytes**: an ingest record with the file's SHA-256, whatever its
  path (an archived copy was ingested);
* **the same lines**: an ingest record that added every line of its file
  (none rejected, none a duplicate), with the digest of the file's lines (the
  same log compressed again, ``.gz`` or not);
* **the same path**, bytes different: the file changed since it was ingested
  (a difference), provided it shares events with what was ingested from that
  path (a file that shares none is another file of the same name). The ledger
  keeps paths as they were given to ``ingest``; a relative one also names the
  file whose absolute path ends with it (``2026-11-28/T01.jsonl`` ingested
  from the folder above);
* **none of these**: the file was not ingested as such; its events are looked
  up by id (see :func:`_by_ids`).

A matched file is then aligned with the events stored from it by their
``id`` (event-log.md: ids are unique), never by line number, so a line
inserted or removed is named alone, not every line after it (issue 29,
point 4). What a difference means depends on which side is the original: a
file with the ingested bytes is the original, and what differs is the
database (an event *removed after ingest*, one stored from it that no line
holds, *inserted*); a file whose bytes changed is compared with what was
ingested from it (a line *removed since ingest*, *inserted*, *moved*,
*duplicated*). An event whose line and stored copy differ is *changed*
either way, with the fields that differ.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.events.parse import loads
from audit.integrity.check import Difference
from audit.store import Store
from audit.store.evidence import LineDigest
from audit.store.file_lines import (
    drop_lines,
    lines_by_id,
    quarantined_lines,
    register_lines,
    source_files,
    stored_not_in_lines,
    stored_raw,
)
from audit.store.ledger import Record
from audit.wording import counted

if TYPE_CHECKING:
    from audit.integrity.verify import Verification

NAMED_IDS = 10
"""Ids named on a line that lists events (the rest are counted)."""

_EMPTY = LineDigest().hexdigest()


def compare_files(
    store: Store, paths: Iterable[str | PathLike[str]], anchor: list[Record], out: Verification
) -> None:
    """Compare each file under ``paths`` with the ledger ``anchor`` and the stored events."""
    from audit.ingest.reader import find_logs

    found = find_logs(paths)
    for folder, why in found.unlisted:
        out.notes.append(f"{folder}: {why}")
    ingests = _ingests(anchor)
    for path in found.files:
        text = _read(path, out)
        if text is None:
            continue
        out.files.append(str(path))
        how, matched = _match(text, ingests)
        con = store.con
        register_lines(con, text.line_nos, text.texts)
        try:
            rows = _Rows(lines_by_id(con, _file_ids(matched)))
            if how == "path":
                # The same name is not the same file: keep the ingests it shares events with.
                shared = rows.our_files()
                kept = [i for i in matched if i.file in shared]
                if kept and len(kept) < len(matched):
                    rows = _Rows(lines_by_id(con, _file_ids(kept)))
                elif not kept and stored_not_in_lines(con, _file_ids(matched)):
                    out.notes.append(
                        f"{path}: a file of this path was ingested (ledger record "
                        f"{matched[-1].no}) but shares no event with this one: another file"
                    )
                    how, kept = "", []
                matched = kept or matched
            if how:
                _Alignment(store, text, how, matched, rows, out).run()
            else:
                _by_ids(store, text, rows, out)
        finally:
            drop_lines(con)


# --------------------------------------------------------------------------- reading


@dataclass(slots=True)
class _FileText:
    """A file as it is now: its lines (blank ones left out), SHA-256 and line digest."""

    path: Path
    sha256: str
    content: str
    """The :class:`LineDigest` of its lines, as an ingest that added them all records it."""
    line_nos: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def text_at(self, line_no: int) -> str:
        i = bisect_left(self.line_nos, line_no)
        return self.texts[i] if i < len(self.line_nos) and self.line_nos[i] == line_no else ""


def _read(path: Path, out: Verification) -> _FileText | None:
    """Read a file the way ingest does (gzip, BOM, lines the reader rejects)."""
    from audit.ingest.reader import FileError, LogReader

    reader = LogReader(path)
    lines: list[tuple[int, str]] = []
    digest = LineDigest()
    try:
        for batch in reader.batches():
            for first, block in zip(batch.block_first_lines, batch.blocks, strict=True):
                text = block.decode("utf-8")
                digest.update_block(block, text.count("\n") + 1)
                lines += [
                    (first + i, line)
                    for i, line in enumerate(text.split("\n"))
                    if line.strip(" \t\r")
                ]
            # Lines the reader itself rejected (not UTF-8, too long) are lines of the file too.
            lines += [(r.line_no, r.raw) for r in batch.rejects]
    except FileError as exc:
        out.notes.append(f"{path}: {exc}; compared up to there")
    if not reader.opened:
        return None
    lines.sort(key=lambda x: x[0])
    return _FileText(
        path, reader.sha256, digest.hexdigest(), [n for n, _ in lines], [t for _, t in lines]
    )


# --------------------------------------------------------------------------- matching


@dataclass(frozen=True, slots=True)
class _Ingest:
    """An ingest record of the ledger: one input file read by one ingest."""

    no: int
    path: str
    sha256: str
    lines: str
    file: int | None
    duplicates: int
    rejected: int

    @property
    def added_every_line(self) -> bool:
        """Whether its ``lines`` digest covers every line of the file (then it is the digest
        of the file's lines, whatever their compression)."""
        return self.duplicates == 0 and self.rejected == 0 and self.lines != _EMPTY


def _ingests(anchor: list[Record]) -> list[_Ingest]:
    out = []
    for r in anchor:
        if r.kind != "ingest":
            continue
        body = r.body
        if not body.get("sha256"):
            continue  # a file that could not be read
        file = body.get("file")
        out.append(
            _Ingest(
                r.no,
                str(body.get("path")),
                str(body["sha256"]),
                str(body.get("lines") or _EMPTY),
                int(file) if file is not None else None,
                int(body.get("duplicates") or 0),
                int(body.get("rejected") or 0),
            )
        )
    return out


def _match(text: _FileText, ingests: list[_Ingest]) -> tuple[str, list[_Ingest]]:
    """How the file was ingested: ``bytes``, ``lines``, ``path`` (changed since), or ``""``."""
    same = [i for i in ingests if i.sha256 == text.sha256]
    if same:
        return "bytes", same
    same = [i for i in ingests if i.added_every_line and i.lines == text.content]
    if same:
        return "lines", same
    named = [i for i in ingests if i.path == str(text.path)]
    if not named:
        here = _places(text.path)
        named = [i for i in ingests if _same_place(i.path, here)]
    if named:
        return "path", named
    return "", []


def _file_ids(ingests: list[_Ingest]) -> list[int]:
    return sorted({i.file for i in ingests if i.file is not None})


def _places(path: Path) -> list[tuple[str, ...]]:
    """The absolute forms of a path (as written, and with its links resolved)."""
    plain = Path(os.path.abspath(path)).parts
    real = path.resolve().parts
    return [plain] if plain == real else [plain, real]


def _same_place(recorded: str, here: list[tuple[str, ...]]) -> bool:
    """Whether a path as ingest recorded it (as given then, perhaps relative to another
    folder) names the file at ``here``: the same absolute path, or a relative path that is
    the tail of it (``2026-11-28/T01.jsonl`` ingested from the folder above)."""
    rec = Path(os.path.normpath(recorded))
    if rec.is_absolute():
        return any(rec.parts == h for h in here)
    if ".." in rec.parts or not rec.parts:
        return False
    n = len(rec.parts)
    return any(h[-n:] == rec.parts for h in here)


# --------------------------------------------------------------------------- the lines


class _Rows:
    """:func:`audit.store.file_lines.lines_by_id` as columns, and the rows worth a look."""

    def __init__(self, table: Any) -> None:
        import pyarrow.compute as pc

        self.table = table
        self.size = table.num_rows
        ours, same = table.column("ours"), table.column("same")
        self._ours = pc.fill_null(ours, False)
        unusual = pc.or_(
            pc.or_(pc.is_null(table.column("id")), pc.is_null(ours)),
            pc.or_(pc.invert(pc.fill_null(same, False)), pc.greater(table.column("copies"), 1)),
        )
        self.unusual = table.filter(unusual).to_pylist()

    def our_files(self) -> set[int]:
        """The ``file_id`` of the events stored from the compared file that its lines hold."""
        import pyarrow.compute as pc

        ours = self.table.filter(self._ours).column("file_id")
        return {int(f) for f in pc.unique(ours).to_pylist() if f is not None}

    def primaries(self) -> Any:
        """The rows of the lines standing for events stored from the file, in line order."""
        import pyarrow.compute as pc

        return self.table.filter(pc.and_(self._ours, pc.equal(self.table.column("occ"), 1)))

    def others_same(self) -> int:
        """Lines that repeat, unchanged, an event stored from another file (duplicates)."""
        import pyarrow.compute as pc

        t = self.table
        other = pc.and_(
            pc.equal(pc.fill_null(t.column("ours"), True), False),
            pc.and_(pc.equal(t.column("occ"), 1), pc.fill_null(t.column("same"), False)),
        )
        return int(pc.sum(other).as_py() or 0)


class _Alignment:
    """A file that was ingested (as bytes, lines or path), aligned with what is stored by id."""

    def __init__(
        self,
        store: Store,
        text: _FileText,
        how: str,
        matched: list[_Ingest],
        rows: _Rows,
        out: Verification,
    ) -> None:
        self.con = store.con
        self.text = text
        self.path = text.path
        self.original = how != "path"
        self.matched = matched
        self.file_ids = sorted({i.file for i in matched if i.file is not None})
        self.rows = rows
        self.out = out
        self.quarantine: dict[str, list[int]] = {}
        for line_no, raw in quarantined_lines(self.con, self.file_ids):
            self.quarantine.setdefault(raw, []).append(line_no)

    def run(self) -> None:
        self._note_how()
        raws = stored_raw(
            self.con,
            [r["id"] for r in self.rows.unusual if r["id"] is not None and r["ours"] is not None],
            self.file_ids,
        )
        repeats: list[tuple[dict[str, Any], int]] = []
        first: dict[str, int] = {}
        for r in self.rows.unusual:
            if r["id"] is not None and r["copies"] > 1 and r["occ"] == 1:
                first[r["id"]] = r["line_no"]
        for r in self.rows.unusual:
            line = self.text.text_at(r["line_no"])
            if r["id"] is not None and r["occ"] > 1:
                if not self._rejected(line):
                    repeats.append((r, first.get(r["id"], 0)))
            elif r["id"] is None or r["ours"] is None:
                if not self._rejected(line):
                    self._unknown_line(r, line)
            elif not r["same"]:
                raw = raws.get(r["id"], "")
                if not _same_value(raw, line) and not self._rejected(line):
                    self._changed(r, raw, line)
        self._duplicates(repeats)
        self._order()
        self._missing_lines()

    def _note_how(self) -> None:
        last = self.matched[-1]
        if not self.original:
            named = "" if last.path == str(self.path) else f" as {last.path}"
            self._add(
                "input file",
                f"{self.path}: SHA-256 {self.text.sha256}, but {last.sha256} when ingested"
                f"{named} (ledger record {last.no}): the file changed since",
            )
        elif all(i.path != str(self.path) for i in self.matched):
            what = "the same bytes" if last.sha256 == self.text.sha256 else "the same lines"
            self.out.notes.append(
                f"{self.path}: ingested as {last.path} ({what}, ledger record {last.no})"
            )

    def _rejected(self, line: str) -> bool:
        """Whether ``line`` is one ingest quarantined from the file (taken once)."""
        from audit.ingest.reader import RAW_KEEP

        found = self.quarantine.get(line[:RAW_KEEP])
        if not found:
            return False
        found.pop(0)
        return True

    def _add(
        self,
        where: str,
        message: str,
        table: str | None = None,
        shoe: str | None = None,
        eid: str | None = None,
    ) -> None:
        self.out.differences.append(
            Difference(where, message, table, shoe, events=(eid,) if eid else ())
        )

    def _unknown_line(self, r: dict[str, Any], line: str) -> None:
        """A line whose id is stored nowhere (or that has no id)."""
        n, eid = r["line_no"], r["id"]
        if self.original and eid is not None:
            self._add(
                "events",
                f"{self.path}:{n}: event id {eid} is not in the database (removed after ingest)",
                eid=eid,
            )
        elif self.original:
            self._add(
                "quarantine",
                f"{self.path}:{n}: the line ingest rejected is not in the quarantine "
                "(removed after ingest)",
            )
        elif eid is not None:
            self._add(
                "input file",
                f"{self.path}:{n}: line inserted since ingest: event id {eid} "
                "(not in the database)",
                eid=eid,
            )
        else:
            self._add(
                "input file",
                f"{self.path}:{n}: line inserted since ingest, not a TEL/1 event: {_short(line)}",
            )

    def _changed(self, r: dict[str, Any], raw: str, line: str) -> None:
        self._add(
            "events",
            f"{self.path}:{r['line_no']}: event id {r['id']} differs from the stored event: "
            + _fields(raw, line),
            r["table_id"],
            r["shoe"],
            r["id"],
        )

    def _duplicates(self, repeats: list[tuple[dict[str, Any], int]]) -> None:
        """Second copies of an event in the file: there at ingest, or inserted since."""
        if not repeats or self.original:
            return  # the ingested bytes held them: ingest counted them as duplicates
        recorded = self.matched[-1].duplicates
        if len(repeats) + self.rows.others_same() <= recorded:
            return
        held = f"; the file held {recorded:,} duplicate lines when ingested" if recorded else ""
        for r, first in repeats:
            self._add(
                "input file",
                f"{self.path}:{r['line_no']}: event id {r['id']} duplicated since ingest "
                f"(a second copy of line {first}{held})",
                r["table_id"],
                r["shoe"],
                r["id"],
            )

    def _order(self) -> None:
        """Events on other lines than they were stored from: moved, or renumbered."""
        import pyarrow.compute as pc

        t = self.rows.primaries()
        line_nos, was = t.column("line_no"), t.column("was")
        if self.original:
            # The ingested bytes: each event must be stored from the line it is on.
            off = pc.indices_nonzero(pc.not_equal(line_nos, was))
            for r in t.take(off.slice(0, NAMED_IDS)).to_pylist():
                self._add(
                    "events",
                    f"{self.path}:{r['line_no']}: event id {r['id']} is stored as line "
                    f"{r['was']} of the file (changed after ingest)",
                    r["table_id"],
                    r["shoe"],
                    r["id"],
                )
            if len(off) > NAMED_IDS:
                self._add(
                    "events",
                    f"{self.path}: {len(off) - NAMED_IDS:,} more events stored as other lines",
                )
            return
        n = len(was)
        if n < 2 or pc.all(pc.greater(was.slice(1), was.slice(0, n - 1))).as_py():
            return
        keep = _increasing(was.to_pylist())
        moved = [i for i in range(n) if i not in keep]
        for r in t.take(moved).to_pylist():
            self._add(
                "input file",
                f"{self.path}:{r['line_no']}: event id {r['id']} moved since ingest "
                f"(it was line {r['was']})",
                r["table_id"],
                r["shoe"],
                r["id"],
            )

    def _missing_lines(self) -> None:
        """Stored events and quarantined lines of the file that no line of it holds."""
        for eid, was, table, shoe in stored_not_in_lines(self.con, self.file_ids):
            if self.original:
                message = f"id {eid} (stored from {self.path}:{was}) is in no line of the file "
                self._add("events", message + "(inserted)", table, shoe, eid)
            else:
                self._add(
                    "input file",
                    f"{self.path}:{was}: line removed since ingest: event id {eid} "
                    "(the database holds it)",
                    table,
                    shoe,
                    eid,
                )
        left = sorted((n, raw) for raw, nos in self.quarantine.items() for n in nos)
        for n, raw in left:
            if self.original:
                self._add(
                    "quarantine",
                    f"{self.path}:{n}: the quarantined line {_short(raw)} is in no line of "
                    "the file (inserted)",
                )
            else:
                self._add(
                    "input file",
                    f"{self.path}:{n}: line removed since ingest: {_short(raw)} "
                    "(a line ingest rejected)",
                )


# --------------------------------------------------------------------------- not ingested


def _by_ids(store: Store, text: _FileText, rows: _Rows, out: Verification) -> None:
    """A file no ingest read as such: its events are looked up by id.

    None stored: the file was not ingested (a note, not a difference). All or
    some stored (its lines were ingested from other files): those are compared
    as usual and the rest named as not ingested. A removal from the database
    is not missed for it: the ledger's own counts and digests name it.
    """
    import pyarrow.compute as pc

    t = rows.table
    events = t.filter(pc.and_(pc.is_valid(t.column("id")), pc.equal(t.column("occ"), 1)))
    stored = events.filter(pc.is_valid(events.column("ours")))
    path = text.path
    if stored.num_rows == 0:
        what = f"{events.num_rows:,} events" if events.num_rows else "no event in it"
        out.not_ingested.append(
            f"{path}: not ingested ({what}; the ledger knows neither its path nor its "
            "SHA-256, and none of its event ids is stored)"
        )
        return
    changed = [r for r in rows.unusual if r["ours"] is not None and r["occ"] == 1]
    raws = stored_raw(store.con, [r["id"] for r in changed], [])
    for r in changed:
        line = text.text_at(r["line_no"])
        raw = raws.get(r["id"], "")
        if not _same_value(raw, line):
            out.differences.append(
                Difference(
                    "events",
                    f"{path}:{r['line_no']}: event id {r['id']} differs from the stored event: "
                    + _fields(raw, line),
                    r["table_id"],
                    r["shoe"],
                    events=(r["id"],),
                )
            )
    sources = source_files(store.con, stored.column("id").to_pylist())
    named = ", ".join(f"{p} ({n:,})" for p, n in sources[:3])
    more = f" and {len(sources) - 3:,} more files" if len(sources) > 3 else ""
    out.notes.append(
        f"{path}: not ingested from this path; {stored.num_rows:,} of its events were "
        f"ingested from {named}{more}"
    )
    missing = events.filter(pc.is_null(events.column("ours"))).column("id").to_pylist()
    if missing:
        ids = ", ".join(missing[:NAMED_IDS])
        rest = f" and {len(missing) - NAMED_IDS:,} more" if len(missing) > NAMED_IDS else ""
        out.not_ingested.append(
            f"{path}: {len(missing):,} of its {counted(events.num_rows, 'event')} not ingested "
            f"(ids {ids}{rest})"
        )


# --------------------------------------------------------------------------- helpers


def _increasing(values: Sequence[int]) -> set[int]:
    """The indices of a longest strictly increasing subsequence of ``values`` (O(n log n)).

    The lines off it are the fewest that moved: two lines swapped are one move.
    """
    tails: list[int] = []  # values
    at: list[int] = []  # index of each tail
    back = [-1] * len(values)
    for i, v in enumerate(values):
        k = bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            at.append(i)
        else:
            tails[k] = v
            at[k] = i
        back[i] = at[k - 1] if k else -1
    keep: set[int] = set()
    i = at[-1] if at else -1
    while i >= 0:
        keep.add(i)
        i = back[i]
    return keep


def _same_value(a: str, b: str) -> bool:
    try:
        return bool(loads(a) == loads(b))
    except ValueError:
        return False


def _fields(stored: str, line: str) -> str:
    """Which fields differ between a stored event and a line: ``amount 50 in the file, 150
    stored``."""
    try:
        mine, theirs = loads(line), loads(stored)
    except ValueError:
        return "the line is not valid JSON"
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return "the line is not a JSON object"
    keys = list(mine) + [k for k in theirs if k not in mine]
    parts = [
        f"{k} {_value(mine, k)} in the file, {_value(theirs, k)} stored"
        for k in keys
        if mine.get(k, _ABSENT) != theirs.get(k, _ABSENT)
    ]
    if not parts:
        return "written differently"
    more = f"; and {len(parts) - 5} more fields" if len(parts) > 5 else ""
    return "; ".join(parts[:5]) + more


_ABSENT = object()


def _value(obj: dict[str, Any], key: str) -> str:
    if key not in obj:
        return "absent"
    v = obj[key]
    text = str(v) if isinstance(v, Decimal) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _short(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")
