"""Reading TEL/1 files: validate them, or ingest them into the store.

Files are streamed in chunks of lines and validated in bulk with DuckDB SQL;
only rejected lines go through :func:`audit.events.parse.parse_line`, which
stays the definition of a valid event and gives the precise message.
"""

from audit.ingest.pipeline import ingest_paths, validate_paths
from audit.ingest.summary import FileSummary, IngestSummary, ValidationReport

__all__ = ["FileSummary", "IngestSummary", "ValidationReport", "ingest_paths", "validate_paths"]
