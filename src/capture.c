/* capture.c: not written yet */
