"""Autograd functions of every tensor op, grouped by kind; each forward next to its backward."""
