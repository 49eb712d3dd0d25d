"""unotable models package."""
