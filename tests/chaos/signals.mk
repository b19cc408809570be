## Chaos suite (issue 5): signals cases, see tests/chaos/README.
