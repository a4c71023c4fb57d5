"""The larger computations: collisions (exact coincidence, near collision, certified separation),
low-precision tables and Men et al.'s base bound."""
