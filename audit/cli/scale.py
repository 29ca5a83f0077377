"""Scale-out on the command line (issue 13): ``export --parquet``, and ``run``'s cluster options.

cli.md: ``shoe-audit export --parquet DIR`` writes the events as Parquet
partitioned by gaming day and table (exit 0); ``run --cluster ADDRESS``
(``tcp://host:port`` of a Dask scheduler, or ``local:N``) replays on a Dask
cluster with the same results as a local run, and ``--source DIR`` has the
workers read their shoes from such an export.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from audit.cli.app import app
from audit.cli.common import DEFAULT_DB_PATH, DbOption, boundary, open_db
from audit.cli.output import say
from audit.wording import counted

if TYPE_CHECKING:
    from audit.batch.runner import BatchExecutor


def _cluster(value: str | None) -> str | None:
    if value is None:
        return None
    from audit.batch.cluster import parse_cluster

    try:
        parse_cluster(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    return value


ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="ADDRESS",
        callback=_cluster,
        help="Replay on a Dask cluster: its scheduler's tcp://host:port, or local:N for N "
        "worker processes started for the run (needs pip install 'shoe-audit[cluster]').",
    ),
]
SourceOption = Annotated[
    Path | None,
    typer.Option(
        "--source",
        metavar="DIR",
        help="With --cluster: the workers read the shoes from this `export --parquet` folder "
        "(at the same path on every worker) instead of being sent them.",
    ),
]


def executor_for(cluster: str | None) -> AbstractContextManager[BatchExecutor | None]:
    """The Dask cluster ``--cluster`` names, for the run (None: the local processes)."""
    if cluster is None:
        return nullcontext()
    from audit.batch.cluster import open_cluster  # Dask only when asked for

    return open_cluster(cluster)


@app.command("export")
@boundary
def export_cmd(
    parquet: Annotated[
        Path,
        typer.Option(
            "--parquet", metavar="DIR", help="Folder to write the Parquet files into (Hive layout)."
        ),
    ],
    db: DbOption = DEFAULT_DB_PATH,
    full: Annotated[
        bool, typer.Option("--full", help="Rewrite every partition, not only the changed ones.")
    ] = False,
) -> None:
    """Write the events as Parquet, partitioned by gaming day and table.

    DIR/gaming_day=YYYY-MM-DD/table=ID/*.parquet, each row an event as stored.
    Each file's SHA-256 is recorded in the database, and `run --cluster ...
    --source DIR` has the workers check it before reading. Again into the same
    folder, only the partitions whose shoes changed are written. Exit 1 when
    there is no database; 2 when DIR is a file, a link, or a folder of something else.

    \b
    Examples:
      shoe-audit export --parquet audit-export/
      shoe-audit export --parquet /nfs/audit-export --db audit-nightly.duckdb
      shoe-audit export --parquet /nfs/audit-export --full
    """
    from audit.store.parquet import export_parquet

    with open_db(db) as store:
        s = export_parquet(store, parquet, full=full)
    say(
        f"exported {s.partitions:,} partitions ({s.written:,} written, {s.unchanged:,} unchanged, "
        f"{s.removed:,} removed; {counted(s.events, 'event')} written) in "
        f"{counted(s.files, 'file')}, "
        f"{s.bytes / 1e6:,.1f} MB: {s.out}"
    )
