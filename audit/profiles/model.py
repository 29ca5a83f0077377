"""The rule profile: a blackjack variant's rules as data.

A profile file (TOML) names each rule once, with its value and the seed text it
comes from; a value the seeds leave open is marked ``house_default = true``.
Code branches on these *fields* (``dealer_stands_on_soft_17``), never on a
profile's id. The field names are what a finding's ``rule`` cites.
"""

from __future__ import annotations

import hashlib
import json
import re
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


Rank = Literal["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
"""A card's rank as the rules name it; ``T`` is every ten-value (10, J, Q, K)."""
RANKS: tuple[Rank, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")

TAKES_ALL = "dealer_blackjack_takes_all"
"""The v1 field ``dealer_blackjack_takes`` replaces, still read (true: ``all``, false:
``original_and_busted``, what the engine did with it)."""

SIDE_BET_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,31}$")
"""A side bet's id (games.md §2): 1-32 of a-z, 0-9, _, not starting with _."""
RESERVED_KINDS = frozenset({"main", "insurance", "bonus"})


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
    the dealer's first card, ``hole_card_face_up`` his second. With two dealer
    cards and exactly one face down, that card is the **hole card** and the
    other the **up card** (games.md §1); with one dealer card it is his up card.
    Whether the dealer peeks is a rule of its own (``peek_on_ace``,
    ``peek_on_ten``): the old key ``peek`` is refused naming them (``peek = false``,
    which v1 read as no peek, still loads).

    A profile file may name a preset instead: ``"no_hole_card"`` or
    ``"face_down_two_each"`` (how profiles wrote it before the procedure was data).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    dealer_cards: Literal[1, 2]
    face_up: bool
    dealer_face_up: bool
    hole_card_face_up: bool = False

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value not in DEAL_PRESETS:
                raise ValueError(
                    f"unknown initial deal {value!r}: a table of dealer_cards, face_up, "
                    f"dealer_face_up, hole_card_face_up, or one of {sorted(DEAL_PRESETS)}"
                )
            return DEAL_PRESETS[value]
        if isinstance(value, dict) and "peek" in value:
            # v1 refused peek = true and read peek = false as no peek, which the new
            # fields' defaults say too: a casino's copy written so keeps loading
            if value["peek"] is not False:
                raise ValueError(
                    f"initial_deal.peek is no longer read (got {value['peek']!r}): the peek is "
                    "peek_on_ace and peek_on_ten in [rules] (games.md §1)"
                )
            value = {k: v for k, v in value.items() if k != "peek"}
        return value

    @property
    def has_hole_card(self) -> bool:
        """Two dealer cards in the deal, exactly one of them face down (games.md §1)."""
        return self.dealer_cards == 2 and self.dealer_face_up != self.hole_card_face_up

    @property
    def hole_card_index(self) -> int | None:
        """Which of the dealer's deal cards (0 his first, 1 his second) is the hole card."""
        if not self.has_hole_card:
            return None
        return 1 if self.dealer_face_up else 0

    @property
    def upcard_index(self) -> int | None:
        """Which of the dealer's deal cards is his up card; None where none is dealt face up."""
        if self.dealer_cards == 1:
            return 0 if self.dealer_face_up else None
        if self.has_hole_card:
            return 0 if self.dealer_face_up else 1
        return None

    def __str__(self) -> str:
        faces = "face up" if self.face_up else "face down"
        if self.dealer_cards == 1:
            dealer = f"the dealer one card {'up' if self.dealer_face_up else 'down'}, no hole card"
        else:
            first = "up" if self.dealer_face_up else "down"
            second = "up" if self.hole_card_face_up else "down"
            dealer = f"the dealer two cards (first {first}, second {second})"
        return f"two cards to each box {faces}; {dealer}"


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
    double_max_cards: int | None = Field(
        default=2,
        ge=2,
        description="the most cards a hand may hold when it doubles; null: any number",
    )
    resplit_aces: bool = Field(
        default=True,
        description="a pair of aces from split aces may be split again within max_hands_per_box",
    )
    split_forbidden_ranks: list[Rank] = Field(
        default_factory=list,
        description="pairs that may not be split; T stands for every pair of ten-values",
    )
    surrender_allowed: bool
    surrender_kind: Literal["late", "early"] = Field(
        default="late",
        description="late: after the peek, forfeited against a dealer blackjack; early: also "
        "before the peek, and stands against a dealer blackjack",
    )
    surrender_against: list[Rank] = Field(
        default_factory=lambda: list(RANKS),
        description="the up cards a surrender is allowed against",
    )
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
    peek_on_ace: bool = Field(
        default=False,
        description="with a hole card and an ace up, the dealer checks for a blackjack before "
        "any player decision",
    )
    peek_on_ten: bool = Field(default=False, description="the same with a ten-value up")
    dealer_blackjack_takes: Literal["all", "original", "original_and_busted", "busted_plus_one"] = (
        Field(
            description="what a dealer blackjack takes from hands already played: all (ENHC), "
            "original (OBO), original_and_busted (OBBO), busted_plus_one (BB+1); a file may "
            "still write dealer_blackjack_takes_all (true: all, false: original_and_busted)"
        )
    )
    dealer_22_pushes: bool = Field(
        default=False,
        description="the dealer's final 22 pushes every main wager still in play except a natural",
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
    blackjack_paid: Literal["at_settlement", "on_the_spot", "at_once", "when_known"] = Field(
        description="at_settlement; on_the_spot: 001's staged payment; "
        "at_once: when play reaches the box; when_known: at any moment once the dealer's "
        "blackjack is ruled out and before the round is over (games.md §1)"
    )
    win_pays: Ratio
    settlement_order: Literal["any", "high_to_low"]
    payout_rounding: Literal["half_away_from_zero", "house"] = Field(
        default="half_away_from_zero",
        description="a due finer than a cent (3:2 of 10.01 is 15.015) is judged rounded to "
        "the cent: half_away_from_zero (15.02); house: a payment rounds down (15.01), a take "
        "rounds up in size",
    )
    payout_unit: Decimal = Field(
        default=Decimal("0.01"),
        gt=0,
        decimal_places=2,
        description="the smallest amount the house pays (a house without coins: its "
        "smallest chip); a due that is no whole multiple of its stake is rounded to it",
    )
    side_bets: dict[str, str] = Field(
        default_factory=dict,
        description="the side bets offered: the id a log writes in a bet's kind, and the "
        "pay table it pays by",
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
    spelled: dict[str, str] = Field(
        default_factory=dict,
        description="not a rule: a field the profile file names by its older name (the "
        "name a finding's rule cites, as the file spells it)",
    )

    @model_validator(mode="before")
    @classmethod
    def _older_names(cls, data: Any) -> Any:
        if not isinstance(data, dict) or TAKES_ALL not in data:
            return data
        if "dealer_blackjack_takes" in data:
            raise ValueError(
                f"name dealer_blackjack_takes or {TAKES_ALL}, not both "
                "(dealer_blackjack_takes replaces it, games.md §1)"
            )
        data = dict(data)
        takes_all = data.pop(TAKES_ALL)
        if not isinstance(takes_all, bool):
            raise ValueError(f"{TAKES_ALL} is true or false, got {takes_all!r}")
        data["dealer_blackjack_takes"] = "all" if takes_all else "original_and_busted"
        data["spelled"] = {**data.get("spelled", {}), "dealer_blackjack_takes": TAKES_ALL}
        return data

    @model_validator(mode="after")
    def _coherent(self) -> Rules:
        if (self.peek_on_ace or self.peek_on_ten) and not self.initial_deal.has_hole_card:
            field = "peek_on_ace" if self.peek_on_ace else "peek_on_ten"
            raise ValueError(
                f"{field} = true needs a hole card: initial_deal gives the dealer two cards, "
                "exactly one face down (games.md §1)"
            )
        for side_bet, paytable in self.side_bets.items():
            if not SIDE_BET_ID.match(side_bet) or side_bet in RESERVED_KINDS:
                raise ValueError(
                    f"side_bets: {side_bet!r} is no side-bet id (1-32 of a-z, 0-9 and _, not "
                    "starting with _; not main, insurance or bonus; games.md §2)"
                )
            if not isinstance(paytable, str) or not paytable.strip():
                raise ValueError(f"side_bets: {side_bet!r} names no pay table")
        return self

    def rule_name(self, field: str) -> str:
        """The name a finding's ``rule`` gives ``field``: as the profile file spells it."""
        return self.spelled.get(field, field)


NOT_RULES = frozenset({"spelled"})
"""Fields of :class:`Rules` that are no rule (no source, not listed)."""


def side_bet_problem(rules: Rules, evaluators: dict[str, str]) -> str | None:
    """Why a profile's side bets cannot be offered (games.md §1), or None.

    ``evaluators``: each known pay table's id and its evaluator, which the pay-table
    loader (``audit/profiles/data/paytables/``) knows; this is its seam: the loader
    calls it for each profile. A side bet naming no known pay table; a ``three_card``
    or ``twenty`` bet where the deal gives the dealer no face-up card; a
    ``dealer_bust_cards`` bet where the dealer plays freely (no draw rule).
    """
    for side_bet, paytable in sorted(rules.side_bets.items()):
        evaluator = evaluators.get(paytable)
        if evaluator is None:
            return f"side_bets: {side_bet!r} names pay table {paytable!r}, which is not known"
        if evaluator in ("three_card", "twenty") and rules.initial_deal.upcard_index is None:
            return (
                f"side_bets: {side_bet!r} pays by {paytable!r} ({evaluator}), which reads the "
                "dealer's up card, and initial_deal deals him none face up"
            )
        if evaluator == "dealer_bust_cards" and rules.dealer_plays_freely:
            return (
                f"side_bets: {side_bet!r} pays by {paytable!r} ({evaluator}), which needs a "
                "dealer draw rule, and the dealer plays freely"
            )
    return None


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
    **{
        name: RuleSource(
            source=f"games.md §1: {name} defaults to {meaning}, what the auditor did before "
            "the field existed; house default for a profile file that does not name it",
            house_default=True,
        )
        for name, meaning in {
            "peek_on_ace": "false (no peek)",
            "peek_on_ten": "false (no peek)",
            "dealer_22_pushes": "false (a dealer 22 busts)",
            "double_max_cards": "2 (a double on the first two cards only)",
            "resplit_aces": "true (only the hand limit bounds a resplit of aces)",
            "split_forbidden_ranks": "none (every pair may be split)",
            "surrender_kind": "late",
            "surrender_against": "every up card",
            "payout_unit": "0.01 (the cent)",
            "side_bets": "none offered",
        }.items()
    },
}
"""Sources of rules added after profile files were written, for files that do not name them."""


class SideBetTable(BaseModel):
    """One side bet's pay table as the engine reads it (games.md §1, "Side bets are data").

    Plain data, loaded beside the profile (:func:`audit.profiles.registry.load_registry`)
    so the engine needs no file: which evaluator decides the bet, and what each line the
    table lists pays to 1, best first.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    paytable: str
    evaluator: str
    pays: tuple[tuple[str, Ratio], ...]


class Profile(BaseModel):
    """A named rule profile: its rules and where each comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    seed: str = Field(description="the seed text it is read from")
    rules: Rules
    sources: dict[str, RuleSource]
    side_bet_tables: dict[str, SideBetTable] = Field(
        default_factory=dict,
        description="not a rule: the pay table of each side bet the profile offers "
        "(side_bets), as the loader found it beside the profile files",
    )

    @model_validator(mode="before")
    @classmethod
    def _newer_rules_default(cls, data: Any) -> Any:
        # a casino's own profile file written before a rule was added keeps loading
        if isinstance(data, dict) and isinstance(data.get("sources"), dict):
            sources = dict(data["sources"])
            if TAKES_ALL in sources and "dealer_blackjack_takes" not in sources:
                # the older name's source is the new field's (Rules reads its value)
                sources["dealer_blackjack_takes"] = sources.pop(TAKES_ALL)
            for name, source in _DEFAULT_SOURCES.items():
                sources.setdefault(name, source)
            data = {**data, "sources": sources}
        return data

    @model_validator(mode="after")
    def _every_rule_has_a_source(self) -> Profile:
        rules = set(Rules.model_fields) - NOT_RULES
        missing = sorted(rules - set(self.sources))
        extra = sorted(set(self.sources) - rules)
        if missing or extra:
            raise ValueError(f"rule sources missing for {missing}, unknown rules {extra}")
        return self

    @cached_property
    def digest(self) -> str:
        """A hash of the rules and sources (and its side bets' pay tables, where it offers
        any): a changed profile re-audits its shoes."""
        dumped = self.model_dump(mode="json")
        if not self.side_bet_tables:
            del dumped["side_bet_tables"]  # a profile without side bets hashes as before
        payload = json.dumps(dumped, sort_keys=True)
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
        return ", ".join(str(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} → {v}" for k, v in value.items()) if value else "none"
    return str(value)  # a Deal reads as a sentence


def describe_rules(profile: Profile) -> list[tuple[str, str, bool, str]]:
    """Every rule of a profile as (name, value, house_default, source), in field order."""
    rows = []
    for name in Rules.model_fields:
        if name in NOT_RULES:
            continue
        src = profile.sources[name]
        value = format_rule_value(getattr(profile.rules, name))
        if name in profile.rules.spelled:
            value += f" (written {profile.rules.spelled[name]})"
        rows.append((name, value, src.house_default, src.source))
    return rows
