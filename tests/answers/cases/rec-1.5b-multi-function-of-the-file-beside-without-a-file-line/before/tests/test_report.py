from textstats.report import summary


def test_summary_of_a_sentence():
    assert summary("the cat sat") == "3 words, longest: the"


def test_summary_counts_across_lines_and_double_spaces():
    assert summary("one  two three") == "3 words, longest: three"
