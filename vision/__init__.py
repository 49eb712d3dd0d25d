"""unotable vision package."""
