"""The bulk validator: one DuckDB query that checks a chunk of lines.

Each line is parsed once into a struct holding the JSON text of every field
any type has; its ``type`` picks which of them are its own, and each of those
is checked with cheap string operations on its JSON text. DuckDB
re-serialises values canonically (integers ``3``, floats in their shortest
form ``37.5``/``100.0``, strings minified with their quotes), so the JSON type
of a value shows in its first character.

The validator is *sound*: it may reject a line that the pydantic models accept
(the caller then asks :func:`audit.events.parse.parse_line`, which decides),
but it never accepts one they reject. Where DuckDB's JSON reader is more
lenient than Python's, or where a re-serialised value hides a detail the
models care about, a guard sends the line to Python:

* trailing commas (DuckDB's reader allows them), and ``NaN``/``Infinity`` or
  numbers Python may not read (1000 digits, an 18-digit exponent) in unknown
  fields (in known fields they fail the field's own check);
* a ``null`` for a field whose default is not ``None`` (the struct cannot tell
  ``"hand": null`` from a missing ``hand``; the key list can);
* a number with 16 or more digits in a money field (its float form no longer
  shows whether the original had more than two decimals), and a money field
  written with a fraction in a line holding an exponent form (``1e-400`` reads
  as ``0.0``: the float lost the decimals that make the line invalid);
* duplicate keys (DuckDB keeps the first; TEL/1 v1.1 makes the line invalid);
* deep nesting in unknown fields (Python's parser stops at ~1000 levels).

The fast path needs no second look at the line: DuckDB's re-serialised texts
are never longer than the original ones (escapes and number forms only
shrink; the one exception, a number in exponent form such as ``2.5e10``, is
checked for), so when the line is exactly as long as the compact object built
from its type's fields, it holds nothing else: no unknown key, no duplicate,
no null, no whitespace, no trailing comma. Other lines take the slow path,
which lists their keys.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from audit.store.fields import (
    COLUMN_TYPES,
    INT_MAX,
    ROUND_TYPES,
    TABLE_TYPES,
    TYPED_COLUMNS,
    TYPES,
    Field,
    fields_of,
    known_keys,
)
from audit.store.rows import ENVELOPE_COLUMNS

ENVELOPE_FIELDS: tuple[Field, ...] = (
    Field("v", "int", "default", lo=1, hi=1, default=1),
    Field("id", "nonempty"),
    Field("seq", "int", lo=1, hi=INT_MAX),
    Field("ts", "str"),  # checked specially below
    Field("table", "nonempty"),
    Field("type", "str"),
    Field("stream", "name", "optional", lo=1, hi=128),
)
"""The envelope's fields on every line. ``shoe`` is checked by type (TEL/1 v1.2): required
on shoe and round events, a non-empty string when present on an unknown type, and an
unknown field (kept, not read) on a table-level event."""
SHOE = Field("shoe", "nonempty")

TRAILING_COMMA = r",\s*[\]}]"
NAN_OR_INF = r"[:\[,]\s*[-+]?(?i:nan|inf)"
LONG_NUMBER = r"[0-9.]{16}"
EXPONENT = r"[:\[,]\s*-?[0-9]+(?:\.[0-9]*)?[eE]"
"""A number in exponent form (after the ``:``, ``[`` or ``,`` that precedes a value)."""

_RANK = "(?:10|[A2-9TJQKajqkt])"
_CARD = f'"{_RANK}[SHDCshdc]"'
_CARDS_RE = rf"\[{_CARD}(?:,{_CARD})*\]"
# At most 15 digits: below 2^53 (a longer number goes to Python, which decides).
_SPOTS_RE = r"\[\]|\[[0-9]{1,15}(?:,[0-9]{1,15})*\]"
# At most 999,999,999,999.99 (event-log.md "Money", TEL/1 v1.1).
_MONEY_RE = r"-?[0-9]{1,12}(?:\.[0-9]{1,2})?"
_KIND_RE = '"[a-z0-9][a-z0-9_]{0,31}"'
"""A wager's kind as JSON text: a side-bet id's form (games.md §2), quotes included."""
_TS_RE = (
    r'"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?'
    r'(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"'
)


_TS_MIN = "TIMESTAMP '0001-01-01 00:00:00'"
_TS_MAX = "TIMESTAMP '9999-12-31 23:59:59.999999'"
UNREADABLE_NUMBER = r"[0-9]{1000}|[eE][-+]?[0-9]{18}"
"""Where a number may be one Python's reader refuses (over 4300 digits; RE2
counts to 1000 at most) or Decimal cannot hold (its exponent)."""


def _q(name: str) -> str:
    return f'"{name}"'


def _x(name: str) -> str:
    """The JSON text of a field (NULL when missing or null)."""
    return f"s.{_q(name)}"


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _str_value(x: str) -> str:
    # substring, not x[2:-2]: DuckDB's slices take twice as long.
    return (
        f"CASE WHEN contains({x}, '\\') THEN json_extract_string({x}, '$') "
        f"ELSE substring({x}, 2, length({x}) - 2) END"
    )


def _int_value(x: str) -> str:
    return f"TRY_CAST({x} AS BIGINT)"


def _check(f: Field, x: str) -> str:
    """SQL that is true when the (non-NULL) JSON text ``x`` is a valid ``f``."""
    k = f.kind
    if f.name == "ts":
        return (
            f"CASE WHEN ts_local IS NULL THEN false "
            # The UTC instant must fall in the years 1-9999 too (Python's datetime).
            f"WHEN ts_local - to_minutes(utc_offset_min) NOT BETWEEN {_TS_MIN} AND {_TS_MAX} "
            f"THEN false ELSE regexp_full_match({x}, {_lit(_TS_RE)}) END"
        )
    if f.name == "id":
        return f"({x} <> '\"\"' AND starts_with({x}, '\"') AND length({_str_value(x)}) <= 128)"
    if k == "int":
        v = _int_value(x)
        return f"({v} BETWEEN {f.lo} AND {f.hi} AND CAST({v} AS VARCHAR) = {x})"
    if k == "str":
        return f"starts_with({x}, '\"')"
    if k == "nonempty":
        return f"({x} <> '\"\"' AND starts_with({x}, '\"'))"
    if k == "name":
        return (
            f"CASE WHEN NOT starts_with({x}, '\"') THEN false "
            f"ELSE length({_str_value(x)}) BETWEEN {f.lo} AND {f.hi} END"
        )
    if k == "day":
        # Python's date.fromisoformat decides what DuckDB's cast does not (year 0).
        return (
            f"CASE WHEN NOT regexp_full_match({x}, '\"[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}\"') "
            f"THEN false WHEN substring({x}, 2, 4) = '0000' THEN false "
            f"ELSE TRY_CAST(substring({x}, 2, 10) AS DATE) IS NOT NULL END"
        )
    if k in ("chips", "signers", "side_limits"):
        # objects and lists of objects: the models decide (few lines: a table's books,
        # a shoe's side-bet limits)
        return "false"
    if k in ("wager", "stake_kind"):
        # games.md §2: main, insurance, bonus or a side-bet id (each has the id's form);
        # a bet's kind is never insurance or bonus. An escaped string goes to Python.
        ok = f"regexp_full_match({x}, {_lit(_KIND_RE)})"
        if k == "stake_kind":
            ok = f"({ok} AND {x} <> '\"insurance\"' AND {x} <> '\"bonus\"')"
        return ok
    if k == "currency":
        return f"regexp_full_match({x}, '\"[A-Z]{{3}}\"')"
    if k == "bool":
        return f"({x} = 'true' OR {x} = 'false')"
    if k == "enum":
        return "(" + " OR ".join(f"{x} = {_lit(chr(34) + v + chr(34))}" for v in f.values) + ")"
    if k == "card":
        return (
            f"((strlen({x}) = 4 AND contains('A23456789TJQKajqkt', substring({x}, 2, 1)))"
            f" OR (strlen({x}) = 5 AND substring({x}, 2, 2) = '10'))"
            f" AND contains('SHDCshdc', substring({x}, length({x}) - 1, 1))"
        )
    if k == "cards":
        return f"({x} = '[]' OR regexp_full_match({x}, {_lit(_CARDS_RE)}))"
    if k == "spots":
        return f"regexp_full_match({x}, {_lit(_SPOTS_RE)})"
    if k in ("money", "stake", "positive", "nonzero"):
        # An integer text is exact; a float text may hide digits, or come from an
        # exponent form whose decimals the float lost (1e-400 reads as 0.0).
        ok = (
            f"CASE WHEN NOT regexp_full_match({x}, {_lit(_MONEY_RE)}) THEN false "
            f"WHEN contains({x}, '.') "
            f"THEN NOT regexp_matches(line, {_lit(LONG_NUMBER + '|' + EXPONENT)}) "
            "ELSE true END"
        )
        if k == "stake":
            ok = (
                f"CASE WHEN NOT ({ok}) THEN false WHEN NOT starts_with({x}, '-') THEN true "
                f"ELSE CAST({x} AS DECIMAL(18,2)) = 0 END"
            )
        elif k == "positive":
            ok = f"CASE WHEN NOT ({ok}) THEN false ELSE CAST({x} AS DECIMAL(18,2)) > 0 END"
        elif k == "nonzero":
            ok = f"CASE WHEN NOT ({ok}) THEN false ELSE CAST({x} AS DECIMAL(18,2)) <> 0 END"
        return ok
    raise AssertionError(k)  # pragma: no cover


def _value(f: Field, x: str) -> str:
    """SQL for the typed value of ``f`` from its JSON text (NULL when absent)."""
    k = f.kind
    if k == "int":
        v = _int_value(x)
    elif k in ("str", "nonempty", "name", "currency", "enum", "wager", "stake_kind"):
        v = _str_value(x)
    elif k == "day":
        v = f"TRY_CAST(substring({x}, 2, 10) AS DATE)"
    elif k in ("chips", "signers", "side_limits"):
        v = f"NULL::{COLUMN_TYPES[f.name]}"  # never valid here: parse_line gives the row
    elif k == "bool":
        v = f"({x} = 'true')"
    elif k == "card":
        v = (
            f"CASE WHEN strlen({x}) = 5 THEN 'T' || upper(substring({x}, 4, 1)) "
            f"ELSE upper(substring({x}, 2, 2)) END"
        )
    elif k == "cards":
        v = (
            f"list_transform(from_json({x}, '[\"VARCHAR\"]'), lambda c: "
            "CASE WHEN strlen(c) = 3 THEN 'T' || upper(c[3]) ELSE upper(c) END)"
        )
    elif k == "spots":
        v = f"from_json({x}, '[\"BIGINT\"]')"
    elif k in ("money", "stake", "positive", "nonzero"):
        v = f"TRY_CAST({x} AS DECIMAL(18,2))"
    else:  # pragma: no cover
        raise AssertionError(k)
    if f.presence == "default" and f.default is None:
        return v
    if f.presence == "default":
        if f.kind == "cards":
            return f"COALESCE({v}, []::VARCHAR[])"
        if f.kind == "bool":
            return f"COALESCE({v}, {'true' if f.default else 'false'})"
        return f"COALESCE({v}, {f.default!r})"
    return v


def _field_ok(f: Field) -> str:
    # DuckDB evaluates both sides of AND/OR in a projection; CASE evaluates a
    # branch only for the rows that reach it, so the checks are CASEs.
    x = _x(f.name)
    missing = "false" if f.presence == "required" else "true"
    return f"CASE WHEN {x} IS NULL THEN {missing} ELSE {_check(f, x)} END"


def _all_of(conditions: list[str]) -> str:
    """True when every condition is true (NULL counts as false), short-circuiting."""
    whens = " ".join(f"WHEN NOT COALESCE({c}, false) THEN false" for c in conditions)
    return f"CASE {whens} ELSE true END"


def _validators(etype: str | None) -> list[str]:
    """The models' own cross-field checks (``model_validator`` in models.py)."""
    if etype in ("card", "offer"):
        return [f"NOT ({_x('to')} = '\"box\"' AND {_x('box')} IS NULL)"]
    if etype == "cut":
        return [f"NOT ({_x('by')} = '\"box\"' AND {_x('box')} IS NULL)"]
    if etype == "burn":
        cards, count = _x("cards"), _x("count")
        return [
            f"CASE WHEN {cards} IS NULL OR {count} IS NULL OR NOT starts_with({cards}, '[') "
            f"OR {cards} = '[]' THEN true "
            f"ELSE TRY_CAST({count} AS BIGINT) = json_array_length({cards}) END"
        ]
    return []


OUTPUT_COLUMNS: tuple[str, ...] = (
    "line_no",
    "file_id",
    "valid",
    "has_extra",
    "raw",
    *ENVELOPE_COLUMNS,
    *TYPED_COLUMNS,
)


_TYPED = frozenset(TYPED_COLUMNS)


def columns_for(etypes: Iterable[str | None]) -> list[str]:
    """The :data:`OUTPUT_COLUMNS` that lines of ``etypes`` (their ``type``, None or an
    unknown one included) can fill: a typed column is NULL on a line of any other type.

    A pass selects only these from the bulk query: the others are never computed, nor
    held (a NULL money column is 16 bytes a row in Arrow)."""
    present = set(etypes)
    return [
        c
        for c in OUTPUT_COLUMNS
        if c not in _TYPED or any(t in present for ts in _variants(c).values() for t in ts)
    ]


TYPE_LIST = "[" + ", ".join(_lit(t) for t in TYPES) + "]"
"""Known types in code order: a line's code ``tyc`` is its place here (0: unknown)."""


def _code(etype: str) -> int:
    return list(TYPES).index(etype) + 1


def _for_types(etypes: list[str]) -> str:
    """SQL true for a line of one of ``etypes`` (a bit test: cheaper than ``IN``)."""
    codes = sorted(_code(t) for t in etypes)
    if len(codes) == 1:
        return f"tyc = {codes[0]}"
    return f"(tybit & {sum(1 << c for c in codes)}) <> 0"


@functools.cache
def _variants(name: str) -> dict[Field, list[str]]:
    """The ways field ``name`` is defined, each with the known types defining it so."""
    out: dict[Field, list[str]] = {}
    for etype in TYPES:
        for f in fields_of(etype):
            if f.name == name:
                out.setdefault(f, []).append(etype)
    return out


def _typed_fields() -> list[str]:
    """Every non-envelope field name of a known type, in column order (``round`` first)."""
    names = ["round"]
    for etype in TYPES:
        names += [f.name for f in fields_of(etype) if f.name not in names]
    return names


def _per_type(variants: dict[Field, list[str]], sql: Callable[[Field], str]) -> str:
    """``sql(field)`` as the line's type defines the field; NULL for other types."""
    whens = " ".join(f"WHEN {_for_types(ts)} THEN {sql(f)}" for f, ts in variants.items())
    return f"CASE {whens} ELSE NULL END"


def _field_len(name: str) -> str:
    """Characters of ``"name":text`` plus its comma, 0 when the field is absent."""
    return f"COALESCE(strlen({_x(name)}) + {len(name) + 4}, 0)"


def _by_type(sql: Callable[[str], str], other: str) -> str:
    """``sql(etype)`` for a line of each known type, ``other`` for an unknown one.

    A ``CASE`` on the type code evaluates each type's expression only for
    that type's lines.
    """
    whens = " ".join(f"WHEN {_code(t)} THEN {sql(t)}" for t in TYPES)
    return f"CASE tyc {whens} ELSE {other} END"


def _own_fields(etype: str) -> tuple[Field, ...]:
    """The type's fields as the compact form and the checks see them: with ``shoe``
    for the types whose envelope holds one."""
    own = fields_of(etype)
    return own if etype in TABLE_TYPES else (SHOE, *own)


def _own_len(etype: str) -> str:
    return " + ".join(_field_len(f.name) for f in _own_fields(etype)) or "0"


def _own_checks(etype: str) -> str:
    return _all_of([_field_ok(f) for f in _own_fields(etype)] + _validators(etype))


def _unknown_checks() -> str:
    """An unknown type: a string ``type``, and ``shoe`` a non-empty string when present."""
    shoe = _x("shoe")
    return _all_of(
        [
            f"starts_with({_x('type')}, '\"')",
            f"CASE WHEN {shoe} IS NULL THEN true ELSE {_check(SHOE, shoe)} END",
        ]
    )


def select_sql(source: str) -> str:
    """A query over ``source`` (``line_no``, ``file_id``, ``line``, ``ty``): a row per line.

    ``ty`` is the line's ``type`` as ``json_extract_string`` gives it (NULL
    when the line is not JSON or has none): it only routes the line to its
    type's checks (by the code ``tyc``). ``valid`` is true for a line the
    models certainly accept; then every other column holds the typed event.
    ``valid`` false means "ask parse_line".

    One pass serves every type (one query plan, planned in a fraction of the
    time 24 per-type branches took): the struct holds every field any type
    has, and each field is checked and typed as the line's own type defines
    it. A field of another type is an unknown key like any other.
    """
    typed = _typed_fields()
    names = [f.name for f in ENVELOPE_FIELDS] + ["shoe"] + typed
    struct = "{" + ",".join(f'"{n}":"JSON"' for n in names) + "}"
    # JSON texts as plain VARCHAR, cut with substring (DuckDB's slices are slower).
    struct_type = "STRUCT(" + ", ".join(f'"{n}" VARCHAR' for n in names) + ")"
    variants = {n: _variants(n) for n in typed}
    envelope = [f.name for f in ENVELOPE_FIELDS]

    compact_len = (
        " + ".join(_field_len(n) for n in envelope) + " + " + _by_type(_own_len, _field_len("shoe"))
    )
    # Only money can hold a float, whose text could have grown from an
    # exponent form; look for one only when such a field has a fraction.
    floats = [n for n, v in variants.items() if any(f.kind in ("money", "stake") for f in v)]
    maybe_grown = " OR ".join(f"contains(COALESCE({_x(n)}, ''), '.')" for n in floats)

    checks = [_field_ok(f) for f in ENVELOPE_FIELDS if f.name != "type"]
    checks.append(_by_type(_own_checks, _unknown_checks()))
    nulls = (
        [
            f"NOT ({_x(n)} IS NULL AND {_for_types(ts)} AND list_contains(keys, {_lit(n)}))"
            for n, v in variants.items()
            for f, ts in v.items()
            if f.presence == "default"
        ]
        + [
            f"NOT ({_x(f.name)} IS NULL AND list_contains(keys, {_lit(f.name)}))"
            for f in ENVELOPE_FIELDS
            if f.presence == "default"
        ]
        + [
            # an unknown type's shoe may be missing, but not null (as v1.1 had it)
            f"NOT ({_x('shoe')} IS NULL AND tyc = 0 AND list_contains(keys, 'shoe'))"
        ]
    )
    slow = _all_of(
        [
            "len(keys) = len(list_distinct(keys))",
            *nulls,
            f"NOT regexp_matches(line, {_lit(TRAILING_COMMA)})",
            "CASE WHEN NOT has_extra THEN true "
            f"ELSE NOT regexp_matches(line, {_lit(NAN_OR_INF + '|' + UNREADABLE_NUMBER)}) END",
            "CASE WHEN NOT has_extra THEN true "
            "ELSE strlen(line) - strlen(replace(replace(line, '[', ''), '{', '')) <= 200 END",
        ]
    )
    known = ", ".join(
        "[" + ", ".join(_lit(k) for k in sorted(known_keys(t))) + "]" for t in (None, *TYPES)
    )

    def value(c: str) -> str:
        v = variants.get(c)
        return _per_type(v, lambda f: _value(f, _x(c))) if v else "NULL"

    columns = ", ".join(f"{value(c)} AS {_q(c)}" for c in TYPED_COLUMNS)
    round_types = [t for t in TYPES if t in ROUND_TYPES]
    rnd = f"CASE WHEN {_for_types(round_types)} THEN {_int_value(_x('round'))} END"
    ts = _x("ts")
    return f"""
SELECT
  line_no,
  file_id,
  {_all_of(["s IS NOT NULL", *checks, f"CASE WHEN fast THEN true ELSE {slow} END"])} AS valid,
  has_extra,
  line AS raw,
  {_str_value(_x("id"))} AS id,
  {_str_value(_x("table"))} AS table_id,
  CASE WHEN {_for_types(sorted(TABLE_TYPES))} THEN NULL
       ELSE {_str_value(_x("shoe"))} END AS shoe,
  {rnd} AS round,
  {_int_value(_x("seq"))} AS seq,
  CAST(ts_local - to_minutes(utc_offset_min) AS TIMESTAMPTZ) AS ts,
  ts_local,
  utc_offset_min,
  {_str_value(_x("type"))} AS type,
  tyc > 0 AS known_type,
  {_str_value(_x("stream"))} AS stream,
  {columns}
FROM (
  SELECT *,
    CASE WHEN s IS NULL OR fast THEN false
         ELSE NOT list_has_all([{known}][tyc + 1], keys) END AS has_extra
  FROM (
    SELECT *,
      CASE WHEN s IS NOT NULL AND NOT fast THEN json_keys(line) END AS keys,
      CASE WHEN substring(local_ts, 1, 4) = '0000' THEN NULL
           WHEN substring(local_ts, 11, 1) = 't'
             THEN TRY_CAST(replace(local_ts, 't', ' ') AS TIMESTAMP)
           ELSE TRY_CAST(local_ts AS TIMESTAMP) END AS ts_local
    FROM (
      SELECT *,
        CASE WHEN s IS NULL THEN NULL
             WHEN strlen(line) <> {compact_len} + 1 THEN false
             WHEN {maybe_grown} THEN NOT regexp_matches(line, '[0-9][eE]')
             ELSE true END AS fast,
        substring({ts}, 2, strlen({ts}) - CASE WHEN zulu THEN 3 ELSE 8 END) AS local_ts,
        CASE WHEN zulu THEN 0
             ELSE (CASE WHEN substring({ts}, length({ts}) - 6, 1) = '-' THEN -1 ELSE 1 END)
                  * (TRY_CAST(substring({ts}, length({ts}) - 5, 2) AS INTEGER) * 60
                     + TRY_CAST(substring({ts}, length({ts}) - 2, 2) AS INTEGER))
        END AS utc_offset_min
      FROM (
        SELECT *, 1::BIGINT << tyc AS tybit,
          substring({ts}, length({ts}) - 1, 1) IN ('Z', 'z') AS zulu
        FROM (
          SELECT line_no, file_id, line, COALESCE(list_position({TYPE_LIST}, ty), 0) AS tyc,
            CASE WHEN starts_with(ltrim(line, e' \\t\\r'), '{{')
                 THEN TRY(CAST(json_transform(line, {_lit(struct)}) AS {struct_type})) END AS s
          FROM {source}
        )
      )
    )
  )
)"""
