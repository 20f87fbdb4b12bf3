"""The compliance officers' page, rendered on the server as HTML.

No JavaScript at all: forms POST (with the session's CSRF token) and the
explain trees open with ``<details>``. Every value from the corpus, the query
or the ledger goes through ``html.escape``; matched terms are wrapped in
``<mark>`` after escaping. Labels exist in English, Chinese and Vietnamese.
"""

from __future__ import annotations

import html
from typing import Any, Iterable

from regrag.serve.search_api import highlighted

LABELS: dict[str, dict[str, str]] = {
    "en": {"title": "regrag search", "question": "Question or query", "ask": "Answer", "search": "Search",
           "method": "Method", "filters": "Filters (one per line, e.g. language=en)", "as_of": "As of (UTC time)",
           "submit": "Submit", "answer": "Answer", "short": "Short answer", "confidence": "Confidence",
           "why": "Why", "refused": "Not found in the corpus", "closest": "Closest passages",
           "passages": "Passages", "explain": "Explain the score", "ledger": "Ledger", "verify": "Verify",
           "replay": "Replay", "login": "Log in", "token": "Access token", "logout": "Log out",
           "coverage": "coverage", "agreement": "agreement", "missing": "missing", "none": "no passage matches",
           "entries": "entries", "principal": "principal", "generation": "generation", "language": "Language"},
    "zh": {"title": "regrag 检索", "question": "问题或查询", "ask": "回答", "search": "检索", "method": "方法",
           "filters": "筛选（每行一个，例如 language=zh）", "as_of": "截至（UTC 时间）", "submit": "提交",
           "answer": "答案", "short": "简短答案", "confidence": "置信度", "why": "依据", "refused": "语料库中未找到",
           "closest": "最接近的段落", "passages": "段落", "explain": "得分解释", "ledger": "审计日志",
           "verify": "校验", "replay": "重放", "login": "登录", "token": "访问令牌", "logout": "退出",
           "coverage": "覆盖率", "agreement": "一致性", "missing": "缺少", "none": "没有匹配的段落",
           "entries": "条记录", "principal": "用户", "generation": "版本", "language": "语言"},
    "vi": {"title": "Tìm kiếm regrag", "question": "Câu hỏi hoặc truy vấn", "ask": "Trả lời", "search": "Tìm kiếm",
           "method": "Phương pháp", "filters": "Bộ lọc (mỗi dòng một, ví dụ language=vi)",
           "as_of": "Tại thời điểm (giờ UTC)", "submit": "Gửi", "answer": "Câu trả lời", "short": "Trả lời ngắn",
           "confidence": "Độ tin cậy", "why": "Lý do", "refused": "Không tìm thấy trong kho văn bản",
           "closest": "Các đoạn gần nhất", "passages": "Các đoạn", "explain": "Giải thích điểm số",
           "ledger": "Sổ kiểm toán", "verify": "Kiểm tra", "replay": "Chạy lại", "login": "Đăng nhập",
           "token": "Mã truy cập", "logout": "Đăng xuất", "coverage": "độ phủ", "agreement": "độ đồng thuận",
           "missing": "thiếu", "none": "không có đoạn nào khớp", "entries": "mục", "principal": "người dùng",
           "generation": "thế hệ", "language": "Ngôn ngữ"},
}
LANGUAGES = tuple(sorted(LABELS))
METHODS = ("hybrid", "bm25", "tfidf")

CSS = b"""body{font-family:"Noto Sans","Noto Sans CJK SC",sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#111}
form.search label{display:block;margin-top:.6em}input[type=text],textarea{width:100%;box-sizing:border-box}
mark{background:#ffe066}section{border-top:1px solid #ccc;margin-top:1em;padding-top:.5em}
.hit{margin:1em 0}.meta{color:#555;font-size:.9em}.refused{color:#a00}table{border-collapse:collapse}
form.inline{display:inline}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}nav a{margin-right:1em}
"""


def e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


def page(language: str, body: str, principal: str | None = None, csrf: str = "") -> bytes:
    """A whole document around ``body``."""
    text = labels(language)
    nav = [f'<a href="/?lang={e(language)}">{e(text["search"])}</a>',
           f'<a href="/ledger?lang={e(language)}">{e(text["ledger"])}</a>']
    nav += [f'<a href="/?lang={code}" hreflang="{code}">{code}</a>' for code in LANGUAGES]
    if principal is not None:
        nav.append(f'<span class="meta">{e(text["principal"])}: <b id="principal">{e(principal)}</b></span>')
        if csrf:
            nav.append(f'<form method="post" action="/logout" class="inline"><input type="hidden" '
                       f'name="csrf" value="{e(csrf)}"><button type="submit">{e(text["logout"])}</button></form>')
    return ("<!DOCTYPE html>\n"
            f'<html lang="{e(language)}"><head><meta charset="utf-8"><title>{e(text["title"])}</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="stylesheet" href="/assets/page.css"></head><body>'
            f'<nav>{" ".join(nav)}</nav><h1>{e(text["title"])}</h1>{body}</body></html>\n').encode("utf-8")


def login_form(language: str, csrf: str, problem: str = "") -> str:
    text = labels(language)
    note = f'<p class="refused" id="problem">{e(problem)}</p>' if problem else ""
    return (f'{note}<form method="post" action="/login" class="search"><input type="hidden" name="csrf" '
            f'value="{e(csrf)}"><input type="hidden" name="lang" value="{e(language)}">'
            f'<label for="token">{e(text["token"])}</label><input type="password" id="token" name="token" '
            f'autocomplete="off"><button type="submit" id="login">{e(text["login"])}</button></form>')


def search_form(language: str, csrf: str, values: dict[str, str]) -> str:
    text = labels(language)
    mode = values.get("mode", "ask")
    method = values.get("method", "hybrid")
    modes = "".join(f'<label><input type="radio" name="mode" value="{m}"{" checked" if m == mode else ""}> '
                    f'{e(text[m])}</label>' for m in ("ask", "search"))
    options = "".join(f'<option value="{m}"{" selected" if m == method else ""}>{m}</option>' for m in METHODS)
    return (f'<form method="post" action="/search" class="search" id="search-form">'
            f'<input type="hidden" name="csrf" value="{e(csrf)}"><input type="hidden" name="lang" value="{e(language)}">'
            f'<label for="q">{e(text["question"])}</label>'
            f'<input type="text" id="q" name="q" value="{e(values.get("q", ""))}" maxlength="10000">'
            f'<div>{modes}</div><label for="method">{e(text["method"])}</label>'
            f'<select id="method" name="method">{options}</select>'
            f'<label for="filters">{e(text["filters"])}</label>'
            f'<textarea id="filters" name="filters" rows="2">{e(values.get("filters", ""))}</textarea>'
            f'<label for="as_of">{e(text["as_of"])}</label>'
            f'<input type="text" id="as_of" name="as_of" value="{e(values.get("as_of", ""))}" '
            f'placeholder="2026-11-30T10:00:00Z"><p><button type="submit" id="submit">{e(text["submit"])}</button></p>'
            '</form>')


def _marked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    return highlighted(text, list(spans)).replace("<em>", "<mark>").replace("</em>", "</mark>")


def hit_block(view, hit, explanation, language: str) -> str:
    """One hit: rank, score, citation, highlighted title and passage, explain tree."""
    text = labels(language)
    start, end = hit.passage_span
    body = view.index.passage_text(hit.passage_id)
    passage = _marked(body, [(a - start, b - start) for m in hit.matches for a, b in m.offsets])
    title = _marked(hit.section_title, [span for m in hit.matches for span in m.title_offsets])
    return (f'<div class="hit" id="hit-{hit.rank}" data-passage="{e(hit.passage_id)}" '
            f'data-document="{e(hit.document_id)}"><h3 class="section-title">{hit.rank}. {title}</h3>'
            f'<p class="meta">{e(hit.document_id)} · {e(hit.passage_id)} · [{start}, {end}) · '
            f'{e(hit.method)} {hit.score!r}</p><p class="passage">{passage}</p>'
            f'<details class="explain"><summary>{e(text["explain"])}</summary>{explain_tree(explanation)}</details>'
            '</div>')


def explain_tree(explanation) -> str:
    """The per-term BM25 and TF-IDF rows whose sums are the scores."""
    bm25, tfidf = explanation.bm25, explanation.tfidf
    rows = "".join(f"<tr><td>{e(t.term)}</td><td>{t.idf!r}</td><td>{t.body_frequency}</td>"
                   f"<td>{t.title_frequency}</td><td>{t.contribution!r}</td></tr>" for t in bm25.terms)
    tf_rows = "".join(f"<tr><td>{e(t.term)}</td><td>{t.idf!r}</td><td>{t.query_weight!r}</td>"
                      f"<td>{t.passage_weight!r}</td><td>{t.product!r}</td></tr>" for t in tfidf.terms)
    return (f'<p>BM25 = {bm25.score!r} (k1 {bm25.k1!r}, b {bm25.b!r}, title ×{bm25.title_weight!r}, '
            f'length {bm25.weighted_length!r} / {bm25.average_length!r})</p>'
            '<table class="bm25"><tr><th>term</th><th>idf</th><th>tf body</th><th>tf title</th>'
            f'<th>contribution</th></tr>{rows}</table>'
            f'<p>TF-IDF cosine = {tfidf.score!r} (dot {tfidf.dot!r})</p>'
            '<table class="tfidf"><tr><th>term</th><th>idf</th><th>query</th><th>passage</th>'
            f'<th>product</th></tr>{tf_rows}</table>')


def answer_block(answer, language: str) -> str:
    """The answer: short answer first, each sentence cited; or the refusal."""
    text = labels(language)
    confidence = answer.confidence
    why = (f'{e(text["coverage"])} {confidence.coverage:.2f} · {e(text["agreement"])} {confidence.agreement:.2f}'
           + (f' · {e(text["missing"])}: {e(", ".join(confidence.missing_words + confidence.missing_specifics))}'
              if confidence.missing_words or confidence.missing_specifics else ""))
    summary = (f'<p id="confidence">{e(text["confidence"])}: <b>{confidence.value:.2f}</b> '
               f'(threshold {confidence.threshold:.2f}) — {e(text["why"])}: {why}</p>')
    if not answer.found:
        return (f'<section id="answer"><h2 class="refused" id="refusal">{e(text["refused"])}</h2>{summary}'
                f'<p>{e(text["closest"])}:</p></section>')
    short = getattr(answer, "short_answer", None)
    short_html = ""
    if short:
        short_text = getattr(short, "text", short)
        short_html = f'<p id="short-answer"><b>{e(text["short"])}:</b> {e(short_text)}</p>'
        if getattr(short, "working", ""):  # a rate with bounds applied to the question's amount
            short_html += f'<p id="working">{e(short.working)}</p>'
    sentences = "".join(
        f'<li class="sentence">{e(s.text)} <a class="citation" href="#hit-{s.hit_rank}">[{e(s.document_id)} · '
        f'{e(s.section_title)} · {s.span[0]}–{s.span[1]}]</a></li>' for s in answer.sentences)
    return f'<section id="answer"><h2>{e(text["answer"])}</h2>{short_html}<ol>{sentences}</ol>{summary}</section>'


def ledger_block(summary: dict[str, Any], language: str, csrf: str, replay: dict[str, Any] | None) -> str:
    text = labels(language)
    status = "ok" if summary["verify"]["ok"] else "BROKEN"
    rows = "".join(
        f'<tr><td>{entry["sequence"]}</td><td>{e(entry["timestamp"])}</td>'
        f'<td>{e(entry["record"].get("principal"))}</td><td>{e(entry["record"].get("command"))}</td>'
        f'<td>{e(entry["record"].get("query", entry["record"].get("path", "")))}</td>'
        f'<td>{e(entry["record"].get("status"))}</td><td><code>{e(entry["hash"][:16])}</code></td></tr>'
        for entry in summary["entries"])
    replayed = ""
    if replay is not None:
        lines = "".join(f"<li>{e(line)}</li>" for line in replay["lines"])
        replayed = (f'<section id="replay"><p>{replay["identical"]} / {replay["replayed"]} identical</p>'
                    f'<ul>{lines}</ul></section>')
    return (f'<section id="ledger"><h2>{e(text["ledger"])}</h2>'
            f'<p id="verify-status" data-ok="{str(summary["verify"]["ok"]).lower()}">{e(text["verify"])}: '
            f'{status} — {e(summary["verify"]["report"])}</p>'
            f'<form method="post" action="/ledger/replay"><input type="hidden" name="csrf" value="{e(csrf)}">'
            f'<input type="hidden" name="lang" value="{e(language)}">'
            f'<button type="submit" id="replay-button">{e(text["replay"])}</button></form>{replayed}'
            f'<table><tr><th>#</th><th>time</th><th>{e(text["principal"])}</th><th></th><th></th><th></th>'
            f'<th>hash</th></tr>{rows}</table></section>')
