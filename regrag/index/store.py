"""The old name of ``regrag.index.directory`` (generations, commits, the
writer lock), kept as a re-export for callers written before the rename;
new code imports ``regrag.index.directory``."""

from regrag.index.directory import (  # noqa: F401
    CURRENT, GENERATIONS, LOCK, MAX_CURRENT_BYTES, MAX_GENERATION, MAX_MANIFEST_BYTES, STORE_FORMAT, ClockError,
    IndexStore, Publication, PublishedGeneration, StaleBaseError, VerifyReport, format_timestamp, parse_timestamp,
    state_checksum, verify_store,
)
