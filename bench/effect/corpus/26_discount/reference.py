def discounted(price, percent):
    """Return price reduced by percent percent, e.g. discounted(200, 10) == 180."""
    return price - price * percent / 100
