"""Reference encodings (float64 numpy and mpmath) and property checks that take an encoding as an argument."""
