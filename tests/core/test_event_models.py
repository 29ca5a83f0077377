"""TEL/1 models accept exactly event-log.md's format (the input contract)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from audit.errors import MalformedEventError
from audit.events.models import Burn, CardDealt, Settle, ShoeOpen, UnknownEvent
from audit.events.parse import parse_line

BASE = {"id": "T07-1", "seq": 1, "ts": "2026-11-28T20:00:00+01:00", "table": "T07", "shoe": "S1"}


def line(**fields: object) -> str:
    return json.dumps({**BASE, **fields})


def test_shoe_open_with_optional_limits() -> None:
    ev = parse_line(
        line(type="shoe_open", profile="it-casino-6d", decks=6, dealer="D042", min_bet=10)
    )
    assert isinstance(ev, ShoeOpen)
    assert ev.min_bet == Decimal("10") and ev.max_bet is None


def test_money_is_exact_decimal_not_float() -> None:
    ev = parse_line(line(type="settle", round=1, box=1, hand=0, spot=0, kind="main", amount=37.5))
    assert isinstance(ev, Settle)
    assert ev.amount == Decimal("37.5")
    assert isinstance(ev.amount, Decimal)


def test_settle_may_be_negative_but_a_stake_may_not() -> None:
    parse_line(line(type="settle", round=1, box=1, hand=0, spot=0, kind="main", amount=-50))
    with pytest.raises(MalformedEventError, match="never negative"):
        parse_line(line(type="bet", round=1, box=1, spot=0, amount=-1))


def test_three_decimals_rejected() -> None:
    with pytest.raises(MalformedEventError, match="at most 2 decimals"):
        parse_line(line(type="bet", round=1, box=1, spot=0, amount=1.005))


@pytest.mark.parametrize(("given", "stored"), [("10h", "TH"), ("as", "AS"), ("Qc", "QC")])
def test_cards_normalised(given: str, stored: str) -> None:
    ev = parse_line(line(type="card", round=1, card=given, to="dealer"))
    assert isinstance(ev, CardDealt)
    assert ev.card == stored


@pytest.mark.parametrize("bad", ["1S", "AX", "", "TT", 10])
def test_unknown_card_rejected(bad: object) -> None:
    with pytest.raises(MalformedEventError, match="card"):
        parse_line(line(type="card", round=1, card=bad, to="dealer"))


@pytest.mark.parametrize("seq", ["3", 3.0, True, 0])
def test_seq_must_be_a_positive_integer(seq: object) -> None:
    with pytest.raises(MalformedEventError, match="seq"):
        parse_line(line(type="round_open", round=1, seq=seq))


def test_timestamp_needs_an_offset() -> None:
    with pytest.raises(MalformedEventError, match="offset"):
        parse_line(line(type="round_open", round=1, ts="2026-11-28T20:00:00"))
    ev = parse_line(line(type="round_open", round=1, ts="2026-11-28T19:00:00Z"))
    assert ev.ts.utcoffset() is not None


def test_unknown_type_kept_with_unknown_fields() -> None:
    ev = parse_line(line(type="chip_count", round=1, chips=[1, 2]))
    assert isinstance(ev, UnknownEvent)
    assert ev.model_extra == {"round": 1, "chips": [1, 2]}


def test_unknown_fields_kept_on_known_events() -> None:
    ev = parse_line(line(type="burn", cards=["7h"], camera="C3"))
    assert isinstance(ev, Burn)
    assert ev.cards == ["7H"] and ev.model_extra == {"camera": "C3"}


def test_round_events_need_a_round() -> None:
    with pytest.raises(MalformedEventError, match="missing required field 'round'"):
        parse_line(line(type="no_more_bets"))


def test_card_to_box_needs_the_box() -> None:
    with pytest.raises(MalformedEventError, match="names the 'box'"):
        parse_line(line(type="card", round=1, card="AS", to="box"))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"id": "x"}', "missing required field 'seq'"),
        (
            '{"id":"x","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T","shoe":"S",'
            '"type":"bet","round":1,"box":8,"spot":0,"amount":5}',
            "box",
        ),
        (
            '{"id":"x","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T","shoe":"S",'
            '"type":"round_open","round":1,"v":2}',
            "v",
        ),
        (
            '{"id":"x","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T","shoe":"S",'
            '"type":"round_open","round":1,"v":true}',
            "v is the integer 1",
        ),
        (
            '{"id":"x","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T","shoe":"S",'
            '"type":"round_open","round":1,"v":1.0}',
            "v is the integer 1",
        ),
        ("NaN", "not JSON"),
        # Found by review: these raised (InvalidOperation, OverflowError) or passed.
        (
            '{"id":"x","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T","shoe":"S",'
            '"type":"settle","round":1,"box":1,"hand":0,"spot":0,"kind":"main",'
            '"amount":123456789012345678901234567890.123}',
            "at most 2 decimals",
        ),
        (
            '{"id":"x","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T","shoe":"S",'
            '"type":"round_open","round":1,"x":1e1000000000000000000}',
            "number out of range",
        ),
        (
            '{"id":"x","seq":1,"ts":"0001-01-01T00:00:00+01:00","table":"T","shoe":"S",'
            '"type":"round_open","round":1}',
            "outside the years 1-9999",
        ),
        (
            '{"id":"x","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T","shoe":"S",'
            '"type":"card","round":1,"card":"A\u017f","to":"dealer"}',
            "unknown card",
        ),
    ],
)
def test_malformed_lines_say_why(text: str, why: str) -> None:
    with pytest.raises(MalformedEventError, match=why):
        parse_line(text)


def test_line_too_long() -> None:
    with pytest.raises(MalformedEventError, match="line too long"):
        parse_line("x" * 1_000_001)


def test_the_line_limit_counts_bytes_as_the_reader_does() -> None:
    # 500,001 two-byte characters: under 1M characters, over 1 MB.
    with pytest.raises(MalformedEventError, match="1,000,002 bytes"):
        parse_line("é" * 500_001)


def test_invalid_utf8() -> None:
    with pytest.raises(MalformedEventError, match="UTF-8"):
        parse_line(b'{"id": "\xff"}')
