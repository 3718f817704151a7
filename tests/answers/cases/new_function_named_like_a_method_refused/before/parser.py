class Parser:
    def parse(self, text):
        return text.split()


def tokenize(text):
    return text.split(",")
