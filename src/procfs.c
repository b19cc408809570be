/* procfs.c: not written yet */
