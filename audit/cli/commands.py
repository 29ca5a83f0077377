"""Commands that read or write the audit database, and the rule-profile listing."""

from __future__ import annotations

from typing import Annotated

import typer

from audit.cli.app import app
from audit.cli.common import ProfilesOption, boundary


@app.command("profiles")
@boundary
def profiles_cmd(
    profile_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="Show this profile's rules.")
    ] = None,
    profiles: ProfilesOption = None,
) -> None:
    """List the rule profiles, or show one with every rule and its source.

    Example: shoe-audit profiles it-casino-5d
    """
    from audit.profiles import load_registry
    from audit.profiles.model import describe_rules

    registry = load_registry(profiles)
    if profile_id is None:
        for p in registry.all():
            typer.echo(f"{p.id:<26} seed {p.seed}  {p.title}")
        return
    p = registry.get(profile_id)
    typer.echo(f"{p.id}: {p.title}")
    typer.echo(f"seed {p.seed}; digest {p.digest}")
    typer.echo("")
    width = max(len(name) for name, *_ in describe_rules(p))
    for name, value, house, source in describe_rules(p):
        mark = " [house default]" if house else ""
        typer.echo(f"{name:<{width}}  {value}{mark}")
        typer.echo(f"{'':<{width}}    {source}")
