"""Python callbacks -> CUDA C and vectorised NumPy (work in progress)."""
