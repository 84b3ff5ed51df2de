"""From stored raw chunks to series, series chunks and summaries: one import path for the three steps.

- ingest/buffer.py: which tools stream, series keys, a batch's records as per-series columns (pure);
- ingest/store.py: raw chunks, and parsing them in seq order into series blocks/chunks (`parse_pending`);
- ingest/finish.py: a closed stream's summaries, compaction and statistics, and reparse.

Everything here can be rerun from the raw chunks (`perflab reparse RUN`).
"""

from __future__ import annotations

from perflab.ingest.buffer import (
    LOAD_SUMMARY,
    NOT_METRICS,
    ONE_SHOT,
    STREAMING,
    Parsed,
    PointBuffer,
    _units,
    records_to_points,
    series_key,
)
from perflab.ingest.finish import (
    TRIM_FRACTION,
    averages_from_rows,
    compact_stream,
    finish_stream,
    flush_parser,
    headline_from_wrk,
    refresh_series_stats,
    reparse_stream,
    steady_stats,
)
from perflab.ingest.store import (
    SERIES_TABLE,
    LinesWriter,
    SeriesCache,
    decode_lines,
    encode_lines,
    parse_pending,
    store_parsed,
    store_points,
    stream_complete,
    stream_text,
)

__all__ = [
    "LOAD_SUMMARY", "NOT_METRICS", "ONE_SHOT", "SERIES_TABLE", "STREAMING", "TRIM_FRACTION", "LinesWriter", "Parsed",
    "PointBuffer", "SeriesCache", "_units", "averages_from_rows", "compact_stream", "decode_lines", "encode_lines",
    "finish_stream", "flush_parser", "headline_from_wrk", "parse_pending", "records_to_points",
    "refresh_series_stats", "reparse_stream", "series_key", "steady_stats", "store_parsed", "store_points",
    "stream_complete", "stream_text",
]
