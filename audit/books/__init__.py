"""The table's books: inventories, fills, credits, buy-ins and counts, reconciled
with the hands (``shared/spec/accounting.md``)."""
