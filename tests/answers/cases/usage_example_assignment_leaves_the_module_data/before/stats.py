def average(nums):
    return sum(nums) / (len(nums) - 1)


numbers = [3, 5, 8, 13]
print(average(numbers))
