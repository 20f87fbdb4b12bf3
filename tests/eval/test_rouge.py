"""ROUGE tests: hand-computed values (arithmetic in the comments), the empty
conventions, tokenisation, properties, and agreement with rouge-score."""

from __future__ import annotations

import random
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from regrag.errors import InputError
from regrag.eval.rouge import (
    ROUGE_TYPES,
    RougeScore,
    mean_scores,
    rouge_l,
    rouge_n,
    rouge_scores,
    rouge_tokens,
)

EXACT = 1e-15
ZERO = RougeScore(0.0, 0.0, 0.0)


def assert_score(got: RougeScore, precision: float, recall: float, fmeasure: float) -> None:
    assert got.precision == pytest.approx(precision, abs=EXACT)
    assert got.recall == pytest.approx(recall, abs=EXACT)
    assert got.fmeasure == pytest.approx(fmeasure, abs=EXACT)


# ------------------------------------------------------------ hand-computed


SENTENCE_CANDIDATE = "the cat was found under the bed".split()
SENTENCE_REFERENCE = "the cat was under the bed".split()


def test_rouge1_sentence():
    # candidate 7 unigrams, reference 6; overlap the(min 2,2)=2 + cat + was + under + bed = 6
    # P = 6/7, R = 6/6 = 1, F = 2*(6/7)*1 / (6/7 + 1) = (12/7) / (13/7) = 12/13
    assert_score(rouge_n(SENTENCE_CANDIDATE, SENTENCE_REFERENCE, 1), 6 / 7, 1.0, 12 / 13)


def test_rouge2_sentence():
    # candidate bigrams (6): the-cat cat-was was-found found-under under-the the-bed
    # reference bigrams (5): the-cat cat-was was-under under-the the-bed
    # overlap 4 (the-cat cat-was under-the the-bed): P = 4/6, R = 4/5,
    # F = 2*(2/3)*(4/5) / (2/3 + 4/5) = (16/15) / (22/15) = 8/11
    assert_score(rouge_n(SENTENCE_CANDIDATE, SENTENCE_REFERENCE, 2), 2 / 3, 4 / 5, 8 / 11)


def test_rougel_sentence():
    # LCS = "the cat was under the bed" = 6: P = 6/7, R = 6/6, F = 12/13
    assert_score(rouge_l(SENTENCE_CANDIDATE, SENTENCE_REFERENCE), 6 / 7, 1.0, 12 / 13)


def test_rouge1_clips_repeated_tokens():
    # candidate the,the,the,cat (4); reference the,cat,sat (3)
    # clipped overlap: min(3, 1) for "the" + min(1, 1) for "cat" = 2 (not 4)
    # P = 2/4, R = 2/3, F = 2*(1/2)*(2/3) / (1/2 + 2/3) = (2/3) / (7/6) = 4/7
    candidate = ["the", "the", "the", "cat"]
    reference = ["the", "cat", "sat"]
    assert_score(rouge_n(candidate, reference, 1), 1 / 2, 2 / 3, 4 / 7)
    # bigrams: candidate the-the x2, the-cat (3); reference the-cat, cat-sat (2)
    # overlap 1: P = 1/3, R = 1/2, F = 2*(1/6) / (5/6) = 2/5
    assert_score(rouge_n(candidate, reference, 2), 1 / 3, 1 / 2, 2 / 5)
    # LCS "the cat" = 2: P = 2/4, R = 2/3, F = 4/7
    assert_score(rouge_l(candidate, reference), 1 / 2, 2 / 3, 4 / 7)


def test_rouge1_clips_on_the_reference_side_too():
    # candidate a (1); reference a,a,a,a (4): overlap min(1, 4) = 1
    # P = 1/1, R = 1/4, F = 2*(1/4) / (5/4) = 2/5
    assert_score(rouge_n(["a"], ["a"] * 4, 1), 1.0, 1 / 4, 2 / 5)


def test_rougel_ties_only_the_length_counts():
    # two longest common subsequences, "a b" and "c d", both of length 2:
    # P = 2/4, R = 2/4, F = 1/2 whichever is chosen
    assert_score(rouge_l(list("abcd"), list("cdab")), 0.5, 0.5, 0.5)
    # "a" or "b", length 1: P = R = F = 1/2
    assert_score(rouge_l(["a", "b"], ["b", "a"]), 0.5, 0.5, 0.5)


def test_rougel_is_a_subsequence_not_a_substring():
    # candidate a x b y c (5), reference a b c (3): LCS a b c = 3
    # P = 3/5, R = 3/3, F = 2*(3/5) / (8/5) = 3/4
    assert_score(rouge_l(list("axbyc"), list("abc")), 3 / 5, 1.0, 3 / 4)
    # LCS of different lengths: rouge1 overlap is 3 too, ROUGE-2 overlap 0
    assert_score(rouge_n(list("axbyc"), list("abc"), 2), 0.0, 0.0, 0.0)


def test_no_overlap_gives_zero():
    assert rouge_n(["a", "b"], ["c", "d"], 1) == ZERO
    assert rouge_l(["a", "b"], ["c", "d"]) == ZERO


# ---------------------------------------------------------------- empty inputs


@pytest.mark.parametrize(
    ("candidate", "reference"),
    [([], ["a", "b"]), (["a", "b"], []), ([], [])],
    ids=["empty-candidate", "empty-reference", "both-empty"],
)
def test_empty_inputs_score_zero(candidate, reference):
    # rouge-score: n-gram counts divide by max(count, 1); LCS returns 0 when a side is empty.
    for n in (1, 2, 3):
        assert rouge_n(candidate, reference, n) == ZERO
    assert rouge_l(candidate, reference) == ZERO


def test_shorter_than_n_has_no_ngrams():
    # one token has no bigram, so identical one-token texts score 0 on ROUGE-2 (but 1 on ROUGE-1 and ROUGE-L)
    assert rouge_n(["a"], ["a"], 2) == ZERO
    assert rouge_n(["a"], ["a"], 1) == RougeScore(1.0, 1.0, 1.0)
    assert rouge_l(["a"], ["a"]) == RougeScore(1.0, 1.0, 1.0)


def test_empty_texts_score_zero():
    for text_pair in (("", "giá trị"), ("giá trị", ""), ("", ""), ("!!!", "...")):
        assert rouge_scores(*text_pair) == {key: ZERO for key in ROUGE_TYPES}


@pytest.mark.parametrize("n", [0, -1, True, 1.0])
def test_rouge_n_rejects_bad_n(n):
    with pytest.raises(InputError):
        rouge_n(["a"], ["a"], n)


# ---------------------------------------------------------------- tokenisation


def test_vietnamese_tokens_are_casefolded_syllables():
    tokens = rouge_tokens("VN-Index tăng 14,27 điểm, tương đương 1,09%, lên 1.318,42 điểm")
    # no syllable pairs, no stemming, numbers whole
    assert tokens == ["vn", "index", "tăng", "14,27", "điểm", "tương", "đương", "1,09%", "lên", "1.318,42", "điểm"]


def test_vietnamese_composed_and_decomposed_give_the_same_tokens():
    text = "Cổ phiếu QTB của Ngân hàng TMCP Quảng Thịnh tăng 4,35%"
    decomposed = unicodedata.normalize("NFD", text)
    assert decomposed != text
    assert rouge_tokens(decomposed) == rouge_tokens(text) == [
        "cổ", "phiếu", "qtb", "của", "ngân", "hàng", "tmcp", "quảng", "thịnh", "tăng", "4,35%",
    ]


def test_chinese_tokens_are_single_characters():
    assert rouge_tokens("金莲白金卡的年费是多少？") == list("金莲白金卡的年费是多少")
    # digits and Latin words stay whole next to CJK; full-width forms are NFKC-normalised
    assert rouge_tokens("136 次，ＡＢＣ银行") == ["136", "次", "abc", "银", "行"]


def test_no_stopwords_no_stemming_apostrophes_kept():
    # the English analyzer would drop "the"/"of", stem "running", strip "'s"
    assert rouge_tokens("The running of Apple’s T+1 VN30") == ["the", "running", "of", "apple's", "t+1", "vn30"]


def test_language_does_not_change_tokens_but_is_checked():
    text = "Giá trị khớp lệnh 金莲 running"
    assert {tuple(rouge_tokens(text, language)) for language in (None, "auto", "en", "vi", "zh")} == {
        tuple(rouge_tokens(text))
    }
    with pytest.raises(InputError):
        rouge_tokens(text, "fr")


def test_rouge_scores_vietnamese():
    # candidate (8): giá trị khớp lệnh đạt 18.920 tỷ đồng
    # reference (10): giá trị khớp lệnh trên hose đạt 18.920 tỷ đồng
    scores = rouge_scores("Giá trị khớp lệnh đạt 18.920 tỷ đồng", "giá trị khớp lệnh trên HOSE đạt 18.920 tỷ đồng")
    # unigrams: overlap 8: P = 8/8, R = 8/10, F = 2*0.8 / 1.8 = 8/9
    assert_score(scores["rouge1"], 1.0, 0.8, 8 / 9)
    # bigrams: candidate 7, reference 9; overlap giá-trị trị-khớp khớp-lệnh + đạt-18.920 18.920-tỷ tỷ-đồng = 6
    # P = 6/7, R = 6/9, F = 2*(6/7)*(2/3) / (6/7 + 2/3) = (24/21) / (32/21) = 3/4
    assert_score(scores["rouge2"], 6 / 7, 2 / 3, 3 / 4)
    # LCS = the whole candidate, 8: as ROUGE-1
    assert_score(scores["rougeL"], 1.0, 0.8, 8 / 9)
    assert list(scores) == list(ROUGE_TYPES)


def test_rouge_scores_chinese_by_character():
    # candidate 年 费 是 多 少 (5), reference 年 费 多 少 (4)
    scores = rouge_scores("年费是多少", "年费多少")
    # unigrams: overlap 4: P = 4/5, R = 1, F = 2*(4/5) / (9/5) = 8/9
    assert_score(scores["rouge1"], 4 / 5, 1.0, 8 / 9)
    # bigrams: 年费 费是 是多 多少 (4) vs 年费 费多 多少 (3): overlap 2, P = 1/2, R = 2/3, F = 4/7
    assert_score(scores["rouge2"], 1 / 2, 2 / 3, 4 / 7)
    # LCS 年费多少 = 4: as ROUGE-1
    assert_score(scores["rougeL"], 4 / 5, 1.0, 8 / 9)


# ---------------------------------------------------------------- mean


def test_mean_scores_is_the_mean_of_each_figure():
    first = {"rouge1": RougeScore(1.0, 0.5, 2 / 3)}
    second = {"rouge1": RougeScore(0.0, 0.0, 0.0)}
    # P = (1 + 0)/2, R = (0.5 + 0)/2, F = (2/3 + 0)/2 = 1/3: the mean of the Fs, not F(mean P, mean R) = 0.333...
    assert_score(mean_scores([first, second])["rouge1"], 0.5, 0.25, 1 / 3)


def test_mean_scores_order_free_and_edge_cases():
    rng = random.Random(7)
    pairs = [
        rouge_scores(" ".join(rng.choices("abcde", k=rng.randint(0, 9))), " ".join(rng.choices("abcde", k=rng.randint(0, 9))))
        for _ in range(50)
    ]
    shuffled = pairs[:]
    rng.shuffle(shuffled)
    assert mean_scores(pairs) == mean_scores(shuffled)
    assert mean_scores([]) == {}
    with pytest.raises(InputError):
        mean_scores([{"rouge1": ZERO}, {"rouge2": ZERO}])


# ---------------------------------------------------------------- properties

token_lists = st.lists(st.sampled_from(["a", "b", "c", "d", "đ", "金"]), max_size=14)


@given(token_lists, token_lists, st.integers(min_value=1, max_value=3))
def test_rouge_n_swapping_sides_swaps_precision_and_recall(candidate, reference, n):
    forward = rouge_n(candidate, reference, n)
    backward = rouge_n(reference, candidate, n)
    assert forward.precision == backward.recall
    assert forward.recall == backward.precision
    assert forward.fmeasure == backward.fmeasure
    for value in (forward.precision, forward.recall, forward.fmeasure):
        assert 0.0 <= value <= 1.0


@given(token_lists, token_lists)
def test_rouge_l_swapping_sides_swaps_precision_and_recall(candidate, reference):
    forward = rouge_l(candidate, reference)
    backward = rouge_l(reference, candidate)
    assert (forward.precision, forward.recall, forward.fmeasure) == (backward.recall, backward.precision, backward.fmeasure)
    for value in (forward.precision, forward.recall, forward.fmeasure):
        assert 0.0 <= value <= 1.0


@given(token_lists, token_lists)
def test_lcs_never_beats_clipped_unigram_overlap(candidate, reference):
    # a common subsequence is a common multiset of unigrams, so ROUGE-L <= ROUGE-1 on P and R
    lcs = rouge_l(candidate, reference)
    unigram = rouge_n(candidate, reference, 1)
    assert lcs.precision <= unigram.precision
    assert lcs.recall <= unigram.recall
    # F lies between P and R (a harmonic mean)
    assert min(lcs.precision, lcs.recall) - 1e-15 <= lcs.fmeasure <= max(lcs.precision, lcs.recall) + 1e-15


@given(token_lists)
def test_identical_token_lists_score_one(tokens):
    for n in (1, 2, 3):
        expected = RougeScore(1.0, 1.0, 1.0) if len(tokens) >= n else ZERO
        assert rouge_n(tokens, tokens, n) == expected
    assert rouge_l(tokens, tokens) == (RougeScore(1.0, 1.0, 1.0) if tokens else ZERO)


@given(st.text(max_size=60))
def test_identical_texts_score_one(text):
    scores = rouge_scores(text, text)
    count = len(rouge_tokens(text))
    assert scores["rouge1"] == scores["rougeL"] == (RougeScore(1.0, 1.0, 1.0) if count else ZERO)
    assert scores["rouge2"] == (RougeScore(1.0, 1.0, 1.0) if count >= 2 else ZERO)


# ---------------------------------------------------------------- rouge-score


class _GivenTokens:
    """A rouge-score tokenizer that returns the tokens it is given: with
    ``rouge1``/``rouge2``/``rougeL`` only, ``RougeScorer.score`` passes its two
    arguments straight to ``tokenizer.tokenize`` (rouge-score 0.1.2)."""

    def tokenize(self, tokens):
        return list(tokens)


def test_agrees_with_rouge_score_on_random_token_lists():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=_GivenTokens())
    rng = random.Random(20260101)
    vocabulary = ["a", "b", "c", "d", "e", "giá", "trị", "金", "莲"]
    worst = 0.0
    for _ in range(400):
        candidate = rng.choices(vocabulary[: rng.randint(1, 9)], k=rng.randint(0, 25))
        reference = rng.choices(vocabulary[: rng.randint(1, 9)], k=rng.randint(0, 25))
        theirs = scorer.score(reference, candidate)  # rouge-score takes (target, prediction)
        ours = {
            "rouge1": rouge_n(candidate, reference, 1),
            "rouge2": rouge_n(candidate, reference, 2),
            "rougeL": rouge_l(candidate, reference),
        }
        for key in ROUGE_TYPES:
            for field in ("precision", "recall", "fmeasure"):
                worst = max(worst, abs(getattr(ours[key], field) - getattr(theirs[key], field)))
    assert worst <= 1e-9


def test_rouge_score_default_tokenizer_breaks_vietnamese_and_drops_chinese():
    tokenizers = pytest.importorskip("rouge_score.tokenizers")
    default = tokenizers.DefaultTokenizer()
    # only [a-z0-9] runs survive: accented letters become separators, CJK vanishes
    assert default.tokenize("tăng điểm") == ["t", "ng", "i", "m"]
    assert default.tokenize("金莲白金卡") == []
    assert rouge_tokens("tăng điểm") == ["tăng", "điểm"]
