"""The encoding families as objects (sinusoidal, RoPE, ALiBi, learned, relative) with their frequencies and
RoPE's scaling rules."""
