"""Property checks that take an encoding as an argument and search for a counterexample."""
