"""The bulk SQL validator agrees with the pydantic models (audit/events/models.py).

The models are the definition of a valid TEL/1 line. The bulk validator may
send a valid line to ``parse_line`` (then Python decides) but must never
accept a line the models reject, and what it stores must be what the model
holds. On ordinary valid lines it must accept (else ingest is slow).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.errors import MalformedEventError
from audit.events.models import EVENT_TYPES, Envelope
from audit.events.parse import parse_line
from audit.ingest.bulkstep import FileResult, Session
from audit.ingest.summary import FileSummary
from audit.store.fields import ROUND_TYPES, TABLE_TYPES, TYPES, Field, fields_of
from audit.store.rows import EVENT_COLUMNS, event_row

# --------------------------------------------------------------------------- the field table


@pytest.mark.parametrize("etype", sorted(TYPES))
def test_field_table_matches_the_model(etype: str) -> None:
    model = EVENT_TYPES[etype]
    envelope = set(Envelope.model_fields)  # with shoe, which table-level types do not have
    own = {n: f for n, f in model.model_fields.items() if n not in envelope}
    spec = {f.name: f for f in fields_of(etype)}
    assert set(own) == set(spec)
    for name, f in spec.items():
        info = own[name]
        if f.presence == "required":
            assert info.is_required(), name
        else:
            assert not info.is_required(), name
            default = info.get_default(call_default_factory=True)
            expected = list(f.default) if isinstance(f.default, tuple) else f.default
            assert default == expected, name
    assert (etype in ROUND_TYPES) == ("round" in own)


# --------------------------------------------------------------------------- running the bulk step


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")
    try:
        yield Session(con)
    finally:
        con.close()


def run_bulk(session: Session, lines: list[str]) -> tuple[dict[int, dict[str, Any]], set[int]]:
    """(rows the bulk validator accepted, by line number; line numbers accepted in the end)."""
    block = "\n".join(lines).encode("utf-8")
    assert session.validate([(0, 1, block)]) == []
    rest = session.rest.to_pylist()
    accepted = {r["line_no"]: r for r in rest if r["valid"]}
    session.recheck({0: FileResult(FileSummary("x"))})
    final = set(session.rest.column("line_no").to_pylist())
    return accepted, final


def storable(event: Any) -> bool:
    """Whether the database can hold the event's text (no lone surrogates).

    Numbers always fit: TEL/1 v1.1 bounds them and the models enforce it.
    """
    for value in event.__dict__.values():
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


def python_accepts(line: str) -> Any:
    try:
        return parse_line(line)
    except MalformedEventError:
        return None


# --------------------------------------------------------------------------- strategies

SAFE_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), min_codepoint=32), min_size=1, max_size=12
)
RANKS = [*"A23456789TJQKajqkt", "10"]
SUITS = list("SHDCshdc")


@st.composite
def timestamps(draw: st.DrawFn) -> str:
    d = draw(st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 12, 31)))
    sep = draw(st.sampled_from(["T", "t", " "]))
    frac = draw(st.sampled_from(["", ".5", ".123", ".123456"]))
    off = draw(st.sampled_from(["Z", "z", "+01:00", "-05:30", "+00:00", "+23:59", "-00:00"]))
    return d.strftime("%Y-%m-%d") + sep + d.strftime("%H:%M:%S") + frac + off


def money(lo: Decimal) -> st.SearchStrategy[Decimal]:
    top = Decimal("999999999999.99")  # TEL/1 v1.1's bound
    return st.one_of(
        st.decimals(min_value=lo, max_value=Decimal("99999999"), places=2, allow_nan=False),
        st.sampled_from([top, max(lo, -top), top - Decimal("0.01")]),
    )


def value_for(f: Field) -> st.SearchStrategy[Any]:
    k = f.kind
    if k == "int":
        return st.integers(min_value=f.lo, max_value=min(f.hi, f.lo + 10**9))
    if k == "str":
        return st.text(max_size=12)
    if k == "nonempty":
        return SAFE_TEXT
    if k == "currency":
        return st.from_regex(r"\A[A-Z]{3}\Z")
    if k == "bool":
        return st.booleans()
    if k == "enum":
        return st.sampled_from(f.values)
    if k == "card":
        return st.builds(lambda r, s: r + s, st.sampled_from(RANKS), st.sampled_from(SUITS))
    if k == "cards":
        return st.lists(value_for(Field("c", "card")), max_size=6)
    if k == "spots":
        return st.lists(st.integers(min_value=0, max_value=9), max_size=4)
    if k == "money":
        return money(Decimal("-99999999"))
    if k == "stake":
        return money(Decimal(0))
    if k == "positive":
        return money(Decimal("0.01"))
    if k == "nonzero":
        return money(Decimal("-99999999")).filter(lambda d: d != 0)
    if k == "name":
        return SAFE_TEXT
    if k == "day":
        return st.dates(min_value=dt.date(2000, 1, 1)).map(dt.date.isoformat)
    if k == "chips":
        return st.lists(
            st.fixed_dictionaries(
                {
                    "denomination": money(Decimal("0.01")).map(lambda d: _Raw(str(d))),
                    "count": st.integers(0, 10**6),
                }
            ),
            max_size=4,
            unique_by=lambda c: Decimal(c["denomination"]),
        )
    if k == "signers":
        return st.lists(
            st.fixed_dictionaries(
                {"id": SAFE_TEXT, "role": st.sampled_from(["dealer", "supervisor", "cashier"])}
            ),
            max_size=3,
        )
    if k == "wager":  # games.md §2: a settle's kind
        return st.one_of(
            st.sampled_from(["main", "insurance", "bonus", "21plus3", "perfect_pairs"]),
            st.from_regex(r"\A[a-z0-9][a-z0-9_]{0,31}\Z"),
        )
    if k == "stake_kind":  # a bet's: never insurance nor bonus
        return st.one_of(
            st.sampled_from(["main", "21plus3", "lucky_ladies", "buster"]),
            st.from_regex(r"\A[a-z0-9][a-z0-9_]{0,31}\Z").filter(
                lambda v: v not in ("insurance", "bonus")
            ),
        )
    if k == "side_limits":
        limit = st.fixed_dictionaries(
            {},
            optional={
                "min_bet": money(Decimal(0)).map(lambda d: _Raw(str(d))),
                "max_bet": money(Decimal(0)).map(lambda d: _Raw(str(d))),
            },
        )
        return st.dictionaries(
            st.sampled_from(["21plus3", "perfect_pairs", "buster", "lucky_ladies"]),
            limit,
            max_size=3,
        )
    raise AssertionError(k)


@st.composite
def valid_events(draw: st.DrawFn) -> dict[str, Any]:
    etype = draw(st.sampled_from(sorted(TYPES)))
    obj: dict[str, Any] = {
        "id": draw(SAFE_TEXT),
        "seq": draw(st.integers(min_value=1, max_value=10**12)),
        "ts": draw(timestamps()),
        "table": draw(SAFE_TEXT),
        "shoe": draw(SAFE_TEXT),
        "type": etype,
    }
    if draw(st.booleans()):
        obj["v"] = 1
    for f in fields_of(etype):
        present = f.presence == "required" or draw(st.booleans())
        if present:
            obj[f.name] = draw(value_for(f))
        elif f.presence == "optional" and draw(st.integers(0, 3)) == 0:
            obj[f.name] = None
    if obj.get("by") == "box" or obj.get("to") == "box":
        obj["box"] = draw(st.integers(1, 7))
    if etype == "burn" and obj.get("cards") and obj.get("count") is not None:
        obj["count"] = len(obj["cards"])
    if etype in TABLE_TYPES and draw(st.booleans()):
        del obj["shoe"]  # TEL/1 v1.2: a table-level event needs none
    if draw(st.integers(0, 3)) == 0:
        obj["stream"] = draw(SAFE_TEXT)
    return obj


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
RAW_NUMBERS = st.sampled_from(
    ["3.0", "1e2", "37.505", "37.500", "-0.0", "0.1", "1.005", "12345678901234567.89",
     "37.5000000000000001", "1E400", "NaN", "Infinity", "-Infinity", "18446744073709551616",
     "9223372036854775808", "-1", "0", "7", "999999999999.99", "-999999999999.99",
     "1000000000000", "999999999999.991", "9999999999999999", "1e-400", "1e999999999",
     "1E+2", "2.5e1", "9007199254740991", "9007199254740992", "9223372036854775807"]
)  # fmt: skip


def encode(obj: dict[str, Any], spaced: bool) -> str:
    def default(o: Any) -> Any:
        raise TypeError(o)

    text = json.dumps(
        {k: (_Raw(str(v)) if isinstance(v, Decimal) else v) for k, v in obj.items()},
        separators=(", ", ": ") if spaced else (",", ":"),
        default=default,
        cls=_Encoder,
    )
    return text


class _Raw(str):
    """A number written as given (json.dumps would quote a str)."""


class _Encoder(json.JSONEncoder):
    def encode(self, o: Any) -> str:
        if isinstance(o, dict):
            sep_item, sep_key = self.item_separator, self.key_separator
            parts = [json.dumps(k) + sep_key + self.encode(v) for k, v in o.items()]
            return "{" + sep_item.join(parts) + "}"
        if isinstance(o, _Raw):
            return str.__str__(o)
        return super().encode(o)


@st.composite
def lines(draw: st.DrawFn) -> tuple[str, bool]:
    """A TEL/1 line, valid or mutated, and whether it is an ordinary valid line."""
    obj = draw(valid_events())
    keys = list(obj)
    ordinary = True
    mutation = draw(st.integers(0, 14))
    if mutation == 1 and keys:
        del obj[draw(st.sampled_from(keys))]
        ordinary = False
    elif mutation == 2:
        obj[draw(st.sampled_from(keys))] = draw(JSON_VALUES)
        ordinary = False
    elif mutation == 3:
        obj[draw(st.sampled_from(keys))] = _Raw(draw(RAW_NUMBERS))
        ordinary = False
    elif mutation == 4:
        obj[draw(st.text(min_size=1, max_size=5))] = draw(JSON_VALUES)
        ordinary = False  # an extra key is valid, but goes down the slow path
    elif mutation == 5:
        obj[draw(st.sampled_from(keys))] = None
        ordinary = False
    elif mutation == 6:
        obj["v"] = _Raw(draw(st.sampled_from(["1", "true", "1.0", "2", "null", '"1"', "1.00"])))
        ordinary = False
    elif mutation == 7:
        obj["type"] = draw(st.one_of(st.text(max_size=8), st.integers()))
        ordinary = False
    elif mutation == 8:
        obj["ts"] = draw(
            st.sampled_from(
                ["2026-11-28T20:00:00", "2026-11-28T24:00:00+01:00", "2026-11-28T20:00:00+24:00",
                 "2026-11-28T20:00:00.1234567+01:00", "2026-02-29T20:00:00Z",
                 "2026-11-28T20:00:00+01:60", "0000-01-01T00:00:00Z", "2026-11-28T20:00:00+0100",
                 "2026-11-28T20:00:60Z", "2026-13-01T00:00:00Z"]
            )
        )  # fmt: skip
        ordinary = False
    spaced = draw(st.booleans())
    text = encode(obj, spaced)
    strings = " ".join(v for v in obj.values() if isinstance(v, str))
    if any(isinstance(v, list) and v and isinstance(v[0], dict) for v in obj.values()):
        ordinary = False  # chip lists and signers: the models decide
    if isinstance(obj.get("side_limits"), dict):
        ordinary = False  # a shoe's side-bet limits: the models decide
    if isinstance(obj.get("type"), str) and obj["type"] in TABLE_TYPES and "shoe" in obj:
        ordinary = False  # a shoe on a table-level event is an unknown field: the slow path
    if re.search(r"[,\[\]{}]|nan|inf|:\s*-?[0-9]", strings, re.IGNORECASE):
        ordinary = False  # text that looks like the guards' patterns may take the slow path
    if mutation == 9:  # duplicate a key: Python keeps the last, DuckDB the first
        key = draw(st.sampled_from(list(obj)))
        text = text[:-1] + f',"{key}":' + json.dumps(draw(JSON_VALUES)) + "}"
        ordinary = False
    elif mutation == 10:
        text = text[:-1] + ",}"
        ordinary = False
    elif mutation == 11:
        text = draw(st.sampled_from(["[1, 2]", '"x"', "42", "null", "{", text[: len(text) // 2]]))
        ordinary = False
    elif mutation == 12:
        text = "  " + text + " \t"
    return text, ordinary


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(lines(), min_size=1, max_size=25))
def test_bulk_validator_agrees_with_parse_line(
    session: Session, cases: list[tuple[str, bool]]
) -> None:
    texts = [t for t, _ in cases]
    bulk_rows, final = run_bulk(session, texts)
    for i, (text, ordinary) in enumerate(cases, start=1):
        event = python_accepts(text)
        if i in bulk_rows:
            assert event is not None, f"bulk accepted a line the models reject: {text}"
            expected = event_row(event, text)
            got = bulk_rows[i]
            for col in EVENT_COLUMNS:
                assert got[col] == expected[col], (col, text, got[col], expected[col])
        elif ordinary:
            pytest.fail(f"bulk rejected an ordinary valid line: {text}")
        assert (i in final) == (event is not None and storable(event)), text


# ------------------------------------------------------------------- lengths adding up by accident

_SETTLE_LINE = (
    '{"v":1,"id":"e1","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T1","shoe":"S1",'
    '"type":"settle","round":1,"box":2,"hand":0,"spot":0,"kind":"main","amount":10}'
)


@pytest.mark.parametrize(
    ("line", "accepted"),
    [
        # 1e1 comes back from DuckDB as "10.0", one character longer, which
        # makes room for a trailing comma (not JSON for Python).
        (_SETTLE_LINE.replace('"amount":10}', '"amount":1e1,}'), False),
        # ... or for a space (valid, but not the compact form).
        (_SETTLE_LINE.replace('"amount":10}', '"amount": 1e1}'), True),
    ],
)
def test_a_line_whose_length_adds_up_by_accident_is_not_taken_on_trust(
    session: Session, line: str, accepted: bool
) -> None:
    """The fast path trusts a line exactly as long as its fields' texts; a number
    DuckDB writes longer (an exponent form) must not let a trailing comma through."""
    _, final = run_bulk(session, [line])
    assert (python_accepts(line) is not None) is accepted
    assert (1 in final) is accepted


# ------------------------------------------------------------------- adversarial lines, one by one

_ENV = '"id":"e1","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T1","shoe":"S1"'


def _line(rest: str) -> str:
    return "{" + _ENV + "," + rest + "}"


def _settle(amount: str) -> str:
    return _line(
        f'"type":"settle","round":1,"box":1,"hand":0,"spot":0,"kind":"main","amount":{amount}'
    )


def _bet(amount: str) -> str:
    return _line(f'"type":"bet","round":1,"box":1,"spot":0,"amount":{amount}')


def _split(spots: str) -> str:
    return _line(f'"type":"action","round":1,"box":1,"hand":0,"action":"split","spots":{spots}')


def _round_open() -> str:
    return _line('"type":"round_open","round":1')


_BIG_INTS = ("9007199254740991", "9007199254740992", "9223372036854775807", "1" + "0" * 30)


_KINDS = (
    '"21plus3"', '"main"', '"insurance"', '"bonus"', '"_x"', '"Main"', '""', "null", "5",
    '"\\u0032\\u0031plus3"', '"' + "a" * 32 + '"', '"' + "a" * 33 + '"', '"21plus3\\n"',
    '"perfect-pairs"', '["main"]',
)  # fmt: skip
"""A ``bet``'s or ``settle``'s kind written every way the grammar allows or refuses."""


def _bulk_accepts(session: Session, line: str) -> bool:
    """Whether the bulk query marks the line ``valid`` (reads no other column)."""
    assert session.validate([(0, 1, line.encode("utf-8"))]) == []
    valid: list[bool | None] = session.rest.column("valid").to_pylist()
    return valid == [True]


def _assert_agrees(session: Session, line: str) -> None:
    """Bulk accepts only what parse_line accepts, and stores what event_row gives."""
    bulk_rows, _ = run_bulk(session, [line])
    if 1 in bulk_rows:
        event = python_accepts(line)
        assert event is not None, f"bulk accepted a line the models reject: {line}"
        expected = event_row(event, line)
        for col in EVENT_COLUMNS:
            assert bulk_rows[1][col] == expected[col], (col, bulk_rows[1][col], expected[col])


@pytest.mark.parametrize(
    "line",
    [
        _line('"type":"c\\u0061rd","round":1,"card":"AS","to":"dealer"'),
        _line('"t\\u0079pe":"card","round":1,"card":"10h","to":"dealer"'),
        _line('"type":"card","round":1,"card":"AS","to":"dealer","h\\u0061nd":null'),
        _line('"type":"card","round":1,"card":"AS","to":"box","box":9,"b\\u006fx":1'),
        _line('"type":"card","round":1,"card":"AS","to":"box","Box":9,"box":1'),
        _line('"type":"card","round":1,"card":"AS","to":"dealer","hand\\u0000":null'),
        _line('"type\\u0000":"round_open","round":1'),
        _line('"type":"round_open","round\\u0000":1'),
        _line('"type":"shoe_open","profile":"p","decks":6,"dealer":"d","round":0'),
        _line('"type":"shoe_open","profile":"p","decks":6,"dealer":"d","box":99'),
        _line('"type":"action","round":1,"box":1,"hand":null,"action":"hit"'),
        _line('"type":"card","round":1,"card":"AS","to":"dealer","amount":-5'),
        _line('"type":"cut","by":"dealer","box":null'),
        _line('"type":"burn","cards":[],"count":2'),
        _line('"type":"burn","count":2,"cards":["AS"]'),
        _line('"type":"bet","round":1,"box":1,"spot":0,"amount":-0.00'),
        _line('"type":"bet","round":1,"box":1,"spot":0,"amount":5E-3'),
        _line('"type":"settle","round":1,"box":1,"hand":0,"spot":0,"kind":"main","amount":10.500'),
        _line('"type":"settle","round":1,"box":1,"hand":0,"spot":0,"kind":"main","amount":0e-99'),
        _line('"type":"void","round":1,"reason":"a\\u0000b"'),
        _line('"type":"round_open","round":1,"x":-1e999'),
        _line('"type":"round_open","round":1,"x":[NaN]'),
        _line('"type":"round_open","round":1,"x":[1,]'),
        _line('"type":"round_open","round":1') + "\u00a0",
        _line('"type":"round_open","round":1').replace('"seq":1', '"seq":+1'),
        _line('"type":"round_open","round":1').replace('"e1"', '"\\U00e9"'),
        _line('"type":"round_open","round":1').replace('"e1"', '"e' + "\u0301" * 128 + '"'),
        _line('"type":"round_open","round":1').replace("+01:00", "-00:30"),
        _line('"type":"round_open","round":1').replace("T20:00:00+01:00", "t20:00:00.5z"),
        _line('"type":"round_open","round":1').replace("+01:00", ".1234567+01:00"),
        # TEL/1 v1.1 (issue 14, points 1-5): bounds, exponents, duplicate keys.
        *(_settle(a) for a in ("1e999999999", "1e-400", "1.5e-400", "0.5e-1", "2.5e1", "1E+2")),
        _settle('2,"amount":1000000'),
        _settle('2,"\\u0061mount":2'),
        *(_bet(a) for a in ("9999999999999999", "999999999999.99", "1000000000000")),
        *(_bet(a) for a in ("999999999999.995", "-999999999999.99", "0.00e5")),
        *(_round_open().replace('"seq":1', f'"seq":{n}') for n in _BIG_INTS),
        *(_line(f'"type":"round_open","round":{n}') for n in _BIG_INTS),
        *(_split(f"[{n}]") for n in _BIG_INTS),
        *(_line(f'"type":"shoe_open","profile":"p","decks":{n},"dealer":"d"') for n in _BIG_INTS),
        _round_open()[:-1] + ',"x":1,"x":1}',
        # TEL/1 v1.2 (games.md §2): a wager's kind
        *(_bet("5").replace('"amount":5', f'"amount":5,"kind":{k}') for k in _KINDS),
        *(_settle("5").replace('"kind":"main"', f'"kind":{k}') for k in _KINDS),
        _line('"type":"shoe_open","profile":"p","decks":6,"dealer":"d","side_limits":{}'),
        _line('"type":"shoe_open","profile":"p","decks":6,"dealer":"d","side_limits":null'),
        _line('"type":"shoe_open","profile":"p","decks":6,"dealer":"d","side_limits":[]'),
        _line(
            '"type":"shoe_open","profile":"p","decks":6,"dealer":"d",'
            '"side_limits":{"21plus3":{"max_bet":100},"bonus":{}}'
        ),
    ],
)
def test_adversarial_lines_agree_with_parse_line(session: Session, line: str) -> None:
    _assert_agrees(session, line)


@pytest.mark.parametrize(
    "line",
    [
        _line('"type":"burn","cards":["A\u017f"]'),
        _line('"type":"burn","cards":["10\u017f","KD"],"count":2'),
        _line('"type":"burn","cards":["\\u0041\\u017f"]'),
        _line('"type":"shuffle","method":"wash","order":["K\u017f"]'),
        _line('"type":"card","card":"A\u017f","to":"dealer","round":1'),
    ],
)
def test_a_card_with_a_long_s_is_no_card(session: Session, line: str) -> None:
    """'ſ' (U+017F) upper-cases to 'S' in Python and in DuckDB: a card code is
    ASCII, so neither takes 'Aſ' for the ace of spades (found by review: the
    bulk step used to store it as 'T')."""
    assert python_accepts(line) is None
    assert not _bulk_accepts(session, line)


_BIG = "9" * 4301


@pytest.mark.parametrize(
    "line",
    [
        _line(f'"type":"round_open","round":1,"x":{_BIG}'),
        _line(f'"type":"round_open","round":1,"x":{{"y":[-{_BIG}]}}'),
        _line(f'"type":"some_new_type","x":{_BIG}'),
        _line('"type":"round_open","round":1,"x":1e1000000000000000000'),
        _line('"type":"round_open","round":1,"x":1e-9999999999999999999'),
    ],
)
def test_a_number_python_cannot_read_is_not_accepted(session: Session, line: str) -> None:
    """The stored event would fail later (build_event parses the raw line for its
    extras): Python refuses 4300-digit integers and exponents Decimal cannot hold."""
    assert python_accepts(line) is None
    assert not _bulk_accepts(session, line)


@pytest.mark.parametrize(
    "ts", ["0001-01-01T00:00:00+01:00", "0001-01-01T00:30:00+00:45", "9999-12-31T23:59:59-01:00"]
)
def test_a_time_whose_utc_instant_python_cannot_hold_is_not_accepted(
    session: Session, ts: str
) -> None:
    """The models refuse a time whose UTC instant Python's datetime cannot hold
    (event_row used to raise OverflowError), and so does the bulk step."""
    line = _line('"type":"round_open","round":1').replace("2026-11-28T20:00:00+01:00", ts)
    assert python_accepts(line) is None
    assert not _bulk_accepts(session, line)


@pytest.mark.parametrize(
    ("line", "valid"),
    [
        (_bet("5").replace('"amount":5', '"amount":5,"kind":"21plus3"'), True),
        (_bet("5").replace('"amount":5', '"amount":5,"kind":"main"'), True),
        (_bet("5").replace('"amount":5', '"amount":5,"kind":"insurance"'), False),
        (_bet("5").replace('"amount":5', '"amount":5,"kind":"bonus"'), False),
        (_settle("45").replace('"kind":"main"', '"kind":"21plus3"'), True),
        (_settle("45").replace('"kind":"main"', '"kind":"_x"'), False),
    ],
)
def test_a_wagers_kind_is_checked_by_the_bulk_validator_games_2(
    session: Session, line: str, valid: bool
) -> None:
    """games.md §2: a side bet's ``bet`` and ``settle`` are ordinary lines (the fast path
    takes them); a ``bet`` of kind insurance or bonus, or a kind not of the id's form, is
    an invalid line, and the bulk validator refuses it too."""
    assert _bulk_accepts(session, line) is valid
    assert (python_accepts(line) is not None) is valid
    _assert_agrees(session, line)
