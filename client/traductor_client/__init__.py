"""Client for the traductor translation service."""
