"""The rule profile: a blackjack variant's rules as data.

A profile file (TOML) names each rule once, with its value and the seed text it
comes from; a value the seeds leave open is marked ``house_default = true``.
Code branches on these *fields* (``dealer_stands_on_soft_17``), never on a
profile's id. The field names are what a finding's ``rule`` cites.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    model_validator,
)


def _fraction(v: Any) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, str) and "/" in v:
        num, den = v.split("/", 1)
        return Fraction(int(num), int(den))
    raise ValueError(f"a ratio is written as a fraction such as '3/2', got {v!r}")


Ratio = Annotated[
    Fraction,
    BeforeValidator(_fraction),
    PlainSerializer(lambda f: f"{f.numerator}/{f.denominator}", return_type=str),
]


class RuleSource(BaseModel):
    """Where a rule's value comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    house_default: bool = False


class Deal(BaseModel):
    """The initial deal's procedure, as data (rules.md, "initial deal").

    Two passes in box order, one card to each box with a stake per pass; the
    dealer's cards come last in their passes: with ``dealer_cards`` 1 only in
    the first (no hole card: 000, 001, 004), with 2 in both (the home banker,
    002; or a hole card). ``face_up`` is the players' cards, ``dealer_face_up``
    the dealer's first card, ``hole_card_face_up`` his second. ``peek``: with a
    hole card, the dealer checks it for a blackjack before play (not in any
    profile yet: the rule and a TEL/1 ``peek`` event would come with the first
    such game, see docs/architecture.md).

    A profile file may name a preset instead: ``"no_hole_card"`` or
    ``"face_down_two_each"`` (how profiles wrote it before the procedure was data).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    dealer_cards: Literal[1, 2]
    face_up: bool
    dealer_face_up: bool
    hole_card_face_up: bool = False
    peek: bool = False

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value not in DEAL_PRESETS:
                raise ValueError(
                    f"unknown initial deal {value!r}: a table of dealer_cards, face_up, "
                    f"dealer_face_up, hole_card_face_up, peek, or one of {sorted(DEAL_PRESETS)}"
                )
            return DEAL_PRESETS[value]
        return value

    @model_validator(mode="after")
    def _supported(self) -> Deal:
        if self.peek:
            raise ValueError(
                "peek = true: this engine has no peek rule yet (TEL/1 has no peek event); "
                "see docs/architecture.md"
            )
        return self

    def __str__(self) -> str:
        faces = "face up" if self.face_up else "face down"
        if self.dealer_cards == 1:
            dealer = f"the dealer one card {'up' if self.dealer_face_up else 'down'}, no hole card"
        else:
            first = "up" if self.dealer_face_up else "down"
            second = "up" if self.hole_card_face_up else "down"
            dealer = f"the dealer two cards (first {first}, second {second})"
        return f"two cards to each box {faces}; {dealer}" + ("; peek" if self.peek else "")


DEAL_PRESETS: dict[str, dict[str, Any]] = {
    "no_hole_card": {"dealer_cards": 1, "face_up": True, "dealer_face_up": True},
    "face_down_two_each": {"dealer_cards": 2, "face_up": False, "dealer_face_up": False},
}
"""The deal procedures profiles named before the procedure was data."""


class Rules(BaseModel):
    """Every rule the auditor enforces, one field each (rules.md, "The profiles")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # the shoe
    decks: int | None = Field(description="decks in the shoe; null: as shoe_open.decks")
    inspection_required: bool = Field(
        description="new decks are spread face up and checked before the first shoe of the day"
    )
    shuffle_required: bool = Field(description="a shuffle before the first round of a shoe")
    shuffle_every_round: bool = Field(description="a full reshuffle before every round")
    cut_required: bool = Field(description="the pack is cut by a player before the first round")
    cut_card_used: bool = Field(description="a cut card marks the end of the shoe")
    cut_card_min_behind: int | None = Field(description="fewest cards behind the cut card")
    cut_card_max_behind: int | None = Field(description="most cards behind the cut card")
    burn_count: int = Field(description="cards burned at shoe start")
    cut_card_last_round: bool = Field(
        description="when the cut card comes out, the round is finished and is the last"
    )
    # betting
    bets_close_before_start_burn: bool = Field(
        description="in round 1, no more bets before the burn"
    )
    max_spots_per_box: int | None = Field(description="spots (betting circles) per box")
    box_holder_decides: bool = Field(description="the box holder decides for every spot")
    split_double_unanimity: bool = Field(
        description="every bettor of a box must agree to a split or double; "
        "one objection forbids it"
    )
    split_double_every_spot: bool = Field(
        default=True,
        description="every staked spot of the box takes part in a double or split (an action "
        "whose spots leaves one out is PLAY_UNCONSENTED), whether the bettors agree to it "
        "(split_double_unanimity) or the box holder binds them",
    )
    # the deal
    initial_deal: Deal = Field(
        description="the initial deal: two passes in box order, the dealer's cards last in "
        "their passes; how many the dealer takes and which face up (no_hole_card: one up to "
        "the dealer; face_down_two_each: two to everyone, all face down)"
    )
    # playing
    mandatory_hit_max: int | None = Field(
        description="a hand whose best total is at or under this must hit"
    )
    stand_on_21: bool = Field(description="a hand at 21 must stand")
    double_allowed: bool
    double_totals: list[int] | None = Field(
        description="first-two-card totals that may double; null: any"
    )
    double_soft_ace_either: bool = Field(
        description="for double_totals the ace counts 1 or 11 as the player chooses"
    )
    double_after_split: bool
    double_on_split_aces: bool
    double_max_ratio: Ratio = Field(
        description="the extra stake of a double, at most this x the stake"
    )
    split_allowed: bool
    max_hands_per_box: int = Field(description="hands a box may hold after splits (2: no re-split)")
    split_aces_one_card: bool = Field(description="each split ace receives exactly one card")
    surrender_allowed: bool
    # side bets
    insurance_offered: bool
    insurance_max_ratio: Ratio = Field(description="insurance at most this x the spot's stake")
    insurance_pays: Ratio
    even_money_offered: bool
    three_sevens_pays: Ratio | None = Field(
        description="prize for 21 with three sevens, on the hand's stake before any double"
    )
    # the dealer
    dealer_plays_freely: bool = Field(description="no dealer-draw rule (the home banker)")
    dealer_stands_on: int = Field(description="the dealer draws below this total and stands on it")
    dealer_stands_on_soft_17: bool
    dealer_blackjack_takes_all: bool = Field(
        description="with no hole card, the dealer's blackjack takes doubles and splits whole"
    )
    banker_max_rounds: int | None = Field(
        description="rounds one banker may deal in a row at a table"
    )
    exposed_card_procedure: bool = Field(
        description="an exposed card is offered in turn, then to the dealer; "
        "burned only if all refuse"
    )
    # paying
    blackjack_pays: Ratio
    blackjack_beats_dealer_21: bool = Field(
        description="a natural beats the dealer's 21 in 3+ cards"
    )
    blackjack_paid: Literal["at_settlement", "on_the_spot", "at_once"] = Field(
        description="at_settlement; on_the_spot: 001's staged payment; "
        "at_once: when play reaches the box"
    )
    win_pays: Ratio
    settlement_order: Literal["any", "high_to_low"]
    payout_rounding: Literal["half_away_from_zero", "house"] = Field(
        default="half_away_from_zero",
        description="a due finer than a cent (3:2 of 10.01 is 15.015) is judged rounded to "
        "the cent: half_away_from_zero (15.02); house: a payment rounds down (15.01), a take "
        "rounds up in size",
    )
    # the statistics (rules.md is silent: added for the statistical audit)
    house_edge: Decimal | None = Field(
        default=None,
        ge=-1,
        le=1,
        description="the house's expected net win per unit of main handle, as this table's "
        "players play (insurance and bonus results in the win); null: unknown, the house "
        "result is shown but not tested",
    )


_DEFAULT_SOURCES = {
    "payout_rounding": RuleSource(
        source="rules.md v1.2: «Money due is exact» ... half away from zero (the seeds are "
        "silent); house default for a profile file that does not name it",
        house_default=True,
    ),
    "split_double_every_spot": RuleSource(
        source="rules.md v1.2: under every casino profile every staked spot takes part in a "
        "double or split; house default for a profile file that does not name it",
        house_default=True,
    ),
    "house_edge": RuleSource(
        source="house default: not in the profile file, so no expected edge", house_default=True
    ),
}
"""Sources of rules added after profile files were written, for files that do not name them."""


class Profile(BaseModel):
    """A named rule profile: its rules and where each comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    seed: str = Field(description="the seed text it is read from")
    rules: Rules
    sources: dict[str, RuleSource]

    @model_validator(mode="before")
    @classmethod
    def _newer_rules_default(cls, data: Any) -> Any:
        # a casino's own profile file written before a rule was added keeps loading
        if isinstance(data, dict) and isinstance(data.get("sources"), dict):
            sources = dict(data["sources"])
            for name, source in _DEFAULT_SOURCES.items():
                sources.setdefault(name, source)
            data = {**data, "sources": sources}
        return data

    @model_validator(mode="after")
    def _every_rule_has_a_source(self) -> Profile:
        missing = sorted(set(Rules.model_fields) - set(self.sources))
        extra = sorted(set(self.sources) - set(Rules.model_fields))
        if missing or extra:
            raise ValueError(f"rule sources missing for {missing}, unknown rules {extra}")
        return self

    @cached_property
    def digest(self) -> str:
        """A hash of the rules and sources: a changed profile re-audits its shoes."""
        payload = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def format_rule_value(value: object) -> str:
    """A rule's value as a person reads it: ``3/2``, ``9, 10, 11``, ``none``, ``yes``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)  # a Deal reads as a sentence


def describe_rules(profile: Profile) -> list[tuple[str, str, bool, str]]:
    """Every rule of a profile as (name, value, house_default, source), in field order."""
    rows = []
    for name in Rules.model_fields:
        src = profile.sources[name]
        rows.append(
            (name, format_rule_value(getattr(profile.rules, name)), src.house_default, src.source)
        )
    return rows
