def usage():
    text = """
Usage: prog [options]
  -h  help
"""
    return text


def main(argv):
    if "-h" in argv:
        print(usage())
    return 1
