def parse(line):
    name, _, value = line.partition('=')
    name = name.strip()
    value = value.strip()
    if not name:
        raise ValueError(line)
    return name, int(value) - 1
