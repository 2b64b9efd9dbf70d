"""pypto_pro.language.parser on opdev's CPU device: only the diagnostics' exception types."""
