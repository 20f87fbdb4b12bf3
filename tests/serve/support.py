"""What the serve tests share: a small corpus with access groups, tokens for
four principals, and a server running in a thread (127.0.0.1, port 0)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

from regrag import Index
from regrag.serve.app import ServerConfig, make_server
from regrag.serve.auth import TokenTable, token_entry
from regrag.serve.state import IndexHolder, Served

DOCUMENTS = {
    "research-zephyrion.md": ("access: research\nissuer: Zephyrion Holdings\ndesk: research\nlanguage: en\n\n"
                              "# Zephyrion acquisition memo\n\n## Target valuation\n\n"
                              "The acquisition of Zephyrion Holdings is valued at 4.2 billion. The merger fee is "
                              "1.5 percent and the annual fee for advisory retainers is waived.\n"),
    "advisory-client.md": ("access: advisory\ndesk: advisory\nlanguage: en\n\n# Client advisory note\n\n"
                           "## Fees\n\nThe annual fee for the advisory account is 250 dollars. Margin interest "
                           "rate is 6.5 percent for advisory clients.\n\n## Quorvex disclosures\n\nQuorvex is a "
                           "client of the advisory desk and its acquisition plans are confidential.\n"),
    "shared-policy.md": ("access: research|advisory\ndesk: shared\nlanguage: en\n\n# Conflicts policy\n\n"
                         "## Chinese wall\n\nResearch and advisory staff must not share acquisition or merger "
                         "information. The annual fee review is done by compliance.\n"),
    "public-rates.md": ("language: en\ndesk: public\n\n# Public rate card\n\n## Annual fee\n\nThe annual fee of the "
                        "standard account is 95 dollars. The margin interest rate is 7.25 percent.\n"),
    "vn-thong-bao.md": ("access: research\ndesk: research\nlanguage: vi\n\n# Thông báo phí\n\n## Phí thường niên\n\n"
                        "Phí thường niên của tài khoản nghiên cứu là 500 nghìn đồng.\n"),
    "zh-tongzhi.md": ("access: advisory\ndesk: advisory\nlanguage: zh\n\n# 年费通知\n\n## 年费\n\n"
                      "顾问账户的年费是三百元。\n"),
}
TOKENS = {  # principal -> (token, groups, may read the ledger)
    "alice": ("alice-token-0123456789abcdef0123456789", ["research"], False),
    "bob": ("bob-token-0123456789abcdef0123456789ab", ["advisory"], False),
    "carol": ("carol-token-0123456789abcdef012345678", ["*"], True),
    "dave": ("dave-token-0123456789abcdef0123456789a", [], False),
}


def write_corpus(folder: Path, documents: dict[str, str] = DOCUMENTS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in documents.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


class Running:
    """A server running in a thread, and a small client for it."""

    def __init__(self, holder: IndexHolder, config: ServerConfig) -> None:
        self.server = make_server(holder, config)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def call(self, method: str, path: str, body=None, token: str | None = None, headers: dict | None = None,
             raw: bytes | None = None):
        """(status, headers, body bytes)."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode("utf-8"))
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def json(self, method: str, path: str, body=None, principal: str | None = None, **kwargs):
        token = TOKENS[principal][0] if principal else None
        status, headers, data = self.call(method, path, body, token, **kwargs)
        return status, headers, json.loads(data)


