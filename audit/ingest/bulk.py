"""The bulk validator: one DuckDB query that checks a chunk of lines.

Lines are routed by their ``type`` and each type has its own branch: the line
is parsed once into a struct holding the JSON text of that type's fields, and
every field is checked with cheap string operations on its JSON text. DuckDB
re-serialises values canonically (integers ``3``, floats in their shortest
form ``37.5``/``100.0``, strings minified with their quotes), so the JSON type
of a value shows in its first character.

The validator is *sound*: it may reject a line that the pydantic models accept
(the caller then asks :func:`audit.events.parse.parse_line`, which decides),
but it never accepts one they reject. Where DuckDB's JSON reader is more
lenient than Python's, or where a re-serialised value hides a detail the
models care about, a guard sends the line to Python:

* trailing commas (DuckDB's reader allows them), and ``NaN``/``Infinity`` in
  unknown fields (in known fields they fail the field's own check);
* a ``null`` for a field whose default is not ``None`` (the struct cannot tell
  ``"hand": null`` from a missing ``hand``; the key list can);
* a number with 16 or more digits in a money field (its float form no longer
  shows whether the original had more than two decimals);
* duplicate keys (DuckDB keeps the first, Python the last);
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

from audit.store.fields import (
    INT64_MAX,
    ROUND_TYPES,
    TYPED_COLUMNS,
    TYPES,
    Field,
    fields_of,
    known_keys,
)
from audit.store.rows import ENVELOPE_COLUMNS

ENVELOPE_FIELDS: tuple[Field, ...] = (
    Field("v", "int", "default", lo=1, hi=1, default=1),  # checked specially below
    Field("id", "nonempty"),
    Field("seq", "int", lo=1, hi=INT64_MAX),
    Field("ts", "str"),  # checked specially below
    Field("table", "nonempty"),
    Field("shoe", "nonempty"),
    Field("type", "str"),
)

TRAILING_COMMA = r",\s*[\]}]"
NAN_OR_INF = r"[:\[,]\s*[-+]?(?i:nan|inf)"
LONG_NUMBER = r"[0-9.]{16}"

_RANK = "(?:10|[A2-9TJQK])"
_CARD = f'"{_RANK}[SHDC]"'
_CARDS_RE = rf"\[{_CARD}(?:,{_CARD})*\]"
_SPOTS_RE = r"\[\]|\[[0-9]{1,18}(?:,[0-9]{1,18})*\]"
_MONEY_RE = r"-?[0-9]{1,16}(?:\.[0-9]{1,2})?"
_TS_RE = (
    r'"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?'
    r'(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"'
)


def _q(name: str) -> str:
    return f'"{name}"'


def _x(name: str) -> str:
    """The JSON text of a field (NULL when missing or null)."""
    return f"s.{_q(name)}"


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _str_value(x: str) -> str:
    return f"CASE WHEN contains({x}, '\\') THEN json_extract_string({x}, '$') ELSE {x}[2:-2] END"


def _int_value(x: str) -> str:
    return f"TRY_CAST({x} AS BIGINT)"


def _check(f: Field, x: str) -> str:
    """SQL that is true when the (non-NULL) JSON text ``x`` is a valid ``f``."""
    k = f.kind
    if f.name == "v":
        # Literal[1] in the model also takes true and 1.0 (reported to the lead).
        return (
            f"CASE WHEN {x} = '1' OR {x} = 'true' THEN true WHEN {x} = '1.0' "
            f"THEN NOT regexp_matches(line, {_lit(LONG_NUMBER)}) ELSE false END"
        )
    if f.name == "ts":
        return (
            f"CASE WHEN ts_local IS NULL THEN false ELSE regexp_full_match({x}, {_lit(_TS_RE)}) END"
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
    if k == "currency":
        return f"regexp_full_match({x}, '\"[A-Z]{{3}}\"')"
    if k == "bool":
        return f"({x} = 'true' OR {x} = 'false')"
    if k == "enum":
        return "(" + " OR ".join(f"{x} = {_lit(chr(34) + v + chr(34))}" for v in f.values) + ")"
    if k == "card":
        return (
            f"((strlen({x}) = 4 AND contains('A23456789TJQKajqkt', {x}[2]))"
            f" OR (strlen({x}) = 5 AND {x}[2:3] = '10')) AND contains('SHDCshdc', {x}[-2])"
        )
    if k == "cards":
        return f"({x} = '[]' OR regexp_full_match(upper({x}), {_lit(_CARDS_RE)}))"
    if k == "spots":
        return f"regexp_full_match({x}, {_lit(_SPOTS_RE)})"
    if k in ("money", "stake"):
        # An integer text is exact; a float text may hide digits (see GUARDS).
        ok = (
            f"CASE WHEN NOT regexp_full_match({x}, {_lit(_MONEY_RE)}) THEN false "
            f"WHEN contains({x}, '.') THEN NOT regexp_matches(line, {_lit(LONG_NUMBER)}) "
            "ELSE true END"
        )
        if k == "stake":
            ok = (
                f"CASE WHEN NOT ({ok}) THEN false WHEN NOT starts_with({x}, '-') THEN true "
                f"ELSE CAST({x} AS DECIMAL(18,2)) = 0 END"
            )
        return ok
    raise AssertionError(k)  # pragma: no cover


def _value(f: Field, x: str) -> str:
    """SQL for the typed value of ``f`` from its JSON text (NULL when absent)."""
    k = f.kind
    if k == "int":
        v = _int_value(x)
    elif k in ("str", "nonempty", "currency", "enum"):
        v = _str_value(x)
    elif k == "bool":
        v = f"({x} = 'true')"
    elif k == "card":
        v = f"CASE WHEN strlen({x}) = 5 THEN 'T' || upper({x}[4]) ELSE upper({x}[2:-2]) END"
    elif k == "cards":
        v = (
            f"list_transform(from_json({x}, '[\"VARCHAR\"]'), lambda c: "
            "CASE WHEN strlen(c) = 3 THEN 'T' || upper(c[3]) ELSE upper(c) END)"
        )
    elif k == "spots":
        v = f"from_json({x}, '[\"BIGINT\"]')"
    elif k in ("money", "stake"):
        v = f"TRY_CAST({x} AS DECIMAL(18,2))"
    else:  # pragma: no cover
        raise AssertionError(k)
    if f.presence == "default":
        if f.kind == "cards":
            return f"COALESCE({v}, []::VARCHAR[])"
        if f.kind == "bool":
            return f"COALESCE({v}, {'true' if f.default else 'false'})"
        return f"COALESCE({v}, {f.default!r})"
    return v


def _all_fields(etype: str | None) -> tuple[Field, ...]:
    return (*ENVELOPE_FIELDS, *(fields_of(etype) if etype is not None else ()))


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
    "valid",
    "has_extra",
    "raw",
    *ENVELOPE_COLUMNS,
    *TYPED_COLUMNS,
)


def _branch(etype: str | None, source: str) -> str:
    """The query for the lines of one type (``None``: every other line)."""
    fields = _all_fields(etype)
    names = [f.name for f in fields]
    struct = "{" + ",".join(f'"{n}":"JSON"' for n in names) + "}"
    # JSON texts as plain VARCHAR: ``x[2]`` is then a character, not a JSON path.
    struct_type = "STRUCT(" + ", ".join(f'"{n}" VARCHAR' for n in names) + ")"
    compact_len = " + ".join(
        f"CASE WHEN {_x(n)} IS NULL THEN 0 ELSE {len(n) + 4} + strlen({_x(n)}) END" for n in names
    )
    # Only money (and ``v``) can hold a float, whose text could have grown from
    # an exponent form; look for one only when such a field has a fraction.
    floats = [f.name for f in fields if f.kind in ("money", "stake") or f.name == "v"]
    maybe_grown = " OR ".join(f"contains(COALESCE({_x(n)}, ''), '.')" for n in floats)
    known = "[" + ", ".join(_lit(k) for k in sorted(known_keys(etype))) + "]"
    defaults = [f.name for f in fields if f.presence == "default"]
    checks = [_field_ok(f) for f in fields if f.name != "type"]
    if etype is None:
        where = f"ty IS NULL OR ty NOT IN ({', '.join(_lit(t) for t in TYPES)})"
        checks.append(f"starts_with({_x('type')}, '\"')")
    else:
        where = f"ty = {_lit(etype)}"
    checks += _validators(etype)
    own = {f.name: f for f in (fields_of(etype) if etype is not None else ())}
    typed = []
    for c in TYPED_COLUMNS:
        value = _value(own[c], _x(c)) if c in own else "NULL"
        typed.append(f"{value} AS {_q(c)}")
    slow = _all_of(
        [
            "len(keys) = len(list_distinct(keys))",
            *(f"NOT ({_x(n)} IS NULL AND list_contains(keys, {_lit(n)}))" for n in defaults),
            f"NOT regexp_matches(line, {_lit(TRAILING_COMMA)})",
            "CASE WHEN NOT has_extra THEN true "
            f"ELSE NOT regexp_matches(line, {_lit(NAN_OR_INF)}) END",
            "CASE WHEN NOT has_extra THEN true "
            "ELSE strlen(line) - strlen(replace(replace(line, '[', ''), '{', '')) <= 200 END",
        ]
    )
    rnd = _int_value(_x("round")) if etype in ROUND_TYPES else "NULL::BIGINT"
    ts = _x("ts")
    body = f"{ts}[2:-2]"
    return f"""
SELECT
  line_no,
  {
        _all_of(
            [
                "s IS NOT NULL",
                *checks,
                f"CASE WHEN fast THEN true ELSE {slow} END",
            ]
        )
    } AS valid,
  has_extra,
  line AS raw,
  {_str_value(_x("id"))} AS id,
  {_str_value(_x("table"))} AS table_id,
  {_str_value(_x("shoe"))} AS shoe,
  {rnd} AS round,
  {_int_value(_x("seq"))} AS seq,
  CAST(ts_local - to_minutes(utc_offset_min) AS TIMESTAMPTZ) AS ts,
  ts_local,
  utc_offset_min,
  {_str_value(_x("type"))} AS type,
  {"true" if etype is not None else "false"} AS known_type,
  {", ".join(typed)}
FROM (
  SELECT *,
    CASE WHEN s IS NULL OR fast THEN false ELSE NOT list_has_all({known}, keys) END
      AS has_extra
  FROM (
    SELECT *,
      CASE WHEN s IS NOT NULL AND NOT fast THEN json_keys(line) END AS keys,
      CASE WHEN local_ts[1:4] <> '0000'
           THEN TRY_CAST(replace(local_ts, 't', ' ') AS TIMESTAMP) END AS ts_local
    FROM (
      SELECT *,
        CASE WHEN s IS NULL THEN NULL
             WHEN strlen(line) <> {compact_len} + 1 THEN false
             WHEN {maybe_grown or "false"} THEN NOT regexp_matches(line, '[0-9][eE]')
             ELSE true END AS fast,
        CASE WHEN upper(right({body}, 1)) = 'Z' THEN {body}[1:-2] ELSE {body}[1:-7] END
          AS local_ts,
        CASE WHEN upper(right({body}, 1)) = 'Z' THEN 0
             ELSE (CASE WHEN {body}[-6] = '-' THEN -1 ELSE 1 END)
                  * (TRY_CAST({body}[-5:-4] AS INTEGER) * 60
                     + TRY_CAST({body}[-2:-1] AS INTEGER))
        END AS utc_offset_min,
      FROM (
        SELECT line_no, line,
          CASE WHEN starts_with(ltrim(line, e' \\t\\r'), '{{')
               THEN TRY(CAST(json_transform(line, {_lit(struct)}) AS {struct_type})) END AS s
        FROM {source}
        WHERE {where}
      )
    )
  )
)"""


def select_sql(source: str) -> str:
    """A query over ``source`` (``line_no``, ``line``, ``ty``) with one row per line.

    ``ty`` is the line's ``type`` as ``json_extract_string`` gives it (NULL
    when the line is not JSON or has none): it only routes the line to a
    branch, which checks it again. ``valid`` is true for a line the models
    certainly accept; then every other column holds the typed event. ``valid``
    false means "ask parse_line".
    """
    branches = [_branch(t, source) for t in TYPES] + [_branch(None, source)]
    return "\nUNION ALL\n".join(branches)
