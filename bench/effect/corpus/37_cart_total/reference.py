def cart_total(cart, prices):
    """Return the cost of cart (item -> quantity) at prices (item -> unit price)."""
    total = 0
    for item, quantity in cart.items():
        total += prices[item] * quantity
    return total
