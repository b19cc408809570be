## Chaos suite (issue 5): stacks cases, see tests/chaos/README.
