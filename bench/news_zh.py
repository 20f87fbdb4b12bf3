"""Synthetic Chinese: common CJK characters with Zipf-like frequencies, no spaces.

Everything here is invented for the benchmark: no sentence is copied from
any text. The character ranks start with the characters of ``COMMON_WORDS``
(everyday function words and market-news words, 的 在 公司 股票 净利润...)
and of ``COMMON_CHARACTERS`` (a few hundred frequent characters, roughly in
frequency order), then further characters of the CJK Unified Ideographs
block (U+4E00-U+9FA5) in a seeded random order, up to ``CHARACTER_COUNT``.
Words are one to four characters (weights ``WORD_CHARACTER_WEIGHTS``) drawn
from a Zipf distribution over the character ranks (``news_corpus.PIECE_EXPONENT``);
shorter words take the more frequent word ranks. Text is words written
together, clauses ended by ``，`` and sentences by ``。``.
"""

from __future__ import annotations

import random

CHARACTER_COUNT = 4_000
WORD_CHARACTER_WEIGHTS = ((1, 30), (2, 56), (3, 9), (4, 5))
CJK_FIRST, CJK_LAST = 0x4E00, 0x9FA5

COMMON_WORDS = (
    "的 在 和 是 了 有 为 对 与 将 等 也 上 中 其 以 及 已 被 由 从 到 并 而 但 更 较 约 至 按 "
    "公司 市场 股票 股价 投资 投资者 增长 同比 环比 上涨 下跌 收盘 开盘 指数 板块 资金 净利润 营业收入 季度 "
    "银行 证券 基金 发布 公告 股东 交易 今年 去年 经济 企业 行业 业务 表示 认为 预计 计划 项目 产品 "
    "销售 需求 价格 成本 利润 收入 资产 负债 融资 发行 债券 分红 上市 成交 成交额 成交量 涨幅 跌幅 "
    "北向资金 外资 机构 分析师 报告 数据 显示 期间 同期 全年 上半年 下半年 一季度 二季度 三季度 四季度 "
    "董事会 股东大会 监管 政策 规定 央行 利率 信贷 房地产 钢铁 能源 电力 医药 消费 零售 科技 半导体 "
    "新能源 汽车 制造 出口 进口 订单 产能 扩张 风险 机会 短期 长期 趋势 走势 反弹 回调 震荡 持续 连续"
)
COMMON_CHARACTERS = (
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里"
    "用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实"
    "日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政"
    "美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员"
    "解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件"
    "计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象"
    "完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改"
    "收根干造言联持组每济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远叫台单影具罗字爱击流备兵连调"
    "深商算质团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器容照须九增研写称企"
    "八功吗包片史委乎查轻易早曾除农找装广显吧阿李标谈吃图念六引历首医局突专费号尽另周较注语仅考落青随选列"
)


def characters(rng: random.Random) -> list[str]:
    """Characters by frequency rank: the common ones first, then seeded ideographs."""
    ranked: dict[str, None] = {}
    for character in "".join(COMMON_WORDS.split()) + COMMON_CHARACTERS:
        ranked.setdefault(character, None)
    block = [chr(code) for code in range(CJK_FIRST, CJK_LAST + 1)]
    rng.shuffle(block)
    for character in block:
        if len(ranked) >= CHARACTER_COUNT:
            break
        ranked.setdefault(character, None)
    return list(ranked)


def common_words() -> list[str]:
    return COMMON_WORDS.split()
