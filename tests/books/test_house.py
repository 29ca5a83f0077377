"""The house file (accounting.md "Gaming day, shift, session, period"): the packaged
defaults, a casino's own file, and one line naming file, line and key when it is bad."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from audit.books.house import PACKAGED_HOUSE, House, load_house, load_house_file
from audit.errors import ProfileError


def test_packaged_house_file_holds_accounting_md_defaults() -> None:
    house = load_house_file(PACKAGED_HOUSE)
    built = House()
    for key in ("day_start", "shifts", "denominations", "win_tolerance", "slip_signers"):
        assert getattr(house, key) == getattr(built, key), key
    assert house.discrepancy_report == Decimal(25)
    assert house.discrepancy_regulator == Decimal(100)
    assert house.adjustment_report == Decimal(2000)
    assert house.cage_day_close == "next_day"
    assert house.sha256 is not None and len(house.sha256) == 64
    assert "NJ 13:69D-1.21(e)" in house.sources["discrepancy_report"]


def test_house_file_in_profiles_folder_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHOE_AUDIT_HOUSE", raising=False)
    (tmp_path / "house.toml").write_text(
        'day_start = { value = "08:00", source = "house" }\n'
        'shifts = { value = [{ name = "day" }, { name = "swing", start = "16:00" },'
        ' { name = "grave", start = "00:00" }], source = "house" }\n'
        'pits = { value = { P1 = ["T01", "T02"] }, source = "floor plan" }\n'
    )
    house = load_house(profiles=tmp_path)
    assert house.day_start == dt.time(8, 0)
    assert house.shift_names() == ("day", "swing", "grave")
    assert house.shift_at(dt.time(9, 0)) == "day"
    assert house.shift_at(dt.time(16, 0)) == "swing"
    assert house.shift_at(dt.time(3, 0)) == "grave"
    assert house.shift_at(dt.time(7, 59)) == "grave"
    assert house.pit_of("T02") == "P1" and house.pit_of("T09") is None
    with pytest.raises(ValueError, match="not after the one before"):
        house.with_day_start(dt.time(17, 0))


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        (
            '\nwin_tolerance = { value = "-1", source = "x" }\n',
            2,
            "win_tolerance: an amount of 0 or more",
        ),
        ('nonsense = { value = 1, source = "x" }\n', 1, "nonsense: not a house-file key"),
        ("slip_signers = 2\n", 1, "slip_signers: written as"),
        ('inventory_roles = { value = ["boss"], source = "x" }\n', 1, "unknown role 'boss'"),
        (
            'shifts = { value = [{ name = "a" }, { name = "b", start = "14:00" }, '
            '{ name = "c", start = "10:00" }], source = "x" }\n',
            1,
            "shifts: shift 'c' starts at 10:00, not after",
        ),
    ],
)
def test_bad_house_file_is_one_line_naming_file_line_and_key(
    tmp_path: Path, text: str, line: int, why: str
) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text)
    with pytest.raises(ProfileError) as err:
        load_house_file(path)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}: ")
    assert why in message
