"""Stream-cut training windows: labels by where the keyword lies in the window, and the table's negatives."""

from __future__ import annotations

import numpy as np

from speech.features import HOP, WIN, WINDOW_FRAMES
from speech.mining import label_windows, logmel_long, windows_at
from speech.vocab import CLASSES, KEYWORDS, NEGATIVE_WORDS, class_of_text


def test_window_labels_follow_the_whole_word() -> None:
    s, e = 16000, 24000  # a 0.5 s "uno"
    last, lab = label_windows(400, [{"cls": "uno", "start": s, "end": e}])
    w_end = last * HOP + WIN
    w_start = (last - WINDOW_FRAMES + 1) * HOP
    uno = CLASSES.index("uno")
    # keyword: the whole word inside, the window ending within 0.35 s of its end
    assert np.all((w_start[lab == uno] <= s) & (w_end[lab == uno] >= e) & (w_end[lab == uno] <= e + 5600))
    assert (lab == uno).sum() == ((w_end >= e) & (w_end <= e + 5600)).sum() == 35
    # other: before the word, or with at most its first half at the window's end
    assert np.all(lab[w_end <= s] == 0)
    assert np.all(lab[(w_end > s) & (w_end - s <= (e - s) // 2)] == 0)
    # ambiguous: more than half of it, or heard long ago, or only its end left
    assert np.all(lab[(w_end - s > (e - s) // 2) & (w_end < e)] == -1)
    assert np.all(lab[(w_end > e + 5600) & (w_start <= s)] == -1)
    assert np.all(lab[(w_start > s) & (w_start < e)] == -1)
    assert np.all(lab[w_start >= e] == 0)


def test_long_features_match_and_windows_cut() -> None:
    from speech.features import logmel

    x = np.random.default_rng(0).standard_normal(16000 * 3).astype(np.float32) * 0.1
    f = logmel_long(x, block_frames=77)
    assert np.allclose(f, logmel(x), atol=1e-4)
    w = windows_at(f, np.array([WINDOW_FRAMES - 1, 200]))
    assert w.shape == (2, WINDOW_FRAMES, f.shape[1]) and np.array_equal(w[1], f[200 - WINDOW_FRAMES + 1:201])


def test_card_table_negatives() -> None:
    """The words a card table says that once fired (card numbers; "three" heard as "green") are negatives, and no
    negative is a keyword."""
    for w in ("three", "five", "six", "plus two", "I know"):
        assert w in NEGATIVE_WORDS["en"]
    for w in ("пять", "шесть", "восемь", "девять", "у нас"):
        assert w in NEGATIVE_WORDS["ru"]
    for lang, words in NEGATIVE_WORDS.items():
        assert len(set(words)) == len(words)
        assert all(class_of_text(w) is None for w in words)
        assert not set(words) & {t for by in KEYWORDS.values() for t in by[lang]}
