/* maps.c: not written yet */
