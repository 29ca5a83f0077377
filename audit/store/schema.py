"""The tables of the audit database, and how a file is brought to this version.

Columns are named after the TEL/1 fields (``table`` is a reserved word, so
the table id is ``table_id``); quote ``"by"``, ``"to"``, ``"order"`` and
``"count"`` in hand-written SQL.
"""

from __future__ import annotations

from audit.store.fields import COLUMN_TYPES

SCHEMA_VERSION = 4
APP_ID = "shoe-audit"

_TYPED = ",\n    ".join(f'"{name}" {sql_type}' for name, sql_type in COLUMN_TYPES.items())

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
    impact DECIMAL(38,2),
    rule VARCHAR,
    events VARCHAR[] NOT NULL,
    source VARCHAR,
    message VARCHAR NOT NULL,
    gaming_day DATE,
    ordinal BIGINT NOT NULL DEFAULT 0"""

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
    shoe VARCHAR NOT NULL,
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
CREATE TABLE log_findings ({_FINDING_COLUMNS}
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
    PRIMARY KEY (table_id, shoe)
);
CREATE TABLE findings ({_FINDING_COLUMNS},
    origin VARCHAR NOT NULL
);
{_V4}"""
"""The current schema, created in one transaction on a new database."""

MIGRATIONS: dict[int, str] = {
    2: """
    ALTER TABLE shoe_audits ADD COLUMN wagers BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE shoe_audits ADD COLUMN handle DECIMAL(18,2) NOT NULL DEFAULT 0;
    """,
    # 3 is the stored outcomes' (rounds, wagers), landing on main separately.
    3: "SELECT 1",
    # Sums of amounts: an amount is at most 10^12 (TEL/1 v1.1), so a shoe's
    # handle, or the settlements a PAY_DUPLICATE adds up, can pass DECIMAL(18,2).
    4: """
    ALTER TABLE shoe_audits ALTER handle TYPE DECIMAL(38,2);
    ALTER TABLE findings ALTER impact TYPE DECIMAL(38,2);
    ALTER TABLE log_findings ALTER impact TYPE DECIMAL(38,2);
    ALTER TABLE events ADD COLUMN ingest_id BIGINT;
    ALTER TABLE quarantine ADD COLUMN ingest_id BIGINT;
    """
    + _V4
    + """
    INSERT INTO file_shoes SELECT DISTINCT file_id, table_id, shoe FROM events;
    INSERT INTO meta SELECT 'ledger_baseline', 'needed' WHERE EXISTS (SELECT 1 FROM events);
    """,
}
"""``MIGRATIONS[n]`` brings a version ``n - 1`` database to version ``n``."""
