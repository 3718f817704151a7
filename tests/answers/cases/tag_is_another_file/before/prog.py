from utils import double


def main():
    return double(4)
