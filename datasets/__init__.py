"""unotable datasets package."""
