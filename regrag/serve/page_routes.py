"""The page's routes: log in and out, the search form and its results, the
ledger browser, and the style sheet (the one asset; nothing external).

A page session is a random cookie (``HttpOnly``, ``SameSite=Strict``)
naming the principal whose token was given at ``/login`` (without
``--auth``, the anonymous principal, started at the first visit). Every POST
carries the session's CSRF token (403 without it); the log-in form carries a
one-off token matched against its own cookie.
"""

from __future__ import annotations

import hmac
import secrets
from typing import TYPE_CHECKING

from regrag.errors import InputError
from regrag.serve import page_html, search_api
from regrag.serve.auth import ANONYMOUS
from regrag.serve.responses import HttpError, Response

if TYPE_CHECKING:
    from regrag.serve.app import Request

CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
       "base-uri 'none'")
SESSION_COOKIE = "regrag_session"
LOGIN_COOKIE = "regrag_login"


def _html(status: int, body: bytes, cookies: list[str] = (), location: str | None = None) -> "Response":
    headers = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}
    if cookies:
        headers["Set-Cookie"] = cookies[0]  # one cookie per response is all the page needs
    if location is not None:
        headers["Location"] = location
    return Response(status, body, "text/html; charset=utf-8", headers)


def _cookie(name: str, value: str, max_age: int | None = None) -> str:
    age = f"; Max-Age={max_age}" if max_age is not None else ""
    return f"{name}={value}; Path=/; HttpOnly; SameSite=Strict{age}"


def _language(request: "Request", form: dict[str, str] | None = None) -> str:
    chosen = (form or {}).get("lang") or request.query.get("lang")
    if chosen in page_html.LABELS:
        return chosen
    accepted = request.handler.headers.get("Accept-Language", "").lower()
    for code in (part.split(";")[0].strip()[:2] for part in accepted.split(",")):
        if code in page_html.LABELS:
            return code
    return "en"


def _session(request: "Request") -> tuple[str, str, list[str]]:
    """The session id and CSRF token (a new anonymous session without --auth)."""
    sessions = request.server.sessions
    session = request.cookies.get(SESSION_COOKIE, "")
    csrf = sessions.csrf(session)
    if csrf is not None:
        return session, csrf, []
    session, csrf = sessions.start(ANONYMOUS)
    return session, csrf, [_cookie(SESSION_COOKIE, session)]


def _checked_form(request: "Request") -> tuple[dict[str, str], str, str]:

    form = request.form()
    session, csrf, _new = _session(request)
    if not request.server.sessions.check_csrf(session, form.get("csrf", "")):
        raise HttpError(403, "csrf", "the form's CSRF token is missing or wrong: reload the page")
    return form, session, csrf


def error_page(status: int, reason: str, headers: dict[str, str]) -> "Response":
    """A page route's error as a page (the API's errors stay JSON)."""
    body = f'<p class="refused" id="problem">{status}: {page_html.e(reason)}</p><p><a href="/">back</a></p>'
    response = _html(status, page_html.page("en", body))
    response.headers.update(headers)
    return response


def home(request: "Request") -> "Response":
    language = _language(request)
    _session_id, csrf, cookies = _session(request)
    body = page_html.search_form(language, csrf, {})
    return _html(200, page_html.page(language, body, request.principal.name, csrf), cookies)


def search(request: "Request") -> "Response":
    from regrag.serve.api_routes import run_ask, run_search

    form, _session_id, csrf = _checked_form(request)
    language = _language(request, form)
    values = {k: form.get(k, "") for k in ("q", "mode", "method", "filters", "as_of")}
    filters = [line.strip() for line in values["filters"].splitlines() if line.strip()]
    common = {"method": values["method"] or "hybrid", "filters": filters}
    if values["as_of"].strip():
        common["as_of"] = values["as_of"].strip()
    status, parts = 200, [page_html.search_form(language, csrf, values)]
    try:
        if values["mode"] == "search":
            parsed = search_api.parse_search(dict(common, query={"match": {"text": values["q"]}}, size=10))
            view, hits = run_search(request, parsed)
            answer = None
        else:
            view, answer = run_ask(request, search_api.parse_ask(dict(common, question=values["q"])))
            hits = list(answer.hits)
            parts.append(page_html.answer_block(answer, language))
        text = page_html.labels(language)
        if answer is None or answer.found:
            parts.append(f'<h2>{page_html.e(text["passages"])}</h2>')
        if not hits:
            parts.append(f'<p id="no-hits">{page_html.e(text["none"])}</p>')
        parts.extend(page_html.hit_block(view, hit, view.explain(values["q"], hit.passage_id), language)
                     for hit in hits)
    except InputError as error:
        status = 400
        parts.append(f'<p class="refused" id="problem">{page_html.e(error)}</p>')
    return _html(status, page_html.page(language, "".join(parts), request.principal.name, csrf))


def login_page(request: "Request", problem: str = "", status: int = 200) -> "Response":
    language = _language(request)
    token = secrets.token_urlsafe(24)
    body = page_html.login_form(language, token, problem)
    return _html(status, page_html.page(language, body), [_cookie(LOGIN_COOKIE, token, 600)])


def login(request: "Request") -> "Response":
    form = request.form()
    expected = request.cookies.get(LOGIN_COOKIE, "")
    if not expected or not hmac.compare_digest(expected.encode(), form.get("csrf", "").encode()):
        raise HttpError(403, "csrf", "the log-in form's CSRF token is missing or wrong: reload the page")
    tokens = request.server.config.tokens
    principal = tokens.principal_for(form.get("token", "")) if tokens is not None else ANONYMOUS
    if principal is None:
        return login_page(request, "unknown token", 401)
    request.ledger_entry = {"command": "login", "method": "POST", "path": "/login"}
    request.principal = principal
    session, _csrf = request.server.sessions.start(principal)
    language = form.get("lang") if form.get("lang") in page_html.LABELS else "en"
    return _html(303, b"", [_cookie(SESSION_COOKIE, session)], f"/?lang={language}")


def logout(request: "Request") -> "Response":
    _form, session, _csrf = _checked_form(request)
    request.server.sessions.end(session)
    return _html(303, b"", [_cookie(SESSION_COOKIE, "", 0)], "/login" if request.server.config.tokens else "/")


def ledger(request: "Request", replay: bool = False) -> "Response":
    from regrag.serve.ledger_view import ledger_summary, replay_summary

    form = None
    if replay:
        form, _session_id, csrf = _checked_form(request)
    else:
        _session_id, csrf, _new = _session(request)
    language = _language(request, form)
    summary = ledger_summary(request, request.query.get("from"), request.query.get("size"))
    replayed = replay_summary(request) if replay else None
    body = page_html.ledger_block(summary, language, csrf, replayed)
    return _html(200, page_html.page(language, body, request.principal.name, csrf))


def style(request: "Request") -> "Response":
    return Response(200, page_html.CSS, "text/css; charset=utf-8", {"Cache-Control": "max-age=3600"})


def no_icon(request: "Request") -> "Response":
    return Response(204, b"", "image/x-icon", {"Cache-Control": "max-age=86400"})


ROUTES = {
    ("GET", "/favicon.ico"): no_icon,
    ("GET", "/"): home,
    ("POST", "/search"): search,
    ("GET", "/login"): login_page,
    ("POST", "/login"): login,
    ("POST", "/logout"): logout,
    ("GET", "/ledger"): ledger,
    ("POST", "/ledger/replay"): lambda request: ledger(request, replay=True),
    ("GET", "/assets/page.css"): style,
}
