## Integration tests with real targets
