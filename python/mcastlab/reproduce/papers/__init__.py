"""The five papers' experiments, one module per paper, each with its ``EXPERIMENTS`` list."""
