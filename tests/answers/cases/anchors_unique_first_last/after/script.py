total = 0
for n in range(10):
    total += n * n
print(total)
