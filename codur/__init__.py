"""codur."""
