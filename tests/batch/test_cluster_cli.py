"""`run --cluster` at the command line without a cluster, and without Dask (issue 13, point 3).

Dask is an optional extra: the default install must run, ingest and audit
without it, and `--cluster` must then fail in one line saying what to
install. These tests hide Dask from a real `shoe-audit` process (an import of
`dask` or `distributed` fails there), so they run whether Dask is installed
or not.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.batch.cluster import ClusterSpec, cluster_task, parse_cluster
from audit.cli import app
from audit.errors import AuditError
from audit.profiles import load_registry
from audit.store import Store

Ingested = Callable[[int], Store]

_WITHOUT_DASK = (
    "import sys; sys.modules['dask'] = sys.modules['distributed'] = None; "
    "sys.argv = ['shoe-audit', *sys.argv[1:]]; from audit.cli import main; main()"
)


def shoe_audit_without_dask(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_DASK, *args], capture_output=True, text=True, timeout=300
    )


def test_without_dask_cluster_fails_in_one_line_naming_the_extra(
    ingested: Ingested, tmp_path: Path
) -> None:
    ingested(1).close()
    db = str(tmp_path / "audit.duckdb")
    done = shoe_audit_without_dask("run", "--db", db, "--cluster", "local:2")
    assert done.returncode == 1, done.stderr
    assert (
        done.stderr == "Error: --cluster needs Dask, which is not installed: pip install "
        "'shoe-audit[cluster]'\n"
    )


def test_without_dask_a_local_run_and_an_export_work(ingested: Ingested, tmp_path: Path) -> None:
    ingested(1).close()
    db = str(tmp_path / "audit.duckdb")
    run = shoe_audit_without_dask("run", "--db", db, "--workers", "1")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("audited ")
    export = shoe_audit_without_dask("export", "--parquet", str(tmp_path / "x"), "--db", db)
    assert export.returncode == 0, export.stderr


@pytest.mark.parametrize(
    "address",
    ["localhost:8786", "local:0", "local:two", "tcp://host", "http://host:8786", "local:2 "],
)
def test_a_cluster_address_that_is_neither_tcp_nor_local_is_a_usage_error(
    address: str, runner: CliRunner, tmp_path: Path
) -> None:
    out = runner.invoke(app, ["run", "--db", str(tmp_path / "a.duckdb"), "--cluster", address])
    assert out.exit_code == 2
    assert "--cluster" in out.output
    assert not (tmp_path / "a.duckdb").exists()


def test_source_without_cluster_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    out = runner.invoke(app, ["run", "--db", str(tmp_path / "a.duckdb"), "--source", "x"])
    assert out.exit_code == 2 and "needs --cluster" in out.output


def test_cluster_addresses() -> None:
    assert parse_cluster("local:3") == ClusterSpec(local_workers=3)
    assert parse_cluster("tcp://10.0.0.5:8786") == ClusterSpec(address="tcp://10.0.0.5:8786")
    assert parse_cluster("tls://sched.example:8786") == ClusterSpec(
        address="tls://sched.example:8786"
    )


def test_a_worker_with_another_engine_refuses_the_batch() -> None:
    def never(job: object, registry: object) -> object:
        raise AssertionError("the batch must not be replayed")

    with pytest.raises(AuditError, match=r"engine .* the coordinator 0\.0\.0"):
        cluster_task(never, None, load_registry(), "0.0.0")  # type: ignore[arg-type]
