"""The tables of the audit database, and how a file is brought to this version.

Columns are named after the TEL/1 fields (``table`` is a reserved word, so
the table id is ``table_id``); quote ``"by"``, ``"to"``, ``"order"``,
``"count"`` and ``"natural"`` in hand-written SQL.
"""

from __future__ import annotations

from audit.store.books_detail import BOOKS_DETAIL_DDL
from audit.store.fields import COLUMN_TYPES, GAMES_COLUMNS, TABLE_TYPES, TYPES
from audit.store.periods import PERIODS_DDL

SCHEMA_VERSION = 12
APP_ID = "shoe-audit"

_V12_TYPES = TABLE_TYPES | {"peek", "reveal"}
"""The types TEL/1 v1.2 adds: the books' (accounting.md) and the hole card's (games.md §2)."""
_V11_COLUMNS = {
    f.name
    for etype, fields in TYPES.items()
    if etype not in _V12_TYPES
    for f in fields
    if f.name not in GAMES_COLUMNS
}
_TYPED = ",\n    ".join(
    f'"{name}" {sql_type}' for name, sql_type in COLUMN_TYPES.items() if name in _V11_COLUMNS
)
V12_EVENT_COLUMNS: dict[str, str] = {
    "stream": "VARCHAR",
    **{n: t for n, t in COLUMN_TYPES.items() if n not in _V11_COLUMNS and n not in GAMES_COLUMNS},
}
"""The columns TEL/1 v1.2 adds to ``events`` (accounting.md): ``stream`` as written
(NULL: the table's own) and the table-level types' fields. They come last, in a new
database as in a migrated one, so both have one column order."""
_V12_DDL = "".join(
    f'ALTER TABLE events ADD COLUMN "{name}" {sql_type};\n'
    for name, sql_type in V12_EVENT_COLUMNS.items()
)

_GAMES_DDL = "".join(
    f'ALTER TABLE events ADD COLUMN "{name}" {COLUMN_TYPES[name]};\n' for name in GAMES_COLUMNS
)
"""Schema 11: the columns games.md §2 adds to ``events`` (``shoe_open.side_limits``), last."""

SIDE_BET_VERDICT_DDL = """
ALTER TABLE wagers ADD COLUMN line VARCHAR;
ALTER TABLE wagers ADD COLUMN ratio VARCHAR;
"""
"""Schema 12: a side bet's verdict beside its due (games.md §1): the pay-table line its
cards won (NULL: none, or no side bet) and what it pays to 1, as the engine judged them,
so a hand page formats them and never evaluates the cards again."""

_BOOKS_DDL = """
CREATE TABLE stream_marks (
    stream VARCHAR NOT NULL,
    seq BIGINT NOT NULL
);
CREATE TABLE day_cuts (
    gaming_day DATE PRIMARY KEY,
    day_start VARCHAR NOT NULL,
    house_sha256 VARCHAR,
    cut_at TIMESTAMPTZ NOT NULL
);
"""
"""Schema 9 (issue 31): the ``seq`` of every stored event that no ``shoes`` row bounds (a
table-level event, or one in a stream other than its table's), so that ``LOG_SEQ_GAP``
finds a stream's neighbours of new events without scanning ``events``; the day start
each stored gaming day was cut with at ingest (``status`` names it), and the SHA-256 of
the house file it came from (NULL: ``--day-start`` chose another start)."""

_FINDING_COLUMNS = """
    code VARCHAR NOT NULL,
    severity VARCHAR NOT NULL,
    table_id VARCHAR,
    shoe VARCHAR,
    round BIGINT,
    box BIGINT,
    hand BIGINT,
    spot BIGINT,
    expected VARCHAR,
    actual VARCHAR,
    impact DECIMAL(38,4),
    rule VARCHAR,
    events VARCHAR[] NOT NULL,
    source VARCHAR,
    message VARCHAR NOT NULL,
    gaming_day DATE,
    ordinal BIGINT NOT NULL DEFAULT 0,
    id VARCHAR"""

_OUTCOME_DDL = """
CREATE TABLE rounds (
    table_id VARCHAR NOT NULL,
    shoe VARCHAR NOT NULL,
    round BIGINT NOT NULL,
    gaming_day DATE,
    profile_id VARCHAR,
    status VARCHAR NOT NULL,
    dealer VARCHAR,
    opened_at TIMESTAMPTZ,
    first_seq BIGINT,
    last_seq BIGINT,
    boxes INTEGER NOT NULL,
    wagers INTEGER NOT NULL,
    handle DECIMAL(38,2) NOT NULL,
    due DECIMAL(38,4),
    settled DECIMAL(38,2) NOT NULL,
    dealer_upcard VARCHAR,
    dealer_cards VARCHAR[] NOT NULL,
    dealer_total INTEGER NOT NULL,
    dealer_natural BOOLEAN NOT NULL,
    dealer_bust BOOLEAN NOT NULL,
    dealer_completed BOOLEAN NOT NULL,
    ranks_before_round BIGINT[],
    unseen_before_round BIGINT NOT NULL,
    ranks_before_dealer BIGINT[],
    unseen_before_dealer BIGINT NOT NULL,
    findings INTEGER NOT NULL,
    worst_severity VARCHAR,
    impact DECIMAL(38,4)
);
CREATE TABLE wagers (
    table_id VARCHAR NOT NULL,
    shoe VARCHAR NOT NULL,
    round BIGINT NOT NULL,
    box BIGINT NOT NULL,
    hand BIGINT NOT NULL,
    spot BIGINT NOT NULL,
    kind VARCHAR NOT NULL,
    gaming_day DATE,
    player VARCHAR,
    stake DECIMAL(18,2) NOT NULL,
    base_stake DECIMAL(18,2) NOT NULL,
    due DECIMAL(38,4),
    settled DECIMAL(38,2),
    settles INTEGER NOT NULL,
    verdict VARCHAR,
    outcome VARCHAR NOT NULL,
    cards VARCHAR[] NOT NULL,
    total INTEGER NOT NULL,
    "natural" BOOLEAN NOT NULL,
    bust BOOLEAN NOT NULL,
    doubled BOOLEAN NOT NULL,
    from_split BOOLEAN NOT NULL,
    surrendered BOOLEAN NOT NULL
);
"""
"""What ``run`` stores of every round and wager (:mod:`audit.engine.outcome`): every figure
of the report and the statistics comes from here. No primary key: ``run`` replaces a
shoe's rows in the same transaction that records its audit, so a shoe's rows are unique
(a test checks it), and inserts stay cheap."""

_V4 = f"""
CREATE TABLE ledger (
    no BIGINT PRIMARY KEY,
    kind VARCHAR NOT NULL,
    body VARCHAR NOT NULL,
    prev VARCHAR NOT NULL,
    hash VARCHAR NOT NULL
);
CREATE TABLE file_shoes (
    file_id BIGINT NOT NULL,
    table_id VARCHAR NOT NULL,
    shoe VARCHAR NOT NULL
);
CREATE TABLE unread_inputs (
    path VARCHAR PRIMARY KEY,
    reason VARCHAR NOT NULL,
    first_seen TIMESTAMPTZ NOT NULL,
    last_seen TIMESTAMPTZ NOT NULL
);
CREATE TABLE integrity_findings ({_FINDING_COLUMNS},
    checked_at TIMESTAMPTZ NOT NULL
);
"""
"""Schema 4 (issue 14): the tamper-evidence ledger (``ingest_id`` on events and
quarantine ties a row to the ledger record of the ingest that added it), the
shoes each input file holds (``nightly`` reports their gaming days), the input
files that could not be read, and the ``LOG_TAMPERED`` findings of the last
integrity check (see :mod:`audit.store.ledger`)."""

_PARQUET_DDL = """
CREATE TABLE parquet_files (
    path VARCHAR PRIMARY KEY,
    gaming_day DATE NOT NULL,
    table_id VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    size_bytes BIGINT NOT NULL,
    rows BIGINT NOT NULL,
    shoes_digest VARCHAR NOT NULL,
    export_id VARCHAR NOT NULL,
    exported_at TIMESTAMPTZ NOT NULL
);
"""
"""The files of the last ``export --parquet`` (:mod:`audit.store.parquet`): each file's path
in the export folder, its partition, its SHA-256 (workers check it before reading), and the
digest of its partition's shoes when it was written (a stale export is refused)."""

_FAILURES_DDL = """
CREATE TABLE shoe_failures (
    table_id VARCHAR NOT NULL,
    shoe VARCHAR NOT NULL,
    error VARCHAR NOT NULL,
    failed_at TIMESTAMPTZ NOT NULL,
    engine_version VARCHAR NOT NULL,
    PRIMARY KEY (table_id, shoe)
);
"""
"""The shoes whose last replay failed (cli.md ``run``, issue 28): each keeps its earlier
audit's results, if it had one, and the next ``run`` tries it again."""

DDL = f"""
CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
CREATE SEQUENCE file_ids START 1;
CREATE TABLE input_files (
    file_id BIGINT PRIMARY KEY,
    path VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    size_bytes BIGINT NOT NULL,
    lines BIGINT NOT NULL,
    events BIGINT NOT NULL,
    new_events BIGINT NOT NULL,
    duplicates BIGINT NOT NULL,
    rejected BIGINT NOT NULL,
    first_ingested_at TIMESTAMPTZ NOT NULL,
    last_ingested_at TIMESTAMPTZ NOT NULL,
    UNIQUE (path, sha256)
);
CREATE TABLE events (
    id VARCHAR NOT NULL,
    table_id VARCHAR NOT NULL,
    shoe VARCHAR,
    round BIGINT,
    seq BIGINT NOT NULL,
    ts TIMESTAMPTZ NOT NULL,
    ts_local TIMESTAMP NOT NULL,
    utc_offset_min INTEGER NOT NULL,
    type VARCHAR NOT NULL,
    known_type BOOLEAN NOT NULL,
    {_TYPED},
    has_extra BOOLEAN NOT NULL,
    raw VARCHAR NOT NULL USING COMPRESSION zstd,
    file_id BIGINT NOT NULL,
    line_no BIGINT NOT NULL,
    ingest_id BIGINT
);
CREATE TABLE quarantine (
    file_id BIGINT NOT NULL,
    path VARCHAR NOT NULL,
    line_no BIGINT NOT NULL,
    code VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    raw VARCHAR NOT NULL USING COMPRESSION zstd,
    id VARCHAR,
    table_id VARCHAR,
    shoe VARCHAR,
    ts_local TIMESTAMP,
    ingest_id BIGINT,
    UNIQUE (file_id, line_no, code)
);
CREATE TABLE log_findings ({_FINDING_COLUMNS},
    stream VARCHAR
);
CREATE TABLE shoes (
    table_id VARCHAR NOT NULL,
    shoe VARCHAR NOT NULL,
    profile VARCHAR,
    decks BIGINT,
    dealer VARCHAR,
    opened_at TIMESTAMPTZ,
    opened_local TIMESTAMP,
    gaming_day DATE,
    first_seq BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    events BIGINT NOT NULL,
    events_digest VARCHAR NOT NULL,
    PRIMARY KEY (table_id, shoe)
);
CREATE TABLE shoe_audits (
    table_id VARCHAR NOT NULL,
    shoe VARCHAR NOT NULL,
    engine_version VARCHAR NOT NULL,
    profile_id VARCHAR,
    profile_digest VARCHAR,
    events_digest VARCHAR NOT NULL,
    audited_at TIMESTAMPTZ NOT NULL,
    rounds BIGINT NOT NULL,
    wagers BIGINT NOT NULL DEFAULT 0,
    handle DECIMAL(38,2) NOT NULL DEFAULT 0,
    prefix_ranks BIGINT[],
    context_first_shoe BOOLEAN,
    context_banker VARCHAR,
    context_banker_rounds BIGINT,
    PRIMARY KEY (table_id, shoe)
);
CREATE TABLE findings ({_FINDING_COLUMNS},
    origin VARCHAR NOT NULL
);
{_OUTCOME_DDL}
{_V4}
{_PARQUET_DDL}
{_FAILURES_DDL}
{PERIODS_DDL}
{BOOKS_DETAIL_DDL}
{_BOOKS_DDL}
{_V12_DDL}
{_GAMES_DDL}
{SIDE_BET_VERDICT_DDL}
"""
"""The current schema, created in one transaction on a new database (the v1.2 columns of
``events`` follow it: :data:`V12_EVENT_COLUMNS`)."""

MIGRATIONS: dict[int, str] = {
    2: """
    ALTER TABLE shoe_audits ADD COLUMN wagers BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE shoe_audits ADD COLUMN handle DECIMAL(18,2) NOT NULL DEFAULT 0;
    """,
    # Version 3: stored outcomes; findings get their stable id; an impact may be due to a
    # fraction of a cent (3:2 on 25.25). The engine changed (2.0.0): every shoe is
    # re-audited by the next run, which fills the new tables.
    3: f"""
    ALTER TABLE findings ADD COLUMN id VARCHAR;
    ALTER TABLE log_findings ADD COLUMN id VARCHAR;
    ALTER TABLE findings ALTER impact TYPE DECIMAL(18,4);
    ALTER TABLE log_findings ALTER impact TYPE DECIMAL(18,4);
    {_OUTCOME_DDL}
    """,
    # Sums of amounts: an amount is at most 10^12 (TEL/1 v1.1), so a shoe's or a
    # round's handle, or the settlements a PAY_DUPLICATE adds up, can pass
    # DECIMAL(18,2); a due in hundredths of a cent passes DECIMAL(18,4) at 10^14.
    4: """
    ALTER TABLE shoe_audits ALTER handle TYPE DECIMAL(38,2);
    ALTER TABLE findings ALTER impact TYPE DECIMAL(38,4);
    ALTER TABLE log_findings ALTER impact TYPE DECIMAL(38,4);
    ALTER TABLE rounds ALTER handle TYPE DECIMAL(38,2);
    ALTER TABLE rounds ALTER due TYPE DECIMAL(38,4);
    ALTER TABLE rounds ALTER settled TYPE DECIMAL(38,2);
    ALTER TABLE rounds ALTER impact TYPE DECIMAL(38,4);
    ALTER TABLE wagers ALTER due TYPE DECIMAL(38,4);
    ALTER TABLE wagers ALTER settled TYPE DECIMAL(38,2);
    ALTER TABLE events ADD COLUMN ingest_id BIGINT;
    ALTER TABLE quarantine ADD COLUMN ingest_id BIGINT;
    """
    + _V4
    + """
    INSERT INTO file_shoes SELECT DISTINCT file_id, table_id, shoe FROM events;
    INSERT INTO meta SELECT 'ledger_baseline', 'needed' WHERE EXISTS (SELECT 1 FROM events);
    """,
    # Version 5: the Parquet export's file records (run --cluster --source).
    5: _PARQUET_DDL,
    # Version 6: a shoe may have up to 2^53 - 1 decks (TEL/1 v1.1), so the cards left
    # unseen, and those of a rank, pass INTEGER (found by the fuzz test at volume).
    6: """
    ALTER TABLE rounds ALTER ranks_before_round TYPE BIGINT[];
    ALTER TABLE rounds ALTER unseen_before_round TYPE BIGINT;
    ALTER TABLE rounds ALTER ranks_before_dealer TYPE BIGINT[];
    ALTER TABLE rounds ALTER unseen_before_dealer TYPE BIGINT;
    """,
    # Version 7: run stores each shoe's prefix ranks (the statistics read them rather than
    # a window over every card of the night) and the cross-shoe context it replayed the
    # shoe with (a hand page replays it so, without reading the table's outline). NULL
    # for a shoe audited before: both are computed from the events, as before, until
    # the next run re-audits it.
    7: """
    ALTER TABLE shoe_audits ADD COLUMN prefix_ranks BIGINT[];
    ALTER TABLE shoe_audits ADD COLUMN context_first_shoe BOOLEAN;
    ALTER TABLE shoe_audits ADD COLUMN context_banker VARCHAR;
    ALTER TABLE shoe_audits ADD COLUMN context_banker_rounds BIGINT;
    """,
    # Version 8: the shoes whose replay failed (a shoe costs only itself, issue 28).
    8: _FAILURES_DDL,
    # Version 9: the table's books, one row per period as run reconciled it (issue 31).
    9: PERIODS_DDL + BOOKS_DETAIL_DDL,
    # Version 10: TEL/1 v1.2's books (issue 31): the new events' typed columns and their
    # stream; a table-level event has no shoe; the day start of each stored gaming day.
    # Every stored (v1.1) event reads as before: its new columns are NULL.
    10: "ALTER TABLE events ALTER COLUMN shoe DROP NOT NULL;\n"
    + _V12_DDL
    + _BOOKS_DDL
    + "ALTER TABLE log_findings ADD COLUMN stream VARCHAR;\n",
    # Version 11: TEL/1 v1.2's side bets (games.md §2): shoe_open's side_limits. A bet's
    # kind shares the settle's column (a v1.1 bet stores NULL there, as it always did).
    11: _GAMES_DDL,
    # Version 12: each side bet's verdict (its line and ratio) beside its due, as the engine
    # judged it (games.md §1). NULL on every stored wager: none was a side bet the engine
    # judged (a profile offering side bets now hashes its pay tables into its digest, so
    # its shoes are audited again by the next run).
    12: SIDE_BET_VERDICT_DDL,
}
"""``MIGRATIONS[n]`` brings a version ``n - 1`` database to version ``n``."""

FINDING_ID_SQL = (
    "substr(sha256(concat_ws('|', {code}, coalesce({table_id}, ''), coalesce({shoe}, ''), "
    "coalesce(CAST({round} AS VARCHAR), ''), coalesce(CAST({box} AS VARCHAR), ''), "
    "coalesce(CAST({hand} AS VARCHAR), ''), coalesce(CAST({spot} AS VARCHAR), ''), "
    "coalesce({source}, ''), CAST({occurrence} AS VARCHAR))), 1, 16)"
)
"""SQL for :func:`audit.findings.finding_id` over column expressions (``str.format`` them):
the id of a finding the store makes itself (ingest findings). A test checks both agree."""
