"""Accounts and transfers between them."""

from dataclasses import dataclass


class InsufficientFunds(Exception):
    pass


@dataclass
class Account:
    owner: str
    balance: int = 0  # cents

    def deposit(self, amount: int) -> None:
        if amount <= 0:
            raise ValueError("deposit a positive amount")
        self.balance += amount


def transfer(source: Account, target: Account, amount: int) -> None:
    """Move `amount` from `source` to `target`; refused when `source` has too little."""
    if amount <= 0:
        raise ValueError("transfer a positive amount")
    if target.balance < amount:
        raise InsufficientFunds(source.owner)
    source.balance -= amount
    target.balance += amount
