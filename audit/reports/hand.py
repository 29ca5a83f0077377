"""The hand packet: one round replayed step by step, for a dispute."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from audit.profiles import Profile
from audit.reports.context import HandContext

HandFormat = Literal["text", "html", "json"]


def build_hand_context(replay: Any, round_no: int, profile: Profile | None = None) -> HandContext:
    """The context of round ``round_no`` of a replayed shoe.

    ``replay`` is the engine's ``ShoeReplay`` (``audit.engine.replay_shoe``);
    ``profile`` is the profile it was replayed under (taken from the replay
    when it carries one). Raises :class:`audit.errors.NotFoundError` naming the
    nearest existing rounds when the shoe has no such round.
    """
    raise NotImplementedError


def render_hand_context(
    ctx: HandContext,
    fmt: HandFormat = "text",
    *,
    color: bool = False,
    templates_dir: Path | None = None,
) -> str:
    """Render a hand context as ``text`` (terminal), ``html`` (one file) or ``json``."""
    raise NotImplementedError


def render_hand(
    replay: Any,
    round_no: int,
    fmt: HandFormat = "text",
    *,
    color: bool = False,
    templates_dir: Path | None = None,
    profile: Profile | None = None,
) -> str:
    """Replay-to-page in one call: :func:`build_hand_context` then :func:`render_hand_context`.

    ``text`` uses suit symbols and ANSI colour when ``color``, plain ASCII
    otherwise; ``html`` is one self-contained file with the cards drawn as
    inline SVG; ``json`` is the :class:`HandContext` as JSON.
    """
    ctx = build_hand_context(replay, round_no, profile)
    return render_hand_context(ctx, fmt, color=color, templates_dir=templates_dir)
