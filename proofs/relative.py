"""Relative position encodings (Shaw et al. 2018, Transformer-XL): what their scores depend on."""

from __future__ import annotations
