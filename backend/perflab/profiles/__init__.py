"""Profiles (flame graphs) stored per run: upload in any supported format, tree, functions, diff."""
