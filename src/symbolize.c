/* symbolize.c: not written yet */
