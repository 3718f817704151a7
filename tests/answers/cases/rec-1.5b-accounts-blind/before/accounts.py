"""Bank accounts with validated IBAN-like identifiers and simple transfers."""

from __future__ import annotations

import re
from decimal import Decimal


class AccountError(Exception):
    """A rejected operation; the message says why."""


class Account:
    """A balance in one currency, identified by a checked account number."""

    NUMBER = re.compile(r"^[A-Z]{2}\d{2}[A-Z0-9]{4,30}$")

    def __init__(self, number: str, owner: str, balance: Decimal = Decimal("0")) -> None:
        if not self.is_valid_number(number):
            raise AccountError(f"invalid account number {number!r}")
        self.number = number
        self.owner = owner
        self.balance = balance
        self.history: list[tuple[str, Decimal]] = []

    @staticmethod
    def is_valid_number(number: str) -> bool:
        """Shape check, then the mod-97 checksum used by IBANs."""
        if not Account.NUMBER.match(number):
            return False
        rearranged = number[4:] + number[:4]
        digits = "".join(str(int(ch, 36)) for ch in rearranged)
        return int(digits) % 97 == 0

    @staticmethod
    def parse_amount(text: str) -> Decimal:
        """`"12.50"` as Decimal("12.50"); at most two decimals, never negative."""
        amount = Decimal(text)
        if amount < 0 or amount.as_tuple().exponent < -2:
            raise AccountError(f"bad amount {text!r}")
        return amount

    def deposit(self, amount: Decimal) -> None:
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount: Decimal) -> None:
        if amount > self.balance:
            raise AccountError("insufficient funds")
        self.balance -= amount
        self.history.append(("withdraw", amount))

    def __repr__(self) -> str:
        return f"Account({self.number!r}, {self.owner!r}, {self.balance})"


def transfer(source: Account, target: Account, text: str) -> None:
    """Move an amount given as text from one account to another, all or nothing."""
    amount = Account.parse_amount(text)
    source.withdraw(amount)
    target.deposit(amount)
