"""The committed JSON Schemas are current and describe TEL/1 as the models accept it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from audit.events.parse import loads, parse_line
from audit.findings import Code, Finding
from audit.schemas import render_schemas

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = """\
{"id":"T07-1","seq":1,"ts":"2026-11-28T20:00:00+01:00","table":"T07","shoe":"S","type":"shoe_open","profile":"it-casino-6d","decks":6,"dealer":"D042","currency":"EUR","min_bet":10,"max_bet":1000}
{"id":"T07-6","seq":6,"ts":"2026-11-28T20:02:30+01:00","table":"T07","shoe":"S","type":"burn","cards":["7H","KD","2C","9S","QH"],"face_down":true}
{"id":"T07-16","seq":16,"ts":"2026-11-28T20:03:40+01:00","table":"T07","shoe":"S","round":1,"type":"action","box":1,"hand":0,"action":"split"}
{"id":"T07-24","seq":24,"ts":"2026-11-28T20:04:21+01:00","table":"T07","shoe":"S","round":1,"type":"settle","box":1,"hand":1,"spot":0,"kind":"main","amount":75}
{"id":"T07-99","seq":99,"ts":"2026-11-28T20:04:21+01:00","table":"T07","shoe":"S","round":1,"type":"chip_count","n":3}
"""


def test_committed_schemas_are_current() -> None:
    for name, text in render_schemas().items():
        committed = (REPO / "schemas" / name).read_text(encoding="utf-8")
        assert committed == text, f"schemas/{name} is stale: run `shoe-audit schema --out schemas`"


@pytest.fixture(scope="module")
def event_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(render_schemas()["tel1-event.schema.json"])
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("text", EXAMPLE.splitlines())
def test_schema_accepts_what_the_models_accept(
    text: str, event_validator: jsonschema.Draft202012Validator
) -> None:
    parse_line(text)
    assert not list(event_validator.iter_errors(json.loads(text)))


@pytest.mark.parametrize(
    "patch",
    [
        {"seq": "3"},
        {"decks": "6"},
        {"ts": 5},
        {"min_bet": -1},
        {"currency": "euro"},
        # TEL/1 v1.1 bounds (issue 14, points 1-3)
        {"seq": 2**53},
        {"decks": 2**63 - 1},
        {"max_bet": 10**12},
        {"min_bet": 9999999999999999},
    ],
)
def test_schema_rejects_what_the_models_reject(
    patch: dict[str, object], event_validator: jsonschema.Draft202012Validator
) -> None:
    obj = {**json.loads(EXAMPLE.splitlines()[0]), **patch}
    assert list(event_validator.iter_errors(obj))


def test_finding_schema_matches_the_jsonl_shape() -> None:
    schema = json.loads(render_schemas()["finding.schema.json"])
    f = Finding(Code.PAY_WRONG_OUTCOME, "lost hand paid", table="T07", events=("a",))
    jsonschema.validate(loads(f.to_json()), schema)
