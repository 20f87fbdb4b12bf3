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
