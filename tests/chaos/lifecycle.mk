## Chaos suite (issue 5): lifecycle cases, see tests/chaos/README.
