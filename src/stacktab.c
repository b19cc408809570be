/* stacktab.c: not written yet */
