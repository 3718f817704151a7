import typing as t


class Store:
    def __init__(self, values: dict[str, int] | None = None) -> None:
        self.values = values

    @t.overload
    def get(self, name: str, call: t.Literal[True] = True) -> int | None: ...

    @t.overload
    def get(self, name: str, call: bool = ...) -> int | None: ...

    def get(self, name: str, call=True) -> int | None:
        if self.values is not None:
            return self.values.get(name)
        return None
