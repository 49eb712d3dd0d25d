"""unotable web package."""
