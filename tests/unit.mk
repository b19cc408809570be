## Unit tests of the writer and aggregator (owner: core)
