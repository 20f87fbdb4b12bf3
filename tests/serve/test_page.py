"""The page over plain HTTP: headers, CSRF, escaping, log-in, and what each
principal sees (the browser tests, test_browser.py, drive the same page)."""

from __future__ import annotations

import html
import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request

from tests.serve.support import TOKENS


class Browser:
    """urllib with cookies: enough to walk the page's forms."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path: str):
        return self._open(urllib.request.Request(self.base + path))

    def post(self, path: str, fields: dict[str, str]):
        data = urllib.parse.urlencode(fields).encode()
        return self._open(urllib.request.Request(self.base + path, data=data, method="POST",
                                                 headers={"Content-Type": "application/x-www-form-urlencoded"}))

    def _open(self, request):
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def logged_in(server, name: str) -> tuple[Browser, str]:
    browser = Browser(server.base)
    status, _h, page = browser.get("/login")
    assert status == 200
    status, _h, page = browser.post("/login", {"csrf": csrf_of(page), "token": TOKENS[name][0]})
    assert status == 200 and f'id="principal">{name}<' in page
    return browser, csrf_of(page)


def test_every_page_has_a_strict_content_security_policy_and_no_external_asset(server):
    browser, _csrf = logged_in(server, "alice")
    status, headers, page = browser.get("/")
    assert status == 200
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert headers["X-Frame-Options"] == "DENY"
    assert "<script" not in page and "http://" not in page and "https://" not in page
    status, headers, css = browser.get("/assets/page.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css") and "url(" not in css


def test_the_page_needs_a_log_in_and_a_csrf_token(server):
    browser = Browser(server.base)
    status, _h, page = browser.get("/")
    assert status == 200 and 'action="/login"' in page  # redirected to the log-in form
    status, _h, _page = browser.post("/login", {"csrf": "forged", "token": TOKENS["alice"][0]})
    assert status == 403
    status, _h, page = browser.get("/login")
    status, _h, page = browser.post("/login", {"csrf": csrf_of(page), "token": "wrong"})
    assert status == 401 and "unknown token" in page
    browser, csrf = logged_in(server, "alice")
    assert browser.post("/search", {"q": "annual fee", "mode": "search"})[0] == 403
    assert browser.post("/search", {"q": "annual fee", "mode": "search", "csrf": csrf + "x"})[0] == 403
    assert browser.post("/search", {"q": "annual fee", "mode": "search", "csrf": csrf})[0] == 200


def test_results_are_escaped_and_highlighted_in_passage_and_title(server):
    browser, csrf = logged_in(server, "carol")
    status, _h, page = browser.post("/search", {"q": "annual fee <script>alert(1)</script>", "mode": "search",
                                                "method": "bm25", "csrf": csrf})
    assert status == 200
    assert "<script>" not in page and html.escape("<script>alert(1)</script>") in page
    titles = re.findall(r'<h3 class="section-title">(.*?)</h3>', page)
    assert any("<mark>" in title for title in titles)  # a top hit can match in its title
    assert re.search(r'<p class="passage">[^<]*(<[^m/][^>]*>)?.*?<mark>', page)
    assert page.count('<details class="explain">') == len(titles)


def test_an_answer_comes_with_citations_and_confidence_and_a_refusal_with_the_closest_passages(server):
    browser, csrf = logged_in(server, "carol")
    status, _h, page = browser.post("/search", {"q": "What is the annual fee of the standard account?", "mode": "ask",
                                                "csrf": csrf})
    assert status == 200 and 'class="citation"' in page and 'id="confidence"' in page
    status, _h, page = browser.post("/search", {"q": "Who won the football match yesterday?", "mode": "ask",
                                                "csrf": csrf})
    assert 'id="refusal"' in page


def test_a_principal_without_the_group_never_sees_its_documents_on_the_page(server):
    browser, csrf = logged_in(server, "dave")
    for mode in ("search", "ask"):
        status, _h, page = browser.post("/search", {"q": "Zephyrion acquisition valuation Quorvex", "mode": mode,
                                                    "csrf": csrf})
        assert status == 200
        for hidden in ("research-zephyrion.md", "advisory-client.md", "shared-policy.md", "vn-thong-bao.md",
                       "zh-tongzhi.md", "4.2 billion"):
            assert hidden not in page


def test_the_ledger_page_is_for_ledger_readers_and_replays(server):
    alice, csrf = logged_in(server, "alice")
    alice.post("/search", {"q": "annual fee", "mode": "search", "csrf": csrf})
    status, headers, page = alice.get("/ledger")
    assert status == 403 and headers["Content-Type"].startswith("text/html") and "may not read the ledger" in page
    carol, csrf = logged_in(server, "carol")
    status, _h, page = carol.get("/ledger")
    assert status == 200 and 'data-ok="true"' in page and "alice" in page
    status, _h, page = carol.post("/ledger/replay", {"csrf": csrf})
    assert status == 200 and re.search(r"<p>(\d+) / \1 identical</p>", page)


def test_the_page_speaks_english_chinese_and_vietnamese(server):
    browser, csrf = logged_in(server, "carol")
    for language, label, query in (("zh", "提交", "年费"), ("vi", "Gửi", "phí thường niên"), ("en", "Submit", "fee")):
        status, _h, page = browser.get(f"/?lang={language}")
        assert status == 200 and f'lang="{language}"' in page and label in page
        status, _h, page = browser.post("/search", {"q": query, "mode": "search", "lang": language, "csrf": csrf})
        assert status == 200 and "<mark>" in page and label in page
