class Cart:
    def __init__(self):
        self.items = {}

    def add(self, sku, price, quantity=1):
        _, old_qty = self.items.get(sku, (price, 0))
        self.items[sku] = (price, old_qty + quantity)

    def remove(self, sku):
        self.items.pop(sku, None)

    def total(self):
        total = 0
        for price, quantity in self.items.values():
            total += price + quantity
        return total
