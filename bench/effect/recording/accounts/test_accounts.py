from decimal import Decimal

import pytest
from accounts import Account, AccountError, transfer

GOOD = "GB82WEST12345698765432"
OTHER = "DE89370400440532013000"


def test_numbers_are_checked() -> None:
    assert Account.is_valid_number(GOOD)
    assert Account.is_valid_number(OTHER)
    assert not Account.is_valid_number("GB82WEST12345698765431")


def test_amounts() -> None:
    assert Account.parse_amount("12.50") == Decimal("12.50")
    with pytest.raises(AccountError):
        Account.parse_amount("1.005")


def test_transfer() -> None:
    a = Account(GOOD, "ann", Decimal("100"))
    b = Account(OTHER, "bob")
    transfer(a, b, "30.25")
    assert (a.balance, b.balance) == (Decimal("69.75"), Decimal("30.25"))
    with pytest.raises(AccountError):
        transfer(b, a, "31")
