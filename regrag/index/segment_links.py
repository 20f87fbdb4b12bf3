"""The segment directories of a new generation: made, their shared files
hard-linked from the generation that already holds them (copied where the
file system cannot link), and flushed to disk (docs/index-format.md,
"Segments"). A published file is never modified, so a link is as good as a
copy, and pruning a generation never removes a file another one uses."""

from __future__ import annotations

from pathlib import Path

from regrag.io import writes


def _folders(files: dict[str, bytes], links: dict[str, Path]) -> list[str]:
    return sorted({name.rsplit("/", 1)[0] for name in [*files, *links] if "/" in name})


def segment_directories(directory: Path, files: dict[str, bytes], links: dict[str, Path]) -> None:
    """Make every segment directory under ``directory`` and link ``links``
    (name within the generation -> source file), in sorted order."""
    made: set[str] = set()
    for folder in _folders(files, links):
        parts = folder.split("/")
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            if path not in made:
                writes.make_directory(directory / path)
                made.add(path)
    for name in sorted(links):
        writes.link_or_copy(links[name], directory / name)


def sync_segment_directories(directory: Path, files: dict[str, bytes], links: dict[str, Path]) -> None:
    """fsync each segment directory, deepest first (their files are synced as written)."""
    folders = _folders(files, links)
    parents = sorted({folder.rsplit("/", 1)[0] for folder in folders if "/" in folder})
    for folder in sorted(folders + parents, key=lambda name: (-name.count("/"), name)):
        writes.fsync_directory(directory / folder)
