"""The old name of ``regrag.index.codec`` (the file formats of one
generation), kept as a re-export for callers written before the rename;
new code imports ``regrag.index.codec``."""

from regrag.index.codec import (  # noqa: F401
    DATA_FILES, DOCUMENTS, MANIFEST, PASSAGE_ARRAYS, POSTING_ARRAYS, STORAGE_FORMAT, TERM_ARRAYS, TERMS,
    document_record, fsync_directory, load_generation, read_manifest, serialise, write_files,
)
