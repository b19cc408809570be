/* options.c: not written yet */
