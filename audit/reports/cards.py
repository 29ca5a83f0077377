"""Cards as pictures (inline SVG) and as views built from TEL/1 card codes."""

from __future__ import annotations

import functools
from typing import Protocol

from markupsafe import escape

from audit.reports.context import CardView

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAME = {
    "A": "ace",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}


class CardLike(Protocol):
    """What drawing a card needs (a :class:`CardView`)."""

    @property
    def code(self) -> str: ...
    @property
    def rank_label(self) -> str: ...
    @property
    def suit(self) -> str: ...
    @property
    def symbol(self) -> str: ...
    @property
    def red(self) -> bool: ...
    @property
    def face_up(self) -> bool: ...


@functools.lru_cache(maxsize=4096)
def card_view(code: str, face_up: bool = True) -> CardView:
    """The view of a stored card code (``"TD"``); an unreadable code is shown as is.

    Views are frozen, so one per code and face serves every page (a night's pages
    ask for half a million)."""
    rank, suit = (code[:-1], code[-1:]) if len(code) >= 2 else (code, "?")
    return CardView(
        code=code,
        rank=rank,
        rank_label=rank,  # "T", as the log, the engine's sentences and the findings spell it
        suit=suit,
        symbol=SUIT_SYMBOL.get(suit, "?"),
        red=suit in ("H", "D"),
        face_up=face_up,
    )


def card_name(c: CardLike) -> str:
    """``"ten of diamonds"``: the accessible name of a card picture."""
    return card_name_of(c.code, c.suit)


def card_name_of(code: str, suit: str) -> str:
    """:func:`card_name` of a card code and its suit."""
    rank = code[:-1]
    return f"{RANK_NAME.get(rank, rank)} of {SUIT_NAME.get(suit, suit)}"


_SIZES = {"sm": (30, 42), "md": (46, 64)}


def svg(c: CardLike, size: str = "md") -> str:
    """One card drawn as an inline SVG (escaped; safe to mark up as HTML).

    The picture is a white card with the rank in two corners and the suit
    symbol in the middle, red for hearts and diamonds; a card dealt face down
    is still drawn face up (the log knows it) with a hatched border.
    """
    return _drawn(c.code, c.rank_label, c.suit, c.symbol, c.red, c.face_up, size)


@functools.lru_cache(maxsize=1024)
def _drawn(
    code: str, rank_label: str, suit: str, symbol: str, red: bool, face_up: bool, size: str
) -> str:
    """:func:`svg` of one card's fields, drawn once per report (a night's hand pages
    draw the same 52 cards tens of thousands of times)."""
    name = escape(card_name_of(code, suit)) + ("" if face_up else " (face down)")
    w, h = _SIZES.get(size, _SIZES["md"])
    colour = "#c0182b" if red else "#16181d"
    rank = escape(rank_label)
    sym = escape(symbol)
    fs = round(h * 0.27)
    big = round(h * 0.42)
    stroke = "#5b6472" if face_up else "#2a56c6"
    dash = "" if face_up else ' stroke-dasharray="3 2"'
    return (
        f'<svg class="card" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" role="img" aria-label="{name}"><title>{name}</title>'
        f'<rect x="1" y="1" width="{w - 2}" height="{h - 2}" rx="{round(w / 9)}" fill="#fff" '
        f'stroke="{stroke}" stroke-width="1.5"{dash}/>'
        f'<text x="{round(w * 0.1)}" y="{fs + 1}" font-size="{fs}" font-weight="700" '
        f'font-family="Georgia,serif" fill="{colour}">{rank}</text>'
        f'<text x="{w / 2:g}" y="{round(h * 0.72)}" font-size="{big}" text-anchor="middle" '
        f'font-family="DejaVu Sans,Segoe UI Symbol,sans-serif" fill="{colour}">{sym}</text>'
        f'<text x="{round(w * 0.9)}" y="{h - 4}" font-size="{fs}" font-weight="700" '
        f'text-anchor="end" font-family="Georgia,serif" fill="{colour}" '
        f'transform="rotate(180 {round(w * 0.9) - fs / 3:g} {h - 4 - fs / 3:g})">{rank}</text>'
        "</svg>"
    )
