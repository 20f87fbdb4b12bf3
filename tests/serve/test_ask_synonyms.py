"""``_ask``'s ``synonyms`` field (docs/serve.md, docs/synonyms.md): the built-in
set by default, as for ``ask``, recorded so the server's ledger replays it."""

from __future__ import annotations

import pytest

from regrag.answer.lexicon import LEXICON_SHA256, builtin_synonyms
from regrag.errors import InputError
from regrag.serve.search_api import parse_ask


def test_default_is_the_builtin_set_and_recorded():
    request = parse_ask({"question": "What is the penalty for insider dealing?"})
    assert request.options.search.synonyms is builtin_synonyms()
    assert request.given["synonyms"]["sha256"] == LEXICON_SHA256


def test_none_turns_them_off_and_files_are_refused():
    request = parse_ask({"question": "q", "synonyms": "none"})
    assert request.options.search.synonyms is None and "synonyms" not in request.given
    with pytest.raises(InputError, match='"synonyms" must be "builtin" or "none"'):
        parse_ask({"question": "q", "synonyms": "/etc/passwd"})
