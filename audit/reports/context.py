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
  the JSON form is exact and no template does arithmetic.
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
  file) to the dealer who opened its shoe.
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
        rank_label: the rank as printed on a card face (``"10"`` for ``T``).
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
        type: the TEL/1 ``type`` (``shuffle``, ``cut``, ``burn``...).
        text: what happened, in words.
        cards: the cards shown by this event (a burn's cards), possibly empty.
    """

    event_id: str
    seq: int
    ts: str | None
    type: str
    text: str
    cards: tuple[CardView, ...] = ()


@dataclass(frozen=True, slots=True)
class ShoeStory:
    """The shoe's story up to the round in dispute.

    Attributes:
        decks: decks in the shoe, as ``shoe_open`` says.
        dealer: the dealer on duty when the round began (``shoe_open.dealer`` or the
            latest ``dealer_change`` before the round).
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
    """

    who: str
    box: int | None
    hand: int | None
    cards: tuple[CardView, ...]
    total: int
    soft: bool
    label: str


@dataclass(frozen=True, slots=True)
class StepView:
    """One event of the round, in order.

    Attributes:
        n: the step number within the round, from 1.
        event_id: the TEL/1 ``id``.
        seq: the TEL/1 ``seq``.
        ts: the table-clock timestamp (RFC 3339), or None when the events were not given.
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
    """

    n: int
    event_id: str
    seq: int
    ts: str | None
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
    """

    who: str
    box: int | None
    hand: int | None
    cards: tuple[CardView, ...]
    total: int
    soft: bool
    label: str
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WagerView:
    """One wager with its correct and its actual settlement side by side.

    Attributes:
        box: the box.
        hand: the hand within the box.
        spot: the spot within the box (0: the box holder).
        kind: ``main``, ``insurance`` or ``bonus``.
        player: the player id the bet named, or None.
        stake: the stake (doubles included) as a money string; ``"0"`` for a bonus.
        expected: the correct net settlement per the engine, or None when not due.
        actual: the net settlement the house made, or None when never settled.
        difference: actual minus expected (positive: the house overpaid), or None.
        ok: true when the actual settlement equals the expected one.
        note: the engine's explanation of the correct settlement (``"21 v dealer 20:
            wins 1:1"``), or None.
    """

    box: int
    hand: int
    spot: int
    kind: str
    player: str | None
    stake: str
    expected: str | None
    actual: str | None
    difference: str | None
    ok: bool
    note: str | None


@dataclass(frozen=True, slots=True)
class RoundLink:
    """Another round of the same shoe, for navigation.

    Attributes:
        round: its round number.
        n_findings: how many findings it has.
        href: the relative link to its hand page when one is written beside this one
            (in a compliance report), else None.
    """

    round: int
    n_findings: int
    href: str | None = None


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
    """

    key: str
    severity: str
    count: int
    pct: float


@dataclass(frozen=True, slots=True)
class MoneyRow:
    """Money impact of findings for one table or one dealer.

    Attributes:
        key: the table id or dealer id (a dealer is credited per round, see the module
            docstring); ``"?"`` when no ``shoe_open`` names one.
        overpaid: the sum of positive impacts (the house paid too much), money string.
        underpaid: the sum of negative impacts as a positive amount, money string.
        net: overpaid minus underpaid (positive: the house lost money), money string.
        findings: how many findings priced themselves (impact not null).
    """

    key: str
    overpaid: str
    underpaid: str
    net: str
    findings: int


@dataclass(frozen=True, slots=True)
class RateRow:
    """Error rates for one table or one dealer.

    Attributes:
        key: the table id or dealer id (a dealer is credited per round, see the module
            docstring); ``"?"`` when no ``shoe_open`` names one.
        rounds: rounds audited (of that table; dealt by that dealer).
        findings: round-level findings (findings with a round number).
        critical: round-level critical findings.
        per_1000: findings per 1,000 rounds, written with one decimal (``"12.5"``).
        critical_per_1000: critical findings per 1,000 rounds, one decimal.
        pct: ``per_1000`` as a percentage of the largest in the same table, for the charts.
    """

    key: str
    rounds: int
    findings: int
    critical: int
    per_1000: str
    critical_per_1000: str
    pct: float


@dataclass(frozen=True, slots=True)
class CriticalRow:
    """One critical finding, with a link to its hand page.

    Attributes:
        finding: the finding.
        dealer: the dealer in charge of the finding's round (for a finding without a round,
            the dealer who opened its shoe), or None.
        gaming_day: the gaming day (ISO date) the finding belongs to.
        hand_href: the relative link to the round's hand page (``hands/T07/.../r14.html``),
            or None when the finding has no round (a shoe-level or log finding).
    """

    finding: FindingView
    dealer: str | None
    gaming_day: str | None
    hand_href: str | None


@dataclass(frozen=True, slots=True)
class ShoeIntegrityRow:
    """A shoe whose integrity is in doubt.

    Attributes:
        table: the table id.
        shoe: the shoe id.
        gaming_day: the shoe's gaming day (ISO date).
        dealer: the dealer who opened the shoe, or None.
        codes: the integrity codes found (``SHOE_CARD_EXCESS``, ``SHOE_POSITION_GAP``,
            ``SHOE_ORDER_MISMATCH``, ``SHOE_RECONCILIATION``), sorted.
        findings: how many integrity findings.
        messages: the findings' messages (at most five), in event order.
    """

    table: str
    shoe: str
    gaming_day: str
    dealer: str | None
    codes: tuple[str, ...]
    findings: int
    messages: tuple[str, ...]


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
        quarantine_sample: up to 50 quarantined lines, in file and line order.
        malformed: ``LOG_MALFORMED`` findings.
        seq_gaps: ``LOG_SEQ_GAP`` findings.
        id_conflicts: ``LOG_ID_CONFLICT`` findings.
        unknown_profiles: ``LOG_UNKNOWN_PROFILE`` findings (shoes not replayed).
        unknown_types: ``LOG_UNKNOWN_TYPE`` findings (events kept, not replayed).
        incomplete: ``LOG_INCOMPLETE`` findings.
    """

    quarantined: int
    quarantine_sample: tuple[QuarantineRow, ...]
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
    """What is needed to reproduce the report.

    Attributes:
        input_files: every input file with its hash, by path.
        profiles: every profile used in the period, with its digest, by id.
        engine_versions: the engine versions that audited the period's shoes.
    """

    input_files: tuple[InputFileRow, ...]
    profiles: tuple[ProfileView, ...]
    engine_versions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    """The headline figures of the period.

    Attributes:
        tables: tables audited.
        shoes: shoes audited.
        rounds: rounds audited.
        wagers: wagers audited (every main, insurance and bonus wager).
        handle: the sum of stakes (doubles included), money string.
        currency: the currency when all shoes agree on one, else None.
        findings: findings in the period.
        critical: critical findings.
        overpaid: the house's overpayments, money string.
        underpaid: the house's underpayments (a positive amount), money string.
        net: overpaid minus underpaid, money string.
    """

    tables: int
    shoes: int
    rounds: int
    wagers: int
    handle: str
    currency: str | None
    findings: int
    critical: int
    overpaid: str
    underpaid: str
    net: str


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
class ReportContext:
    """Everything the compliance report shows for a span of gaming days.

    Attributes:
        title: the report's title (``"Compliance report, gaming day 2026-11-28"``).
        gaming_days: the gaming days covered (ISO dates), ascending.
        summary: the headline figures.
        by_severity: findings by severity, most severe first (every severity, even at 0).
        by_code: findings by code, most frequent first, then by code.
        money_by_table: money impact per table, by table id.
        money_by_dealer: money impact per dealer (credited per round), by dealer id.
        rates_by_table: error rates per table, by table id.
        rates_by_dealer: error rates per dealer (credited per round), by dealer id.
        critical: every critical finding, by table, shoe, round, box, hand, spot, code.
        shoe_integrity: shoes with integrity findings, by table then shoe.
        data_quality: the state of the input.
        open_shoes: shoes not closed at the end of the data, by table then shoe.
        reproducibility: input hashes, profile digests, engine versions.
        hand_pages: the hand pages to write beside the report (one per round holding a
            critical finding), by href.
        generated_at: when the report was made, or None (the default: byte-identical
            output for the same input).
        evidence: the ledger head and integrity check the report was made from, and the
            input files that could not be read (:mod:`audit.reports.evidence`); None when
            the report was built without them.
    """

    title: str
    gaming_days: tuple[str, ...]
    summary: Summary
    by_severity: tuple[CountRow, ...]
    by_code: tuple[CountRow, ...]
    money_by_table: tuple[MoneyRow, ...]
    money_by_dealer: tuple[MoneyRow, ...]
    rates_by_table: tuple[RateRow, ...]
    rates_by_dealer: tuple[RateRow, ...]
    critical: tuple[CriticalRow, ...]
    shoe_integrity: tuple[ShoeIntegrityRow, ...]
    data_quality: DataQuality
    open_shoes: tuple[OpenShoeRow, ...]
    reproducibility: Reproducibility
    hand_pages: tuple[HandPage, ...] = ()
    generated_at: str | None = None
    evidence: Evidence | None = None


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
