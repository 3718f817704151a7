def banner(name):
    text = """Hello  
World  
"""
    return text + name.upper()
