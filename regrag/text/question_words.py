"""Question and function words: what a question says that is not its content.

Shared by the entity rules (a name made only of these words is no name,
``regrag.index.entity_rules``) and the answer confidence (these words are
not content terms, ``regrag.answer.confidence``); they live here, below both.
"""

QUESTION_WORDS = {
    "en": (
        "what which who whom whose when where why how does do did can could would should may might must "
        "much many any some my i me you your we our us about please tell there here is are was were be been "
        "has have had get gets per them those someone somebody anyone anybody something anything everyone "
        "everything still just also ever very yet"
    ),
    "vi": (
        "gì nào bao nhiêu không có là của và được cho những các với trong thì mà sao vậy hả ạ nhỉ khi đâu ai "
        "như thế hay hoặc này đó theo về bị đã đang sẽ một vào ở tại mình nhau cũng vẫn đều rồi nữa"
    ),
}
QUESTION_CHARACTERS = frozenset("的是了吗呢吧啊么什哪谁怎如何请问有在和与及或为对要会能可以该这那其之于被把给从到多少几个")
# Chinese function words of two characters: pronouns, conjunctions, adverbs and
# "a kind of / some"; a CJK bigram of the question overlapping one (``虽然``, and
# the junction ``然南`` of ``虽然南加州``) is no content term. A question's word
# that only frames it ("they", "although", "usually") is not evidence to find.
CJK_FUNCTION_WORDS = tuple(
    "我们 你们 他们 她们 它们 人们 大家 自己 虽然 但是 可是 因为 所以 而且 并且 如果 然后 或者 还是 以及 因此 "
    "首先 其次 一般 通常 已经 曾经 仍然 一直 总是 正在 大约 大概 一种 一些 一位 一名 通过 方面".split())
