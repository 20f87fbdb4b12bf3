"""``regrag verify``: check the retained generations of an index directory.

The check works on one snapshot: ``CURRENT`` is read once and each
generation it lists is checked against that listing. A writer may prune a
listed generation while it is being checked (``--keep``); a failure is then
looked at again, and a generation that is no longer retained is reported as
pruned, never as damaged (a compliance check must not cry wolf). A failure
of a generation that is still retained is damage. When every generation of
a snapshot was pruned, the check starts again from the newer one (up to
three snapshots).
"""

from __future__ import annotations

import os
from operator import lt
from dataclasses import dataclass

from regrag.errors import CorruptIndexError, InputError
from regrag.index.codec import OlderFormatError
from regrag.io import files
from regrag.limits import Limits


@dataclass(frozen=True)
class VerifyReport:
    """What ``verify`` checked, the first problem found in each damaged
    generation, the generations pruned by a writer during the check, and the
    intact generations written under an earlier content-hash rule."""

    root: str
    checked: tuple[int, ...]  # the generations checked to the end (damaged or not)
    problems: tuple[tuple[int, str], ...]  # (generation, message)
    pruned: tuple[int, ...] = ()  # listed when the check began, pruned before it was done: not checked
    outdated: tuple[tuple[int, str], ...] = ()  # (generation, message): intact, but not reproducible by this regrag

    @property
    def ok(self) -> bool:
        return not self.problems and not self.outdated


class OutdatedIndexError(CorruptIndexError):
    """A generation whose stored documents are intact but whose content hashes
    follow the rule before issue 12 (``source`` not covered), so a fresh index
    of them has another index id: re-index rather than suspect tampering."""


def verify_store(root: str | os.PathLike[str], generation: int | None = None, full: bool = True) -> VerifyReport:
    """Check every retained generation (or one): the manifest against
    ``CURRENT``, each file's size and SHA-256, the structure, and with
    ``full`` also that re-indexing the stored documents gives every data
    file byte for byte, the index id and the corpus Merkle root."""
    from regrag.index.directory import IndexStore

    store = IndexStore(root)
    earlier: list[int] = []
    for _attempt in range(3):  # every generation pruned while being checked: check the newer snapshot
        report = _verify_snapshot(store, generation, full)
        if report.checked or generation is not None:
            break
        earlier.extend(report.pruned)
    return VerifyReport(report.root, report.checked, report.problems, tuple(sorted(set(earlier) | set(report.pruned))),
                        report.outdated)


def _verify_snapshot(store, generation: int | None, full: bool) -> VerifyReport:
    """One pass of ``verify_store`` over one reading of ``CURRENT``."""
    _current, generations = store.history()  # the snapshot every generation is checked against
    wanted = [g for g in generations if generation is None or g.number == generation]
    if generation is not None and not wanted:
        raise InputError(f"{store.root}: generation {generation} is not retained")
    problems: list[tuple[int, str]] = []
    outdated: list[tuple[int, str]] = []
    checked: list[int] = []
    pruned: list[int] = []
    for entry in wanted:
        try:
            _check_generation(store, entry, full)
        except (OutdatedIndexError, OlderFormatError) as error:
            checked.append(entry.number)
            outdated.append((entry.number, str(error)))
            continue
        except CorruptIndexError as error:
            problem = str(error)
        except OSError as error:  # a file that vanished or became unreadable while being compared
            problem = f"{error.filename}: cannot read ({error.strerror or error})"
        else:
            checked.append(entry.number)
            continue
        if entry not in store.history()[1]:  # pruned by a writer meanwhile: not damage
            pruned.append(entry.number)
        else:
            checked.append(entry.number)
            problems.append((entry.number, problem))
    return VerifyReport(str(store.root), tuple(checked), tuple(problems), tuple(pruned), tuple(outdated))


_UNCAPPED = Limits(passages_per_document=2**31 - 1, document_id_bytes=2**31 - 1, sections_per_document=2**31 - 1)


def _hashed_before_source_was_covered(inverted) -> bool:
    """Whether every stored content hash is the pre-issue-12 hash (the canonical
    form without ``source``) and at least one document had a source to leave out."""
    from regrag.audit.canonical import sha256_hex

    legacy = 0
    for key, document in inverted.documents.items():
        canonical = document.canonical()
        if "source" in canonical:
            del canonical["source"]
            legacy += 1
        if inverted.content_hashes.get(key) != sha256_hex(canonical):
            return False
    return legacy > 0


def _check_generation(store, entry, full: bool) -> None:
    """``CorruptIndexError`` (or ``OSError``) unless generation ``entry``, as
    listed in the snapshot, is intact."""
    from regrag._version import __version__
    from regrag.index import codec
    from regrag.index.build import build_index
    from regrag.index.postings_table import PostingsTable
    from regrag.index.stored_documents import PassageList, check_every_record
    from regrag.index.directory import CURRENT

    inverted = store._load_generation(entry)
    directory = store.generation_path(entry.number)
    manifest, _bytes = codec.read_manifest(directory)
    from regrag.index.segmented import SegmentedIndex
    from regrag.index.shard_generation import ShardedIndex

    from regrag.index import attachments

    attachments.check_files(directory, manifest)  # attached files (dense vectors): size and SHA-256
    if full:
        from regrag.index.entity_files import check_stored_table

        check_stored_table(directory, entry.manifest_sha256, inverted)
    if isinstance(inverted, ShardedIndex):
        from regrag.index.shard_checks import check_sharded

        check_sharded(directory, manifest, inverted, full, _UNCAPPED)
        return
    if isinstance(inverted, SegmentedIndex):
        from regrag.index.segment_checks import check_segmented

        check_segmented(directory, manifest, inverted, full, _UNCAPPED)
        return
    codec.check_whole_files(directory, manifest)  # every byte, not only the chunks a query touched
    if isinstance(inverted.postings, PostingsTable):
        inverted.postings.check_ranges()
        terms = list(inverted.postings)
        if not all(map(lt, terms, terms[1:])):
            raise CorruptIndexError(f"{directory / codec.TERMS}: terms not in ascending order, or repeated")
    if isinstance(inverted.passages, PassageList):
        check_every_record(inverted.passages.stored)
    if not full:
        return
    # The stored files already passed the writer's caps; the check must not refuse what the writer was allowed.
    rebuilt = build_index(list(inverted.documents.values()), inverted.analyzer, inverted.parameters, limits=_UNCAPPED)
    expected = codec.serialise(rebuilt, manifest.get("engine_version", __version__))
    expected[codec.MANIFEST] = attachments.amended_manifest(expected[codec.MANIFEST], manifest.get(attachments.KEY) or {})
    for name in codec.DATA_FILES + (codec.MANIFEST,):
        if files.read_whole(directory / name) != expected[name]:
            if _hashed_before_source_was_covered(inverted):
                raise OutdatedIndexError(
                    f"{directory}: written before a document's source (its file name) was covered by its content "
                    "hash (regrag issue 12): the stored documents match their recorded hashes under that rule, but "
                    "a fresh index of them has another index id; re-index the corpus (regrag index CORPUS --out DIR)")
            raise CorruptIndexError(f"{directory / name}: differs from a fresh index of the stored documents")
    if rebuilt.index_id != entry.index_id or rebuilt.corpus_root != entry.corpus_root:
        raise CorruptIndexError(f"{store.root / CURRENT}: index id or corpus root differ from the stored documents")
