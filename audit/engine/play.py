"""The players' rules: which card a hand may take, and which doubles and splits the profile allows.

Each check reads a hand and the profile and returns the breach (or None); it
changes nothing (PokerKit's ``verify_x``). :class:`audit.engine.round.Round`
applies the event afterwards, as it happened: rules.md judges what actually
happened at the table.
"""

from __future__ import annotations

from audit.engine.event import money
from audit.engine.hands import can_split_pair, double_total_ok
from audit.engine.state import Box, Hand
from audit.events.cards import is_ten_value
from audit.findings import Code
from audit.profiles.model import Rules

HIT_RULE: dict[Code, str] = {
    Code.PLAY_HIT_ON_BLACKJACK: "blackjack_pays",
    Code.PLAY_SPLIT_ACES_CARDS: "split_aces_one_card",
    Code.PLAY_DOUBLE_CARDS: "double_allowed",
    Code.PLAY_HIT_AFTER_BUST: "win_pays",
    Code.PLAY_HIT_ON_21: "stand_on_21",
}
"""The profile field each card-to-a-hand code cites."""


def hit_violation(hand: Hand, rules: Rules) -> Code | None:
    """Which rule a card to this hand breaks, in rules.md's precedence order.

    ``PLAY_HIT_ON_BLACKJACK`` (004: no card after a blackjack),
    ``PLAY_SPLIT_ACES_CARDS`` (000: one card each), ``PLAY_DOUBLE_CARDS`` (000:
    exactly one card), ``PLAY_HIT_AFTER_BUST`` (004: out of the game),
    ``PLAY_HIT_ON_21`` (004: «quando arriva al 21 si deve fermare»). The caller
    checks ``DEAL_OUT_OF_TURN`` last. rules.md v1.2: a double on split aces is
    ``PLAY_ILLEGAL_DOUBLE``, and the one card it takes is not also
    ``PLAY_SPLIT_ACES_CARDS``.
    """
    n = len(hand.cards)
    if hand.natural:
        return Code.PLAY_HIT_ON_BLACKJACK
    if (
        hand.split_aces
        and rules.split_aces_one_card
        and n >= 2
        and not (hand.doubled and hand.cards_after_double == 0)
    ):
        return Code.PLAY_SPLIT_ACES_CARDS
    if hand.doubled and hand.cards_after_double >= 1:
        return Code.PLAY_DOUBLE_CARDS
    if hand.hard > 21:
        return Code.PLAY_HIT_AFTER_BUST
    if rules.stand_on_21 and n >= 2 and hand.total == 21:
        return Code.PLAY_HIT_ON_21
    return None


def hand_is_over(hand: Hand, rules: Rules) -> bool:
    """Whether the cards alone end the hand's turn once it has two.

    A natural, a bust, a double's one card, a split ace's one card (000), and
    21 where the profile requires standing on it (004).
    """
    return len(hand.cards) >= 2 and (
        hand.natural
        or hand.hard > 21
        or (hand.doubled and hand.cards_after_double >= 1)
        or (hand.split_aces and rules.split_aces_one_card)
        or (rules.stand_on_21 and hand.total == 21)
    )


def mandatory_hit_breach(hand: Hand, rules: Rules) -> bool:
    """004: a hand whose best total is 11 or less must hit («ha l'obbligo di superarlo»).

    A double takes its one card and ends the hand even at 11 or less (rules.md
    house default); a natural, a bust and a surrender are not stopping.
    """
    mx = rules.mandatory_hit_max
    return (
        mx is not None
        and not hand.phantom
        and len(hand.cards) >= 2
        and not hand.natural
        and not hand.bust
        and not hand.doubled
        and not hand.surrendered
        and hand.total <= mx
    )


def double_violation(hand: Hand, rules: Rules, extras: dict[int, int]) -> tuple[str, str] | None:
    """Why a double breaks the profile, as (rule field, reason), or None (000, 001).

    000: the first two cards total 9, 10 or 11 (the ace 1 or 11 at the
    player's choice), one more card, the extra stake at most the stake; rules.md:
    never on a natural; after a split when ``double_after_split``; never on
    split aces unless ``double_on_split_aces``. games.md §1: on at most
    ``double_max_cards`` cards (2: the first two; null: any number).
    """
    cards = hand.cards
    if not rules.double_allowed:
        return ("double_allowed", "the profile allows no double")
    if hand.doubled:
        return ("double_allowed", "the hand is already doubled")
    most = rules.double_max_cards
    if len(cards) < 2 or (most == 2 and len(cards) != 2):
        return ("double_allowed", f"a double is on the first two cards, the hand has {len(cards)}")
    if most is not None and len(cards) > most:
        return ("double_max_cards", f"a double on at most {most} cards, the hand has {len(cards)}")
    if hand.natural:
        return ("double_allowed", "a natural never doubles")
    if hand.split_aces and not rules.double_on_split_aces:
        return ("double_on_split_aces", "no double on split aces")
    if hand.from_split and not rules.double_after_split:
        return ("double_after_split", "no double after a split")
    # double_totals names first-two-card totals: a double on more cards (double_max_cards
    # above 2 or null) is judged by double_max_cards alone
    if len(cards) == 2 and not double_total_ok(
        cards, rules.double_totals, rules.double_soft_ace_either
    ):
        return (
            "double_totals",
            f"{','.join(cards)} totals {hand.total}; doubles are allowed on "
            f"{', '.join(str(t) for t in rules.double_totals or [])}",
        )
    ratio = rules.double_max_ratio
    for spot, extra in sorted(extras.items()):
        own = hand.stakes.get(spot, 0)
        if extra * ratio.denominator > own * ratio.numerator:
            return (
                "double_max_ratio",
                f"spot {spot} adds {money(extra)} on a stake of {money(own)}: "
                f"at most {ratio} of the stake",
            )
    return None


def rank_of(card: str) -> str:
    """A card's rank as profiles name it: ``T`` for every ten-value (games.md §1)."""
    return "T" if is_ten_value(card) else card[0]


def surrender_violation(
    hand: Hand, rules: Rules, upcard: str | None, decided_before: bool, early: bool
) -> tuple[str, str] | None:
    """Why a surrender breaks the profile, as (rule field, reason), or None (games.md §3).

    Allowed where ``surrender_allowed``, against an up card in ``surrender_against``,
    as the hand's first decision on its first two cards, never on a natural or a hand
    from a split (house default); ``early`` (before the due peek, nothing moved since
    the deal) only where ``surrender_kind`` is ``early``.
    """
    if not rules.surrender_allowed:
        return ("surrender_allowed", "the profile allows no surrender")
    if upcard is not None and rank_of(upcard) not in rules.surrender_against:
        return ("surrender_against", f"no surrender against a {rank_of(upcard)}")
    if hand.from_split:
        return ("surrender_allowed", "a hand from a split never surrenders")
    if hand.natural:
        return ("surrender_allowed", "a natural never surrenders")
    if decided_before or len(hand.cards) != 2:
        return ("surrender_allowed", "a surrender is the hand's first decision on two cards")
    if early and rules.surrender_kind != "early":
        return ("surrender_kind", "an early surrender (before the peek) where only late is allowed")
    return None


def split_violation(hand: Hand, box: Box, rules: Rules) -> tuple[str, str] | None:
    """Why a split breaks the profile, as (rule field, reason), or None.

    000: two equal cards (ten-values are all equal); rules.md: no re-split
    (``max_hands_per_box``); 002: no split at all (house default). games.md §3:
    never a pair in ``split_forbidden_ranks`` (``T`` every ten-value), nor aces from
    split aces without ``resplit_aces``.
    """
    cards = hand.cards
    if not rules.split_allowed:
        return ("split_allowed", "the profile allows no split")
    if len(cards) != 2:
        return ("split_allowed", f"a split is of two cards, the hand has {len(cards)}")
    if not can_split_pair(cards):
        return ("split_allowed", f"{cards[0]} and {cards[1]} are not equal cards")
    rank = rank_of(cards[0])
    if rank in rules.split_forbidden_ranks:
        return ("split_forbidden_ranks", f"a pair of {rank}s may not be split")
    if hand.split_aces and rank == "A" and not rules.resplit_aces:
        return ("resplit_aces", "aces from split aces may not be split again")
    if len(box.hands) + 1 > rules.max_hands_per_box:
        return (
            "max_hands_per_box",
            f"the box would hold {len(box.hands) + 1} hands; at most {rules.max_hands_per_box}",
        )
    return None


def consent_violation(
    rules: Rules, hand: Hand, spots: list[int], objections: list[str]
) -> tuple[str, str] | None:
    """Why a double or split goes ahead without its bettors, as (rule field, reason), or None.

    000: «tutti i giocatori che hanno puntato debbono essere d'accordo. Se uno si
    oppone ... il raddoppio non si può fare» (``split_double_unanimity``: one
    objection forbids it); with it false the box holder binds the others (001,
    004: «vincolano il gioco») and objections have no effect. rules.md v1.2
    (``split_double_every_spot``): under all three casino profiles every staked
    spot takes part, so an action whose ``spots`` leaves one out is a breach
    whether the bettors agree or the holder binds them.
    """
    if objections and rules.split_double_unanimity:
        return ("split_double_unanimity", f"a bettor objected ({', '.join(objections)})")
    if rules.split_double_every_spot:
        missing = [s for s in hand.staked_spots() if s not in spots]
        if missing:
            return ("split_double_every_spot", f"spot(s) {missing} did not take part")
    return None
