"""``regrag prove DIR DOC_ID``: a Merkle inclusion proof that a document belongs
to the indexed corpus; ``regrag verify-proof FILE``: check one without the
index (docs/merkle.md)."""

from __future__ import annotations

import argparse
import sys

from regrag.audit.canonical import canonical_json
from regrag.cli.status import ExitStatus
from regrag.engine import Index
from regrag.errors import InputError


def register(commands) -> None:
    prove = commands.add_parser("prove", help="Merkle inclusion proof that a document belongs to the indexed corpus")
    prove.add_argument("directory", metavar="DIR")
    prove.add_argument("document_id")
    prove.add_argument("--generation", type=int, default=None, metavar="N")
    prove.set_defaults(handler=run_prove)

    verify_proof = commands.add_parser("verify-proof", help="check an inclusion proof without the index (exit 0 valid, 1 not)")
    verify_proof.add_argument("proof", metavar="FILE", help="a proof printed by 'regrag prove' ('-' for standard input)")
    verify_proof.add_argument("--root", default=None, help="the corpus root the proof must lead to (e.g. from a provenance record)")
    verify_proof.set_defaults(handler=run_verify_proof)


def run_prove(arguments: argparse.Namespace) -> int:
    from regrag.audit.merkle import inclusion_proof

    index = Index.open(arguments.directory, generation=arguments.generation)
    hashes = index.content_hashes()
    if arguments.document_id not in hashes:
        raise InputError(f"no document with id {arguments.document_id!r} in {arguments.directory}")
    proof = inclusion_proof([(key, hashes[key]) for key in sorted(hashes)], arguments.document_id)
    print(canonical_json(proof.to_dict()))
    return ExitStatus.OK


def run_verify_proof(arguments: argparse.Namespace) -> int:
    from regrag.audit.merkle import InclusionProof, verify_inclusion
    from regrag.jsonl import parse_json_object, read_bytes

    where = "standard input" if arguments.proof == "-" else arguments.proof
    data = sys.stdin.buffer.read() if arguments.proof == "-" else read_bytes(arguments.proof)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where}: not a JSON proof (invalid UTF-8)") from None
    proof = InclusionProof.from_dict(parse_json_object(text, where))
    if verify_inclusion(proof, arguments.root):
        print(f"valid: {proof.document_id!r} (content hash {proof.content_hash[:16]}…) is leaf {proof.leaf_index} "
              f"of {proof.tree_size} under root {proof.root}")
        return ExitStatus.OK
    reason = "does not lead to the given --root" if arguments.root and arguments.root != proof.root else "does not lead to its root"
    print(f"INVALID: the proof for {proof.document_id!r} {reason}")
    return ExitStatus.CHECK_FAILED
