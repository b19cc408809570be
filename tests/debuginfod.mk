## The debuginfod client (issue 29 item 1): debuginfod.test serves the
## split target's debug info, split off with objcopy, from Debian's
## debuginfod in a network namespace of its own (loopback only), names the
## stripped copy's functions in record, report, dump and top as eu-stack
## does, and checks each bad server (silent, slow, another build ID,
## truncated, huge, refused) and bad cache for one clear line, a profile
## with addresses, and a bounded time.  tests/tools/badinfod.py is the bad
## server.
## Covers: debuginfod fetchnote debugfile symbolize_elf
TESTS += tests/debuginfod.test
EXTRA_DIST += tests/tools/badinfod.py
