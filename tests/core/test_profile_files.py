"""A casino's own profile folder (issue 30.6): one line per bad file, the others load."""

from __future__ import annotations

from pathlib import Path

from audit.profiles.registry import PACKAGED_DIR
from tests.cli.helpers import cli


def _folder(tmp_path: Path) -> Path:
    good = (PACKAGED_DIR / "it-casino-6d.toml").read_text(encoding="utf-8")
    folder = tmp_path / "casino"
    (folder / "paytables").mkdir(parents=True)
    (folder / "mine.toml").write_text(good.replace('"it-casino-6d"', '"mine"'), encoding="utf-8")
    bad = good.replace('"it-casino-6d"', '"bad"').replace(
        "decks = { value = 6", 'decks = { value = "six"'
    )
    (folder / "bad.toml").write_text(bad, encoding="utf-8")
    (folder / "house.toml").write_text("shifts = 3\n", encoding="utf-8")
    (folder / "paytables" / "six-five.toml").write_text("broken =\n", encoding="utf-8")
    return folder


def test_a_bad_file_is_one_line_and_the_others_list(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    result = cli("profiles", "--profiles", str(folder))
    assert result.exit_code == 1
    assert "mine " in result.stdout and "it-casino-6d " in result.stdout
    assert result.stderr == (
        f"warning: {folder / 'bad.toml'}: rules.decks: Input should be a valid integer, "
        "unable to parse string as an integer (got 'six')\n"
    )


def test_nightly_names_the_profiles_folder_searched(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    out = tmp_path / "night"
    assert cli("simulate", "--profiles", str(folder), "--profile", "mine", "--shoes", "1",
               "--tables", "1", "--out", str(out)).exit_code == 0  # fmt: skip
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("ingest", str(out), "--db", str(tmp_path / "a.duckdb")).exit_code == 0
    result = cli("run", "--db", str(tmp_path / "a.duckdb"), "--profiles", str(empty))
    assert f"not found in the packaged profiles and --profiles {str(empty)!r}" in result.stderr
