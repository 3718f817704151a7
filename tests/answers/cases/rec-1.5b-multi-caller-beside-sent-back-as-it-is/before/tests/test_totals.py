from tabular.totals import column_total


def test_column_total():
    text = "name,amount\napples,3\npears,4\n"
    assert column_total(text, "amount") == 7
