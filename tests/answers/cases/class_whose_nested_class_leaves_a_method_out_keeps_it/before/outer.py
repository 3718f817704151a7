class Outer:
    class Inner:
        def a(self):
            return 1

        def b(self):
            return 2

    def c(self):
        return 3
