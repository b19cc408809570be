/* unwind.c: not written yet */
