"""Session 39's rules (answer rules regrag-answer/15): a comparison's reference,
Vietnamese attributes held by syllable pairs, margins as percentages, the
head noun of an English what/which question, definitions, a Chinese modal's
verb, and the opposites notes/coins, gold/platinum and 金卡/白金卡. Each
test pins an answer of a sample corpus that was confidently wrong before."""

from __future__ import annotations

import pytest

from regrag.answer.comparisons import reference_terms
from regrag.answer.definitions import defines, defines_other
from regrag.answer.head_noun import head_span
from regrag.answer.opposites import contained_opposites, opposed_terms
from regrag.answer.question import read_question
from regrag.answer.specifics import missing_predicate
from regrag.corpus.extract import pdf
from regrag.text.analyzer import Analyzer


PMF = "Mức giá thỏa thuận bình quân là 64.000 đồng/cổ phiếu, cao hơn 3,2% so với giá đóng cửa của PMF."


def test_a_figure_before_so_voi_is_not_the_reference(news):
    asked = ("cổ", "cửa", "giá", "phiếu", "đóng")
    # the closing price is only what the negotiated price is compared with
    assert reference_terms(news, "vi", asked, "figure", PMF) == ("cửa", "đóng")
    # not for an untyped question, nor when a figure of the type follows the marker
    assert reference_terms(news, "vi", asked, "other", PMF) == ()
    later = "Giá đóng cửa là 38.200 đồng/cổ phiếu, cao hơn so với giá chào bán 25.000 đồng/cổ phiếu."
    assert reference_terms(news, "vi", ("bán", "chào", "giá"), "amount", later) == ()
    # the words before the marker outweigh those after it: the figure is what is asked
    assert reference_terms(news, "vi", ("cổ", "giá", "phiếu", "thỏa", "thuận"), "figure", PMF) == ()


def test_the_closing_price_given_only_as_a_reference_is_refused(news):
    answer = news.ask("Giá đóng cửa của cổ phiếu PMF trong phiên 15/5/2026 là bao nhiêu?")
    # it was answered "64.000 đồng/cổ phiếu" (the negotiated price) at 0.80; then, with the
    # comparison sentence last, "24 triệu" from a sentence whose "giá" is the "giá" of "giá trị"
    assert not answer.found
    assert answer.confidence.missing_attribute == ("Giá", "đóng", "cửa")
    assert answer.confidence.value == pytest.approx(0.3383012184987695)  # 0.3375 before session 40's evidence choice


def test_a_margin_is_a_percentage(news):
    assert read_question("Biên lợi nhuận gộp quý 2/2026 của HXT là bao nhiêu?").expected_type == "percentage"
    assert read_question("Tỷ suất cổ tức của QMS là bao nhiêu?").expected_type == "percentage"
    assert read_question("Lợi nhuận gộp quý 2/2026 của HXT là bao nhiêu?").expected_type == "amount"
    answer = news.ask("Biên lợi nhuận gộp quý 2/2026 của HXT là bao nhiêu?")
    assert answer.found and answer.short_answer.text == "8,2%"  # it was "8.740 tỷ đồng", the revenue


def test_head_span():
    def head(question):
        span = head_span(question)
        return None if span is None else question[span[0]:span[1]]

    assert head("Which form number must be used to report a suspicious transaction?") == "number"
    assert head("What customer due diligence threshold applies to occasional transactions?") == "threshold"
    assert head("What fee does the CBV charge?") == "fee"
    assert head("What percentage of the votes is needed?") is None  # a preposition: not a bare noun phrase
    assert head("What is the fee?") is None
    assert head("What does the VSMC require?") is None


def test_a_sentence_without_the_head_noun(regulations):
    answer = regulations.ask("Which form number must be used to report a suspicious transaction to the "
                             "Financial Intelligence Unit?")
    # it was answered at 0.87 from "… within 3 business days of forming the suspicion": "forming" gave "form"
    assert not answer.found and answer.confidence.missing_head == ("number",)
    # with the PDF regulation indexed (pdfminer.six) or without it (the core CI run): other corpus statistics
    assert answer.confidence.value == pytest.approx(0.43351669008581406 if pdf.available() else 0.4289784419362921)
    haircut = regulations.ask("What haircut applies to Level 2A assets in the stock of high-quality liquid assets?")
    # the sentence naming the haircut now leads (it was "Level 2B assets may not exceed 15% …")
    assert haircut.short_answer.text == "15%" and "haircut of 15%" in haircut.sentences[0].text


def test_defined_terms(regulations):
    pdmr = ('"Person discharging managerial responsibilities" (PDMR) means a member of the management or '
            'supervisory body of an issuer.')
    senior = '"Senior manager" means a member of the management body.'
    asked = ("manag", "senior")
    assert defines_other(regulations, "en", asked, "definition", pdmr) == ("Person discharging managerial responsibilities",)
    assert defines_other(regulations, "en", asked, "definition", senior) == ()
    assert defines(regulations, "en", asked, senior) and not defines(regulations, "en", asked, pdmr)
    assert defines_other(regulations, "en", asked, "other", pdmr) == ()  # only definition questions


@pytest.mark.parametrize("question, document, start", [
    # it was answered with the PDMR definition of the market-abuse rules, at 1.0
    ("How does the VSMC define a senior manager?", "vsmc-outsourcing-and-cloud-services.md", "means a member of the management body"),
    # it was refused at 0.22 ("responsible for the breach may be fined …")
    ("How does the VBSA define a senior manager?", "vbsa-customer-due-diligence-and-aml-controls.md", "means an officer or employee"),
])
def test_a_definition_question_cites_the_definition(regulations, question, document, start):
    answer = regulations.ask(question)
    assert answer.found and answer.short_answer.document_id == document
    assert answer.short_answer.text.startswith(start)
    assert answer.sentences[0].text.startswith('"Senior manager" means')


def test_a_chinese_modal_verb_must_be_covered(manuals):
    analyzer = Analyzer("auto")
    question = "轻盈贷放款后可以修改每月还款日吗？"
    assert missing_predicate(analyzer, question, "zh", ("修改", "还款"), ("还款",)) == ("修改",)
    assert missing_predicate(analyzer, question, "zh", ("修改", "还款"), ("修改", "还款")) == ()
    answer = manuals.ask(question)  # it was answered "次月的对应日" at 0.78
    assert not answer.found and answer.confidence.missing_predicate == ("修改",)


def test_notes_coins_and_card_tiers(regulations, manuals):
    analyzer = Analyzer("auto")
    assert opposed_terms(analyzer, "en", ("coin",), {"banknot", "fee"}) == ("coin~banknotes",)
    assert opposed_terms(analyzer, "en", ("gold",), {"platinum", "card"}) == ("gold~platinum",)
    assert contained_opposites(analyzer, "zh", frozenset({"金卡", "年费"}), {"白金", "金卡", "年费"}) == ("金卡~白金卡",)
    # the question names the platinum card itself: nothing
    assert contained_opposites(analyzer, "zh", frozenset({"白金", "金卡"}), {"白金", "金卡"}) == ()
    coins = regulations.ask("What fee does the CBV charge for exchanging damaged coins?")  # was VLR 15, for banknotes
    assert not coins.found and coins.confidence.opposites == ("coin~banknotes",)
    gold = manuals.ask("澜汀银行金卡的年费是多少？")  # was 人民币880元, the platinum card's fee, at 1.0
    assert not gold.found and gold.confidence.opposites == ("金卡~白金卡",)
    assert gold.confidence.value == pytest.approx(0.5)


def test_the_evidence_passage_below_the_support_cut_before_another_document(regulations):
    # the evidence passage's sentence giving a duration holds too few question terms for the
    # support cut; the answer was "10 business days" from the outsourcing rules, refused at 0.39
    answer = regulations.ask("Within how many business days must a manager notify a transaction in the issuer's shares?")
    assert answer.found and answer.confidence.outside_evidence is False
    assert answer.short_answer.document_id == "vsmc-market-abuse-and-insider-dealing.md"
    # still not the 3 business days of the notification itself: the issuer's 2 days to publish
    # hold as many question terms (left as it is; docs/evaluation.md, session 39)
    assert answer.short_answer.text == "2 business days"


def test_a_count_followed_by_what_the_question_counts(news):
    from regrag.answer.units import counted_words

    question = "Có bao nhiêu mã giảm sàn trên HOSE trong phiên giảm điểm mạnh nhất kể từ đầu năm 2026?"
    assert counted_words(question) == ("giảm", "sàn")
    answer = news.ask(question)
    # "Toàn sàn HOSE có 312 mã giảm giá, trong đó 41 mã giảm sàn, …": it was "312 mã"
    assert answer.found and answer.short_answer.text == "41 mã"


def test_a_number_written_with_a_scale_word(manuals):
    from regrag.answer.specifics import missing_numbers, plain_integer, scaled_numbers

    assert scaled_numbers("低于5000万元时") == {"5000": "50000000"}
    # a decimal is not read, neither whole nor as its last digits
    assert scaled_numbers("50 triệu cổ phiếu, 3 million, 1,5 tỷ, 2.5 billion") == {"50": "50000000", "3": "3000000"}
    assert (plain_integer("50,000,000"), plain_integer("50.000.000"), plain_integer("0042")) == ("50000000", "50000000", "42")
    assert plain_integer("1,5") is None and plain_integer("19/3/2026") is None
    assert missing_numbers(("5000",), {"50,000,000"}, {"5000": "50000000"}) == ()
    assert missing_numbers(("5000",), {"50,000,000"}) == ("5000",)
    assert missing_numbers(("5000",), {"5,000,000"}, {"5000": "50000000"}) == ("5000",)
    answer = manuals.ask("稳禧180资产净值连续多少个工作日低于5000万元时管理人可以提前终止产品？")
    # "连续20个工作日产品资产净值低于人民币50,000,000元的": it was refused, 5000 missing
    assert answer.found and answer.short_answer.text == "20个工作日" and answer.confidence.missing_specifics == ()


def test_paraphrases_of_the_lexicon(regulations):
    deal = regulations.ask("How big must a deal by a politically exposed client be before compliance checks it first?")
    assert deal.found and deal.short_answer.text == "VLR 50,000"  # it was refused at 0.51
    assert deal.confidence.synonyms == ("check~review", "client~customer")
    closed = regulations.ask("Can a director trade the company's stock just before the annual results come out?")
    assert closed.found and "results~report" in closed.confidence.synonyms  # it was refused at 0.52
    assert closed.short_answer.document_id == "vsmc-market-abuse-and-insider-dealing.md"


@pytest.mark.parametrize("question, text, kind, value", [
    ("星耀白金卡账单分期12期每期手续费率是多少？",
     "分期手续费按月收取，3期、6期、12期和24期的每期手续费率分别为0.75%、0.70%、0.66%和0.64%。", "percentage", "0.66%"),
    ("What is the fee for 6 months?", "The fees for 3, 6 and 12 months are 0.75%, 0.70% and 0.66% respectively.",
     "percentage", "0.70%"),
    ("Phí kỳ hạn 6 tháng là bao nhiêu phần trăm?", "Phí cho kỳ hạn 3 tháng, 6 tháng và 12 tháng lần lượt là 1%, 2% và 3%.",
     "percentage", "2%"),
    ("康悦重疾的年费是多少？", "星耀白金卡和康悦重疾的年费分别为人民币880元和人民币260元。", "amount", "人民币260元"),
    # no key named, or two: nothing
    ("What is the fee?", "The fees for 3, 6 and 12 months are 0.75%, 0.70% and 0.66% respectively.", "percentage", None),
    ("3期和6期的费率是多少？", "3期和6期的费率分别为0.75%和0.70%。", "percentage", None),
    # as many keys as values, or nothing
    ("12期的费率是多少？", "3期、6期、12期的费率分别为0.75%和0.70%。", "percentage", None),
])
def test_respective_span(question, text, kind, value):
    from regrag.answer.answer_types import typed_spans
    from regrag.answer.respectively import respective_span

    span = respective_span(question, text, sorted(typed_spans(text, kind)))
    assert (None if span is None else text[span[0]:span[1]]) == value


@pytest.mark.parametrize("question, short", [
    ("星耀白金卡账单分期12期每期手续费率是多少？", "0.66%"),  # it was 0.75%, the 3期 rate
    ("星耀白金卡账单分期24期每期手续费率是多少？", "0.64%"),
])
def test_rates_answered_respectively(manuals, question, short):
    answer = manuals.ask(question)
    assert answer.found and answer.short_answer.text == short


def test_the_clause_naming_the_asked_level(regulations):
    answer = regulations.ask("What is the maximum share of Level 2B assets in the total HQLA stock?")
    assert answer.found and answer.short_answer.text == "15%"  # it was 40%, the cap on all Level 2 assets


def test_a_typed_span_bordered_like_the_question_word(manuals, news):
    answer = manuals.ask("稳禧180收益超过业绩比较基准上限的部分，管理人提取多少业绩报酬？")
    # "当产品年化收益率超过业绩比较基准上限3.35%时，管理人对超出部分提取20%作为业绩报酬": it was 3.35%
    assert answer.found and answer.short_answer.text == "20%"
    rise = news.ask("Cổ phiếu Khoan và Dịch vụ Biển Đông tăng bao nhiêu trong 5 phiên gần nhất?")
    # "cổ phiếu BDK tăng 12,3% lên 33.900 đồng/cổ phiếu": the rise, not the price it rose to
    assert rise.found and rise.short_answer.text == "12,3%"
    # "có" (a function word) before "bao nhiêu" anchors nothing: the count followed by what is counted wins
    floor = news.ask("Có bao nhiêu mã giảm sàn trên HOSE trong phiên giảm điểm mạnh nhất kể từ đầu năm 2026?")
    assert floor.short_answer.text == "41 mã"


@pytest.mark.parametrize("question, kind, short", [
    ("星耀白金卡 积分有效期", "duration", "36个月"),  # it was "每消费人民币20元累积1分"
    ("轻盈贷 借款冷静期", "duration", "7天"),
    ("安途车险 报案电话", "figure", "400-935-8106"),  # it was "保险人应在48小时内拨打"
    ("RiverPost hotline", "figure", "400-730-9624"),
])
def test_keyword_queries_naming_what_they_want(manuals, question, kind, short):
    assert read_question(question).expected_type == kind
    answer = manuals.ask(question)
    assert answer.found and answer.short_answer.text == short
