"""Serving the app to a class: several processes behind HAProxy (see serve.py)."""
