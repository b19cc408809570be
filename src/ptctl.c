/* ptctl.c: not written yet */
