"""Away time: players' balances of away days, and their deadlines stopped while away."""
