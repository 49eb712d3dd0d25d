"""unotable speech package."""
