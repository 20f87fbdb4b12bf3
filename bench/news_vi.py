"""Synthetic Vietnamese: syllables spelt by Vietnamese orthography, with tone marks.

Everything here is invented for the benchmark: no sentence is copied from
any text. A syllable is an onset, a rhyme (vowel nucleus and optional final)
and one of the six tones, spelt by the usual rules (``k``/``gh``/``ngh``
before ``e ê i y``, stop finals ``c ch p t`` only with the sắc or nặng tone,
the tone mark on the vowel that carries it, old style: ``hòa``, ``thủy``),
composed to NFC. Candidate syllables are drawn by weighted onset, rhyme and
tone until ``SYLLABLE_COUNT`` distinct ones exist; their order of first
appearance is their frequency rank (more probable components come first),
after the syllables of ``COMMON_WORDS``: a few hundred everyday and
market-news words (function words, "cổ phiếu", "lợi nhuận"...) that take
the most frequent word ranks, as they do in real news.

Words are one to four syllables (weights ``WORD_SYLLABLE_WEIGHTS``), their
syllables drawn from a Zipf distribution over the syllable ranks
(``news_corpus.PIECE_EXPONENT``); shorter words take the more frequent word ranks.
"""

from __future__ import annotations

import random
import unicodedata

SYLLABLE_COUNT = 6_500
WORD_SYLLABLE_WEIGHTS = ((1, 22), (2, 66), (3, 9), (4, 3))

# (onset, weight); "c", "g" and "ng" are respelt before front vowels.
ONSETS = (("", 7), ("b", 4), ("c", 6), ("ch", 4), ("d", 4), ("đ", 6), ("g", 2), ("gi", 3), ("h", 6),
          ("kh", 3), ("l", 5), ("m", 5), ("n", 6), ("ng", 4), ("nh", 5), ("p", 0.3), ("ph", 4), ("qu", 2),
          ("r", 2), ("s", 3), ("t", 7), ("th", 7), ("tr", 5), ("v", 4), ("x", 2))
# (nucleus, finals it takes, weight)
NUCLEI = (("a", ("", "i", "o", "u", "y", "n", "nh", "ng", "t", "c", "ch", "m", "p"), 10),
          ("ă", ("n", "ng", "t", "c", "m", "p"), 3), ("â", ("u", "y", "n", "ng", "t", "c", "m", "p"), 5),
          ("e", ("", "o", "n", "t", "m", "p"), 3), ("ê", ("", "u", "n", "nh", "t", "ch", "m", "p"), 3),
          ("i", ("", "u", "n", "nh", "t", "ch", "m", "p", "a"), 5), ("iê", ("u", "n", "ng", "t", "c", "m", "p"), 4),
          ("o", ("", "i", "n", "ng", "t", "c", "m", "p", "a", "e"), 6), ("oa", ("", "i", "n", "ng", "nh", "t", "c"), 3),
          ("ô", ("", "i", "n", "ng", "t", "c", "m", "p"), 5), ("ơ", ("", "i", "n", "t", "m", "p"), 4),
          ("u", ("", "i", "n", "ng", "t", "c", "m", "p", "a", "y"), 5), ("uô", ("i", "n", "ng", "t", "c", "m"), 2),
          ("ư", ("", "a", "i", "u", "n", "ng", "t", "c"), 4), ("ươ", ("i", "u", "n", "ng", "t", "c", "m", "p"), 3),
          ("uyê", ("n", "t"), 1), ("y", ("",), 0.5))
TONES = (("", 30), ("\u0300", 18), ("\u0301", 20), ("\u0309", 10), ("\u0303", 5), ("\u0323", 17))
STOP_FINALS = ("c", "ch", "p", "t")
MODIFIED = "ăâêôơư"
VOWELS = "aăâeêioôơuưy"
FRONT = ("e", "ê", "i", "y")

COMMON_WORDS = (
    "và của các là được trong một có đã với cho vào ở không từ đến này để về khi như theo tại sau cũng đó ra "
    "trên tăng giảm giá mua bán năm ngày người nhiều hơn mức đạt lên xuống so với những sẽ đang nhưng chỉ còn "
    "thị_trường cổ_phiếu ngân_hàng doanh_nghiệp lợi_nhuận tỷ_đồng đầu_tư kinh_tế giao_dịch chứng_khoán công_ty "
    "cổ_đông nhà_đầu_tư khối_ngoại thanh_khoản chỉ_số doanh_thu kế_hoạch tăng_trưởng cùng_kỳ phiên "
    "quý điểm vốn nhóm mã cho_biết trong_khi hoạt_động sản_xuất xuất_khẩu lãi_suất tín_dụng bất_động_sản "
    "thép dầu_khí bán_lẻ tiêu_dùng điện năng_lượng dự_án hợp_đồng phát_hành trái_phiếu cổ_tức niêm_yết "
    "sàn khớp_lệnh khối_lượng giá_trị đơn_vị tổng tài_sản nợ chi_phí biên_lợi_nhuận triệu_đồng nghìn_tỷ "
    "đồng thời chính_sách nhà_nước quy_định thông_tư nghị_định ủy_ban chủ_tịch tổng_giám_đốc hội_đồng_quản_trị "
    "đại_hội thông_qua dự_kiến kết_quả báo_cáo tài_chính hợp_nhất riêng_lẻ kiểm_toán chuyên_gia phân_tích "
    "nhận_định xu_hướng rủi_ro cơ_hội ngắn_hạn dài_hạn tuần tháng trước tiếp_tục liên_tiếp mạnh nhẹ đi_ngang"
)


def spell(onset: str, nucleus: str, final: str, tone: str) -> str | None:
    """One syllable in NFC, or None when the orthography does not allow it."""
    rhyme = nucleus + final
    if final in STOP_FINALS and tone not in ("\u0301", "\u0323"):
        return None
    if onset == "qu" and rhyme[0] in "uưoô":
        return None
    if onset == "gi" and rhyme[0] == "i":
        onset = "g"
    if rhyme[0] in FRONT or rhyme.startswith("iê"):
        onset = {"c": "k", "g": "gh", "ng": "ngh"}.get(onset, onset)
    if nucleus == "y" and onset not in ("", "k", "h", "l", "m", "t", "qu"):
        return None
    return unicodedata.normalize("NFC", _mark(onset, rhyme, final, tone))


def _mark(onset: str, rhyme: str, final: str, tone: str) -> str:
    """The rhyme with the tone's combining mark after the vowel that carries it."""
    positions = [i for i, letter in enumerate(rhyme) if letter in VOWELS]
    modified = [i for i in positions if rhyme[i] in MODIFIED]
    if modified:
        where = modified[-1]
    elif final and final[0] not in VOWELS:
        where = positions[-1]
    elif len(positions) >= 3:
        where = positions[1]
    else:
        where = positions[0]
    return onset + rhyme[:where + 1] + tone + rhyme[where + 1:]


def syllables(rng: random.Random) -> list[str]:
    """Syllables by frequency rank: those of ``COMMON_WORDS`` first, then generated ones."""
    ranked: dict[str, None] = {}
    for word in COMMON_WORDS.split():
        for syllable in word.split("_"):
            ranked.setdefault(syllable, None)
    onsets, onset_weights = zip(*ONSETS)
    nuclei = [(nucleus, finals) for nucleus, finals, _ in NUCLEI]
    nucleus_weights = [weight for _, _, weight in NUCLEI]
    tones, tone_weights = zip(*TONES)
    while len(ranked) < SYLLABLE_COUNT:
        nucleus, finals = rng.choices(nuclei, nucleus_weights)[0]
        syllable = spell(rng.choices(onsets, onset_weights)[0], nucleus, rng.choice(finals),
                         rng.choices(tones, tone_weights)[0])
        if syllable is not None:
            ranked.setdefault(syllable, None)
    return list(ranked)


def common_words() -> list[str]:
    return [word.replace("_", " ") for word in COMMON_WORDS.split()]


def name_syllable(rng: random.Random, pool: list[str]) -> str:
    """A capitalised syllable for a place or company name."""
    return rng.choice(pool).capitalize()
