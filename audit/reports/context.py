"""The documented context objects the report templates render.

Every template under ``reports/`` renders exactly one of these objects
(:class:`HandContext` for a disputed hand, :class:`ReportContext` for the
compliance report). The objects are built by the library
(:mod:`audit.reports.hand`, :mod:`audit.reports.report`) from the engine's
replay and the store; templates only lay them out. Templates hold no rule
logic: every total, every settlement and every verdict below comes from the
engine or from SQL over the findings table.

Conventions shared by every object:

- Money is a string in the finding format's shortest exact decimal form
  (``"10"``, ``"37.5"``, ``"-50"``; see :func:`audit.findings.money_str`), so
  the JSON form is exact and no template does arithmetic; the templates' ``money``
  filter only lays it out (thousands separators, two decimals).
- Money signs follow rules.md's ``impact``: what the house paid minus what it
  should have paid. Positive: players were overpaid; negative: underpaid.
- Identifiers (table, shoe, dealer, player, event ids) are passed as the log
  wrote them. They are untrusted: each output format escapes them (HTML
  autoescape, Markdown and terminal filters).
- Tuples, never lists, so that a context is immutable and hashable enough to be
  rendered twice with byte-identical output.
- Dealer attribution (every "by dealer" figure of :class:`ReportContext`): a
  round is credited to the dealer in charge when it opened, the ``dealer`` of
  the latest ``shoe_open`` or ``dealer_change`` before its ``round_open`` in
  ``seq`` order within the same table and shoe; a finding is credited with its
  round, and a finding without a round (shoe-level, or raised while reading a
  file) to the dealer who opened its shoe. The report states this rule in
  :attr:`ReportContext.dealer_rule` and uses no other.
- Player ids in a compliance report are masked (:func:`audit.reports.hand.mask_player`)
  unless :attr:`ReportContext.show_players`; the ``hand`` command shows them.
- Slots for other sections: :attr:`ReportContext.statistics` (issue 11) and
  :attr:`ReportContext.integrity` (issue 14) are filled by their own builders and
  rendered by their own partial templates (``_partials/statistics.html.j2``,
  ``_partials/integrity.html.j2``), which render nothing while they are None.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from audit.reports.evidence import Evidence

# --------------------------------------------------------------------------- shared pieces


@dataclass(frozen=True, slots=True)
class CardView:
    """One playing card, ready to be drawn.

    Attributes:
        code: the card as TEL/1 stores it (``"AS"``, ``"TD"``).
        rank: the rank letter (``A 2-9 T J Q K``).
        rank_label: the rank as the card picture shows it: ``T`` for ten, as every sentence
            beside it (the engine's, the findings') spells it (issue 30, point 9).
        suit: the suit letter (``S H D C``).
        symbol: the suit symbol (``♠ ♥ ♦ ♣``).
        red: true for hearts and diamonds (drawn red).
        face_up: false when the card was dealt face down (TEL/1 ``face_up``).
    """

    code: str
    rank: str
    rank_label: str
    suit: str
    symbol: str
    red: bool
    face_up: bool = True


@dataclass(frozen=True, slots=True)
class ProfileView:
    """The rule profile a shoe was played under.

    Attributes:
        id: the profile id (``it-casino-6d``), as ``shoe_open.profile`` names it.
        title: the profile's human title.
        seed: the seed text the profile is read from (``"000"``).
        digest: :attr:`audit.profiles.Profile.digest`, the hash of rules and sources.
    """

    id: str
    title: str
    seed: str
    digest: str


@dataclass(frozen=True, slots=True)
class FindingView:
    """One finding (a breach of one rule), with the rule it breaks quoted.

    Attributes:
        code: the catalogue code (``PAY_WRONG_OUTCOME``).
        severity: ``critical``, ``major``, ``minor`` or ``info``.
        message: the finding's message, for people.
        table: the table id, or None when unknown.
        shoe: the shoe id, or None when unknown.
        round: the round number within the shoe, or None for a shoe-level finding.
        box: the box (1..7), or None.
        hand: the hand within the box, or None.
        spot: the spot within the box, or None.
        expected: what the rule expects (a money string for ``PAY_`` codes), or None.
        actual: what happened (a money string for ``PAY_`` codes), or None.
        impact: money, actual minus expected (positive: the house overpaid), or None.
        rule: the profile rule (a :class:`audit.profiles.Rules` field name), or None.
        rule_source: the profile's ``sources[rule].source``: the seed text quoted, or None.
        rule_house_default: true when that rule's value is a house default (seed silent).
        events: the ids of the events that prove the finding.
        source: ``file:line`` for findings raised while reading a file, else None.
    """

    code: str
    severity: str
    message: str
    table: str | None
    shoe: str | None
    round: int | None
    box: int | None
    hand: int | None
    spot: int | None
    expected: str | None
    actual: str | None
    impact: str | None
    rule: str | None
    rule_source: str | None
    rule_house_default: bool
    events: tuple[str, ...]
    source: str | None


# --------------------------------------------------------------------------- the hand packet


@dataclass(frozen=True, slots=True)
class StoryLine:
    """One shoe-level event before the round (shuffle, cut, burn, dealer change...).

    Attributes:
        event_id: the TEL/1 ``id``.
        seq: the TEL/1 ``seq``.
        ts: the table-clock timestamp (RFC 3339), or None when the events were not given.
        source: where it was read, ``file:line`` as ingested, or None when not known.
        type: the TEL/1 ``type`` (``shuffle``, ``cut``, ``burn``...).
        text: what happened, in words.
        cards: the cards shown by this event (a burn's cards), possibly empty.
    """

    event_id: str
    seq: int
    ts: str | None
    source: str | None
    type: str
    text: str
    cards: tuple[CardView, ...] = ()


@dataclass(frozen=True, slots=True)
class ShoeStory:
    """The shoe's story up to the round in dispute.

    Attributes:
        decks: decks in the shoe, as ``shoe_open`` says.
        dealer: the dealer on duty when the round began (``shoe_open.dealer`` or the
            latest ``dealer_change`` before the round; the home banker in ventuno).
        currency: ISO 4217 code from ``shoe_open``, or None.
        min_bet: the table minimum per spot (money string), or None.
        max_bet: the table maximum per box (money string), or None.
        opened_at: the ``shoe_open`` timestamp as written in the log.
        lines: every shoe event before the round, in ``seq`` order.
        cut_card_position: cards in front of the cut card (burns included), or None.
        burned: cards burned before the round (shown or counted).
        rounds_before: rounds dealt from this shoe before this one.
        cards_before: cards that left the shoe before this round, burns included.
    """

    decks: int | None
    dealer: str | None
    currency: str | None
    min_bet: str | None
    max_bet: str | None
    opened_at: str | None
    lines: tuple[StoryLine, ...]
    cut_card_position: int | None
    burned: int
    rounds_before: int
    cards_before: int


@dataclass(frozen=True, slots=True)
class TotalView:
    """A hand's total as it stands after a card.

    Attributes:
        who: ``"dealer"`` or ``"box 3 hand 1"``.
        box: the box, or None for the dealer.
        hand: the hand within the box, or None for the dealer.
        cards: the hand's cards so far.
        total: the best total (an ace counts 11 when that does not bust).
        soft: true when the total counts an ace as 11.
        label: the total in words (``"soft 17"``, ``"hard 12"``, ``"bust 25"``,
            ``"blackjack"``), as the engine judged it.
        hole_down: true on the dealer's hole card as dealt face down: ``total``, ``soft``
            and ``label`` are then his up card's alone (``"soft 11 up"``), what the table
            sees until the hole card is turned (games.md §2: ``reveal``, or the end of the
            players' play).
    """

    who: str
    box: int | None
    hand: int | None
    cards: tuple[CardView, ...]
    total: int
    soft: bool
    label: str
    hole_down: bool = False


@dataclass(frozen=True, slots=True)
class PeekView:
    """What a ``peek`` looked at and what the dealer said (games.md §2, §3).

    Attributes:
        cards: the dealer's cards at the peek, the hole card drawn face down as dealt.
        says: what those cards make, in words (``"blackjack"``, ``"soft 16"``): the cards
            decide (games.md §3).
        announced: what the dealer announced (TEL/1 ``blackjack``): ``"blackjack"``,
            ``"no blackjack"``, or None when the log says nothing.
        differs: true when the announcement is not what the cards make (kept for the
            record: no finding, the cards decide).
    """

    cards: tuple[CardView, ...]
    says: str
    announced: str | None
    differs: bool


@dataclass(frozen=True, slots=True)
class SurrenderDue:
    """What one spot's main wager was due after a surrender (the engine's due and why).

    Attributes:
        spot: the spot within the box.
        stake: the stake surrendered (money string).
        due: the engine's due (money string; half the stake rounded to the profile's unit,
            or the whole stake forfeited to a dealer blackjack), or None when not judged.
        why: the engine's words (``"surrendered: half the stake"``).
    """

    spot: int
    stake: str
    due: str | None
    why: str | None


@dataclass(frozen=True, slots=True)
class SurrenderView:
    """A surrender as a step of the round (games.md §3, *Surrender*).

    Attributes:
        box: the box that surrendered.
        hand: its hand.
        timing: ``"early"`` (before the peek), ``"late"`` (after it, or in turn where no
            peek came nor was due), or None where no hole card was dealt or a due peek
            never came.
        moment: where it stands in the round, in words (``"after the peek"``).
        dues: each spot's stake and due, from the engine's wagers.
    """

    box: int
    hand: int
    timing: str | None
    moment: str
    dues: tuple[SurrenderDue, ...]


@dataclass(frozen=True, slots=True)
class StepView:
    """One event of the round, in order.

    Attributes:
        n: the step number within the round, from 1.
        event_id: the TEL/1 ``id``.
        seq: the TEL/1 ``seq``.
        ts: the table-clock timestamp (RFC 3339, as the log wrote it), or None when the
            events were not given.
        time: the clock time of ``ts`` alone (``"20:03:21"``), or None.
        source: where the event was read, ``file:line`` as ingested (``input_files.path``
            and the line number), or None when not known.
        type: the TEL/1 ``type`` (``bet``, ``card``, ``action``, ``settle``...).
        description: what happened, in words (from the engine).
        card: the card that left the shoe, for ``card`` events (and a burned card), or None.
        pos: the card's shoe position (counting from 1, burns included), or None.
        target: where the card or decision went (``"box 3 hand 1"``, ``"dealer"``), or None.
        total: the receiving hand's total after this card, or None.
        decision: the player decision at this step, or None.
        decision_allowed: whether the profile allowed that decision (None: not a decision,
            or not judged).
        rule_note: the rule that applies at this step in words (``"dealer 16: must
            draw"``, ``"double on 9-11 only"``), or None.
        finding_codes: the codes of the findings whose evidence includes this event.
        dealer_card: ``"up card"`` or ``"hole card"`` on the dealer's cards of the deal
            where the profile deals a hole card (and on the ``reveal`` that turns it),
            else None.
        peek: what a ``peek`` looked at and what was announced, or None.
        surrender: a surrender's moment and each spot's due, or None.
    """

    n: int
    event_id: str
    seq: int
    ts: str | None
    time: str | None
    source: str | None
    type: str
    description: str
    card: CardView | None
    pos: int | None
    target: str | None
    total: TotalView | None
    decision: str | None
    decision_allowed: bool | None
    rule_note: str | None
    finding_codes: tuple[str, ...]
    dealer_card: str | None = None
    peek: PeekView | None = None
    surrender: SurrenderView | None = None


@dataclass(frozen=True, slots=True)
class HandView:
    """A hand as it ended the round (a player's hand or the dealer's).

    Attributes:
        who: ``"dealer"`` or ``"box 3 hand 1"``.
        box: the box, or None for the dealer.
        hand: the hand within the box, or None for the dealer.
        cards: every card of the hand, in the order dealt.
        total: the best total.
        soft: true when the total counts an ace as 11.
        label: the total in words (``"blackjack"``, ``"bust 24"``, ``"soft 18"``).
        notes: facts about the hand from the engine (``"doubled"``, ``"from a split"``).
        stake: the hand's main stake before any double, summed over its spots (money
            string), or None for the dealer.
        double_stake: the extra stake a double added, summed over its spots (money
            string), or None when the hand was not doubled.
        split_stake: for a hand a split created, the stake that split put on it (the
            same as ``stake``), or None.
        card_roles: the dealer's: each card's role, in ``cards`` order (``"up card"``,
            ``"hole card"``, ``""`` for a draw), where the profile deals a hole card; else
            empty.
        hole_card: the dealer's: how his hole card was dealt and when it was turned
            (``"dealt face down; turned at the reveal (step 13)"``), or None.
    """

    who: str
    box: int | None
    hand: int | None
    cards: tuple[CardView, ...]
    total: int
    soft: bool
    label: str
    notes: tuple[str, ...]
    stake: str | None = None
    double_stake: str | None = None
    split_stake: str | None = None
    card_roles: tuple[str, ...] = ()
    hole_card: str | None = None


@dataclass(frozen=True, slots=True)
class WagerView:
    """One wager with its amount due, its amount settled and the engine's verdict.

    Attributes:
        box: the box.
        hand: the hand within the box.
        spot: the spot within the box (0: the box holder).
        kind: ``main``, ``insurance`` or ``bonus``.
        player: the player id the bet named (masked in a static report unless
            ``--show-players``), or None.
        stake: the stake, a double's extra included, as a money string; ``"0"`` for a bonus.
        base_stake: the stake before a double (money string).
        double_stake: the extra stake of a double (``stake - base_stake``), or None.
        from_split: true when a split created this wager.
        expected: the amount due, the correct net settlement per the engine, or None when
            the round is not judged.
        actual: the settlements the house made, as written (``"15 + 15"`` when twice), or
            None when never settled.
        settled: the sum of those settlements (money string), or None when never settled.
        verdict: the engine's verdict on this wager: ``"ok"``, or the code of the ``PAY_``
            finding that judged it (``"PAY_WRONG_AMOUNT"``, ``"PAY_MISSING"``...); None
            when the engine did not judge it (the round is still open).
        verdict_severity: the severity of that finding, or None for ``ok``/not judged.
        impact: the judging finding's impact (settled minus due: positive, the house
            overpaid), or None.
        ok: true when the verdict is ``ok``.
        note: the engine's explanation of the amount due (``"21 v dealer 20: wins 1:1"``),
            or None.
        side_bet: true for a side bet (games.md §2: ``kind`` is its side-bet id).
        line: a side bet's winning line as the engine decided it (``"straight_flush"``),
            or None (no line won, not a side bet, or not decided).
        ratio: that line's pay, net, as ``"9 to 1"``, or None.
        bet_codes: the codes of the ``BET_`` findings on the ``bet`` that placed a side bet
            (``BET_SIDE_NOT_OFFERED``, ``BET_LIMIT``...), most severe first.
    """

    box: int
    hand: int
    spot: int
    kind: str
    player: str | None
    stake: str
    base_stake: str
    double_stake: str | None
    from_split: bool
    expected: str | None
    actual: str | None
    settled: str | None
    verdict: str | None
    verdict_severity: str | None
    impact: str | None
    ok: bool
    note: str | None
    side_bet: bool = False
    line: str | None = None
    ratio: str | None = None
    bet_codes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundLink:
    """Another round of the same shoe, for navigation.

    Attributes:
        round: its round number.
        n_findings: how many findings it has.
        href: the relative link to its hand page when one is written beside this one
            (in a compliance report), else None.
        worst_severity: its most severe finding's severity, or None when it is clean.
    """

    round: int
    n_findings: int
    href: str | None = None
    worst_severity: str | None = None


@dataclass(frozen=True, slots=True)
class HandContext:
    """Everything the hand packet (``shoe-audit hand``) shows for one round.

    Attributes:
        table: the table id.
        shoe: the shoe id.
        round: the round number within the shoe.
        profile: the rule profile of the shoe.
        engine_version: the version of the engine that replayed the shoe.
        story: the shoe's story up to this round.
        steps: every event of the round, in ``seq`` order.
        hands: each player hand as it ended, in box then hand order.
        dealer: the dealer's hand as it ended, or None when the dealer drew no card.
        dealer_rule: the profile's dealer rule in words (``"draws to 16, stands on all 17s"``).
        wagers: every wager, in box, hand, spot, kind order.
        findings: the round's findings, most severe first, in event order within a severity.
        worst_severity: the most severe finding's severity, or None when the round is clean.
        net_impact: the sum of the findings' impact (money string), or None when none prices.
        previous_round: the round before (with its finding count), or None.
        next_round: the round after, or None.
        report_href: the relative link back to the compliance report when the page is
            written beside one, else None.
        shoe_flagged: the shoe's rounds with findings, in round order (links where pages
            exist); empty outside a compliance report.
        players_masked: true when player ids are masked (a static report without
            ``--show-players``).
    """

    table: str
    shoe: str
    round: int
    profile: ProfileView
    engine_version: str
    story: ShoeStory
    steps: tuple[StepView, ...]
    hands: tuple[HandView, ...]
    dealer: HandView | None
    dealer_rule: str
    wagers: tuple[WagerView, ...]
    findings: tuple[FindingView, ...]
    worst_severity: str | None
    net_impact: str | None
    previous_round: RoundLink | None
    next_round: RoundLink | None
    report_href: str | None = None
    shoe_flagged: tuple[RoundLink, ...] = ()
    players_masked: bool = False


# --------------------------------------------------------------------------- the compliance report


@dataclass(frozen=True, slots=True)
class CountRow:
    """A label with a count (findings by severity, by code).

    Attributes:
        key: the label (a severity, or a finding code).
        severity: the severity of that key (the code's severity; the severity itself).
        count: how many findings.
        pct: the count as a percentage of the largest count in the same table (0-100),
            for the bar charts.
        dismissed: findings of that key a review dismissed (not in ``count``; issue 12).
        dismissed_share: ``dismissed`` as a share of all findings of the key raised
            (``"12.5%"``: the false-positive rate), or None when none was dismissed.
    """

    key: str
    severity: str
    count: int
    pct: float
    dismissed: int = 0
    dismissed_share: str | None = None


@dataclass(frozen=True, slots=True)
class MoneyTotal:
    """Money paid wrongly, in one currency.

    Sign convention (rules.md, a finding's ``impact``): impact is what the house paid
    minus what it should have paid, so a positive amount went to players that was not
    theirs, a negative one was kept from them.

    Attributes:
        currency: the ISO 4217 code of ``shoe_open.currency``, or None where the shoes
            name none.
        overpaid: the sum of positive impacts (paid to players beyond what was due).
        underpaid: the sum of negative impacts, as a positive amount (kept from players).
        net: overpaid minus underpaid (positive: the house lost money).
        handle: the sum of stakes (doubles and splits included) in that currency.
        priced: how many findings priced themselves (impact not null).
    """

    currency: str | None
    overpaid: str
    underpaid: str
    net: str
    handle: str
    priced: int


@dataclass(frozen=True, slots=True)
class Segment:
    """One severity's share of a stacked bar.

    Attributes:
        severity: the severity.
        count: findings of that severity.
        pct: the count as a percentage of the chart's largest bar (0-100).
    """

    severity: str
    count: int
    pct: float


@dataclass(frozen=True, slots=True)
class GroupMoney:
    """Money paid wrongly in one group (a day, table or dealer), in one currency.

    Attributes:
        currency: the currency, or None where the shoes name none.
        overpaid: the sum of positive impacts (money string).
        underpaid: the sum of negative impacts as a positive amount (money string).
        net: overpaid minus underpaid (money string).
        over_pct: ``overpaid`` as a percentage of the chart's largest amount in that
            currency, either way (0-100).
        under_pct: ``underpaid`` likewise.
    """

    currency: str | None
    overpaid: str
    underpaid: str
    net: str
    over_pct: float
    under_pct: float


@dataclass(frozen=True, slots=True)
class GroupRow:
    """The figures of one gaming day, table or dealer.

    Attributes:
        key: the gaming day (ISO date), table id or dealer id; ``"?"`` when no
            ``shoe_open`` or ``dealer_change`` names a dealer.
        rounds: rounds audited (of that day or table; dealt by that dealer: see
            ``ReportContext.dealer_rule``).
        findings: every finding credited to the group (with a round or not).
        round_findings: findings tied to a round (the rate's numerator).
        critical: critical findings.
        flagged_rounds: rounds with at least one finding.
        per_1000: round findings per 1,000 rounds, one decimal (``"12.5"``), ``"-"``
            without rounds.
        critical_per_1000: critical round findings per 1,000 rounds, one decimal.
        segments: ``findings`` by severity, most severe first, for stacked bars.
        money: money paid wrongly, one entry per currency (empty when nothing priced).
    """

    key: str
    rounds: int
    findings: int
    round_findings: int
    critical: int
    flagged_rounds: int
    per_1000: str
    critical_per_1000: str
    segments: tuple[Segment, ...]
    money: tuple[GroupMoney, ...]


@dataclass(frozen=True, slots=True)
class Chart:
    """The rows one chart draws, with what it leaves to the full table.

    Attributes:
        title: the chart's title.
        rows: the rows drawn (the most findings first for tables and dealers; every
            day, in order, for the time series).
        more: how many rows the full table has that the chart does not draw.
        more_href: where those are (an anchor of the report), or None when ``more`` is 0.
        currencies: the currencies of the money bars, in order (None: not named).
    """

    title: str
    rows: tuple[GroupRow, ...]
    more: int
    more_href: str | None
    currencies: tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class FlaggedRound:
    """A round with at least one finding, as the first screen lists it.

    Attributes:
        rank: its place in the ranking (1: look at it first).
        table: the table id.
        shoe: the shoe id.
        round: the round number within the shoe.
        gaming_day: the shoe's gaming day (ISO date), or None.
        opened_at: the local time of the round's first event (``"2026-11-28 20:03:00
            +01:00"``), for finding the video, or None.
        dealer: who dealt it (``ReportContext.dealer_rule``), or None.
        currency: the shoe's currency, or None.
        findings: how many findings the round has.
        worst_severity: the most severe of them.
        codes: their codes, distinct, sorted.
        headline: the message of its most severe finding (the largest impact first).
        overpaid: money paid to players beyond what was due (money string).
        underpaid: money kept from players (positive money string).
        net: overpaid minus underpaid (money string).
        moved: overpaid plus underpaid: the money moved wrongly, whichever way; the
            ranking's first key.
        hand_href: the relative link to its hand page, or None when none was written
            (its shoe was not replayed).
        reviews: the review states of its findings, distinct, sorted (``confirmed``,
            ``dismissal_pending``, ``needs_video``); empty when none was reviewed.
    """

    rank: int
    table: str
    shoe: str
    round: int
    gaming_day: str | None
    opened_at: str | None
    dealer: str | None
    currency: str | None
    findings: int
    worst_severity: str
    codes: tuple[str, ...]
    headline: str
    overpaid: str
    underpaid: str
    net: str
    moved: str
    hand_href: str | None
    reviews: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DismissedRow:
    """A finding a review dismissed: out of the counts and totals, still listed (issue 12).

    Attributes:
        finding: the finding as raised.
        dealer: who dealt its round (``ReportContext.dealer_rule``), or None.
        gaming_day: its gaming day (ISO date), or None.
        by: the reviewers whose dismissals made it so (two accounts for a critical finding),
            a typed name marked ``(unauthenticated)`` (:attr:`audit.review.Review.signers`).
        note: the latest decision's note.
        at: when the latest decision was taken (RFC 3339, UTC).
        hand_href: the link to its round's hand page where one is written, else None.
        finding_id: the finding's stable id.
    """

    finding: FindingView
    dealer: str | None
    gaming_day: str | None
    by: tuple[str, ...]
    note: str
    at: str
    hand_href: str | None = None
    finding_id: str | None = None


@dataclass(frozen=True, slots=True)
class OutsideRow:
    """A finding not tied to a round (shoe-level, or raised while reading a file).

    Attributes:
        finding: the finding.
        dealer: the dealer who opened its shoe, or None.
        gaming_day: the gaming day it belongs to (ISO date), or None.
        finding_id: the finding's stable id.
        review: its review state (``confirmed``, ``dismissal_pending``, ``needs_video``;
            issue 12), or None when never reviewed.
    """

    finding: FindingView
    dealer: str | None
    gaming_day: str | None
    finding_id: str | None = None
    review: str | None = None


@dataclass(frozen=True, slots=True)
class ShoeIntegrityRow:
    """A shoe whose integrity is in doubt.

    Attributes:
        table: the table id.
        shoe: the shoe id.
        gaming_day: the shoe's gaming day (ISO date).
        dealers: the dealers its integrity findings are credited to (the round's
            dealer, or the shoe's opener for a shoe-level finding), sorted.
        codes: the integrity codes found (``SHOE_CARD_EXCESS``, ``SHOE_POSITION_GAP``,
            ``SHOE_ORDER_MISMATCH``, ``SHOE_RECONCILIATION``), sorted.
        findings: how many integrity findings.
        messages: every one of those findings' messages, in round then message order.
        rounds: the rounds those findings are in, in order, linked to their hand pages
            where written.
    """

    table: str
    shoe: str
    gaming_day: str
    dealers: tuple[str, ...]
    codes: tuple[str, ...]
    findings: int
    messages: tuple[str, ...]
    rounds: tuple[RoundLink, ...]


@dataclass(frozen=True, slots=True)
class QuarantineRow:
    """One quarantined input line.

    Attributes:
        source: ``file:line``.
        reason: why the line was rejected.
    """

    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class DataQuality:
    """The state of the input data.

    Attributes:
        quarantined: quarantined lines in the period's input files.
        quarantine: every quarantined line, in file and line order.
        malformed: ``LOG_MALFORMED`` findings.
        seq_gaps: ``LOG_SEQ_GAP`` findings.
        id_conflicts: ``LOG_ID_CONFLICT`` findings.
        unknown_profiles: ``LOG_UNKNOWN_PROFILE`` findings (shoes not replayed).
        unknown_types: ``LOG_UNKNOWN_TYPE`` findings (events kept, not replayed).
        incomplete: ``LOG_INCOMPLETE`` findings.
    """

    quarantined: int
    quarantine: tuple[QuarantineRow, ...]
    malformed: int
    seq_gaps: int
    id_conflicts: int
    unknown_profiles: int
    unknown_types: int
    incomplete: int


@dataclass(frozen=True, slots=True)
class OpenShoeRow:
    """A shoe not closed at the end of the data.

    Attributes:
        table: the table id.
        shoe: the shoe id.
        profile: the shoe's profile id.
        dealer: the dealer who opened the shoe, or None.
        gaming_day: the shoe's gaming day (ISO date).
        rounds: rounds seen so far.
        last_ts: the timestamp of the shoe's last event, as written in the log.
    """

    table: str
    shoe: str
    profile: str | None
    dealer: str | None
    gaming_day: str
    rounds: int
    last_ts: str


@dataclass(frozen=True, slots=True)
class PendingShoe:
    """A shoe of the period whose rounds the report does not count (issue 10, point 6).

    Attributes:
        table: the table id.
        shoe: the shoe id.
        gaming_day: its gaming day (ISO date).
        state: ``not_audited`` (never audited: run ``shoe-audit run``), ``stale``
            (its events, the engine or its profile changed since its audit; the figures
            are those of that audit) or ``failed`` (its last replay failed; the figures
            are those of its earlier audit, if it had one).
        error: why its replay failed (``failed`` only).
    """

    table: str
    shoe: str
    gaming_day: str
    state: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Coverage:
    """What the period's figures stand on.

    Attributes:
        days_without_rounds: gaming days of the period with no audited round (an empty
            day is not a clean one).
        pending: shoes of the period not audited, or audited before their events,
            engine or profile changed, by day, table and shoe.
        not_audited: how many of ``pending`` were never audited.
        stale: how many of ``pending`` are stale.
        failed: the shoes of ``pending`` whose last replay failed (cli.md ``run``).
    """

    days_without_rounds: tuple[str, ...]
    pending: tuple[PendingShoe, ...]
    not_audited: int
    stale: int
    failed: tuple[PendingShoe, ...] = ()


@dataclass(frozen=True, slots=True)
class InputFileRow:
    """One input file, for reproducibility.

    Attributes:
        path: the path as ingested.
        sha256: the SHA-256 of its bytes (hex).
        size: its size in bytes.
        events: events read from it.
    """

    path: str
    sha256: str
    size: int
    events: int


@dataclass(frozen=True, slots=True)
class Reproducibility:
    """What the report was made from and with (issue 10, point 7).

    Attributes:
        tool_version: the shoe-audit version that wrote the report.
        engine_version: the engine version of that shoe-audit.
        input_files: every input file with its hash, by path.
        profiles: every profile used in the period, with its digest, by id.
        engine_versions: the engine versions that audited the period's shoes.
    """

    tool_version: str
    engine_version: str
    input_files: tuple[InputFileRow, ...]
    profiles: tuple[ProfileView, ...]
    engine_versions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SideBetRow:
    """One side bet's money in one currency (issue 32, point 6).

    Attributes:
        side_bet: the side-bet id the log wrote in ``kind`` (``"21plus3"``).
        paytables: the pay tables the period's profiles pay it by (``"21plus3-9"``),
            joined by ``", "``; ``"not offered"`` where no profile of the period offers it.
        wagers: side bets placed.
        staked: their stakes (money string).
        paid: what the house paid the winning ones, as settled (money string).
        house_result: what the house took from the losing ones less what it paid the
            winning ones, as settled (money string; + the house won).
        hold: the house result over the stakes of the settled bets, in percent with two
            decimals (``"3.24"``), or None where none was settled.
        unsettled: bets never settled (``PAY_MISSING``): in ``wagers`` and ``staked`` only.
    """

    side_bet: str
    paytables: str
    wagers: int
    staked: str
    paid: str
    house_result: str
    hold: str | None
    unsettled: int


@dataclass(frozen=True, slots=True)
class SideBetTotal:
    """Side-bet money in one currency: the totals, and each side bet's row.

    Attributes:
        currency: the ISO 4217 code of ``shoe_open.currency``, or None where the shoes
            name none.
        wagers: side bets placed.
        staked: their stakes (money string); part of the handle (every stake but a bonus).
        paid: what the house paid winning side bets, as settled (money string).
        house_result: taken from losing side bets less paid to winning ones (money
            string; + the house won).
        hold: the house result over the settled bets' stakes, in percent (two decimals),
            or None where none was settled.
        unsettled: side bets never settled.
        bets: one row per side-bet id, by id.
    """

    currency: str | None
    wagers: int
    staked: str
    paid: str
    house_result: str
    hold: str | None
    unsettled: int
    bets: tuple[SideBetRow, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    """The headline figures of the period.

    Attributes:
        tables: tables audited.
        shoes: shoes audited.
        rounds: rounds audited.
        wagers: wagers audited (every main, insurance and bonus wager).
        findings: findings in the period.
        critical: critical findings.
        flagged_rounds: rounds with at least one finding.
        money: money paid wrongly and the handle, one entry per currency (the shoes'
            ``shoe_open.currency``), by currency; at least one entry.
        dismissed: findings a review dismissed, left out of every figure above.
        side_bets: side-bet money, one entry per currency where side bets were placed
            (games.md §2), each with its per-bet breakdown; empty where none was.
    """

    tables: int
    shoes: int
    rounds: int
    wagers: int
    findings: int
    critical: int
    flagged_rounds: int
    money: tuple[MoneyTotal, ...]
    dismissed: int = 0
    side_bets: tuple[SideBetTotal, ...] = ()


@dataclass(frozen=True, slots=True)
class HandPage:
    """A hand page written beside the compliance report.

    Attributes:
        href: its path relative to the report folder (``hands/T07/<shoe>/r14.html``),
            made of safe file names; the report links to it.
        context: the page's hand packet.
    """

    href: str
    context: HandContext


@dataclass(frozen=True, slots=True)
class FlaggedPage:
    """The page listing every flagged round (``flagged.html``), in the report's ranking.

    Attributes:
        title: the page title.
        report_title: the title of the report it belongs to.
        report_href: the relative link back to the report.
        rounds: every flagged round, ranked.
        outside: every finding not tied to a round, most severe first.
    """

    title: str
    report_title: str
    report_href: str
    rounds: tuple[FlaggedRound, ...]
    outside: tuple[OutsideRow, ...]


@dataclass(frozen=True, slots=True)
class ReportContext:
    """Everything the compliance report shows for a span of gaming days.

    Attributes:
        title: the report's title (``"Compliance report, gaming day 2026-11-28"``).
        gaming_days: the gaming days covered (ISO dates), ascending.
        generated_at: when the report was made (RFC 3339, UTC), or None (byte-identical
            output for the same input, for tests).
        dealer_rule: how rounds are credited to dealers, in words (one attribution,
            used by every "dealer" figure and column).
        summary: the headline figures.
        flagged: the first flagged rounds, ranked (money moved wrongly, then severity,
            then the number of findings): the first screen.
        flagged_more: how many flagged rounds ``flagged`` leaves to the full list.
        flagged_href: the relative link of the full list (``flagged.html``).
        outside: the first findings not tied to a round, most severe first.
        outside_more: how many more of those the full list has.
        by_severity: findings by severity, most severe first (every severity, even at 0).
        by_code: every finding code found, most frequent first, then by code.
        by_day: the figures of every gaming day of the period, in order.
        by_table: the figures of every table, by table id.
        by_dealer: the figures of every dealer, by dealer id.
        day_chart: findings and money per gaming day (the time series).
        table_chart: findings and money per table.
        dealer_chart: findings and money per dealer.
        shoe_integrity: shoes with integrity findings, by table then shoe.
        data_quality: the state of the input.
        coverage: what was not audited (an empty or unaudited day is not a clean one).
        open_shoes: shoes not closed at the end of the data, by table then shoe.
        reproducibility: tool and engine versions, profile digests, input hashes.
        show_players: true when player ids are shown as logged (``--show-players``);
            false masks them (the default: report pages travel by e-mail).
        hand_pages: the hand pages written beside the report: one per flagged round of
            a replayed shoe, and one for each round just before and after it, by href.
        statistics: the statistics section (issue 11): an
            :class:`audit.reports.statistics.StatisticsSection`, rendered by
            ``_partials/statistics.html.j2``; None: not rendered (no audited rounds).
        integrity: the evidence the report was made from (issue 14: the ledger head, the
            integrity check, the input files that could not be read;
            :class:`audit.reports.evidence.Evidence`), rendered by
            ``_partials/integrity.html.j2`` and ``unread.html.j2``; None when the report
            was built without them.
        dismissed: the findings a review dismissed (issue 12), out of every count and
            total above, listed by gaming day, table, shoe and round.
        books: the table's books (issue 31: the ``ACCT_`` findings among what to look at
            first, the periods' tile, the Master Game Report by pit, the flagged periods'
            pages; :class:`audit.reports.books.BooksSection`), or None when no table kept
            books those days (the report is then as before).
    """

    title: str
    gaming_days: tuple[str, ...]
    generated_at: str | None
    dealer_rule: str
    summary: Summary
    flagged: tuple[FlaggedRound, ...]
    flagged_more: int
    flagged_href: str
    outside: tuple[OutsideRow, ...]
    outside_more: int
    by_severity: tuple[CountRow, ...]
    by_code: tuple[CountRow, ...]
    by_day: tuple[GroupRow, ...]
    by_table: tuple[GroupRow, ...]
    by_dealer: tuple[GroupRow, ...]
    day_chart: Chart
    table_chart: Chart
    dealer_chart: Chart
    shoe_integrity: tuple[ShoeIntegrityRow, ...]
    data_quality: DataQuality
    coverage: Coverage
    open_shoes: tuple[OpenShoeRow, ...]
    reproducibility: Reproducibility
    show_players: bool = False
    hand_pages: tuple[HandPage, ...] = ()
    statistics: Any = None
    integrity: Evidence | None = None
    dismissed: tuple[DismissedRow, ...] = ()
    books: Any = None


# --------------------------------------------------------------------------- JSON


def to_jsonable(obj: Any) -> Any:
    """A context object as plain JSON values (dicts, lists, str, int, float, bool, None)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (tuple, list)):
        return [to_jsonable(v) for v in obj]
    return obj


def to_json(obj: Any) -> str:
    """A context object as deterministic, indented JSON (keys in field order)."""
    return json.dumps(to_jsonable(obj), ensure_ascii=False, indent=2) + "\n"
