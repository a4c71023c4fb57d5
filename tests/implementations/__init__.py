"""Implementations of each `check` family as real code writes them, correct and with shipped bugs: the
inputs the family tests and the registry test run the battery on."""
